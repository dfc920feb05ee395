#!/usr/bin/env bash
# Run the whole test suite: lint, the Python tests (protocol, workspace, engine, command line,
# conformance, server, notebook, and the real-browser tests in headless chromium), the
# TypeScript unit tests and the wheel packaging check.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tools such as `jupyter labextension develop` call other console scripts by name.
export PATH="$PWD/.venv/bin:$PATH"
bash scripts/setup.sh

echo "==> ruff"
.venv/bin/ruff check .
echo "==> jest (the JupyterLab extension's TypeScript logic)"
(cd labextension && jlpm install --immutable >/dev/null && jlpm test --silent)
echo "==> wheel packaging check (installed without Node, both extensions enabled and OK)"
bash .ci/check_wheel.sh
echo "==> pytest"
.venv/bin/python -m pytest "$@"
