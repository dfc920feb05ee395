#!/usr/bin/env bash
# Open JupyterLab on the quickstart notebook, with jupyter-operator installed.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tools such as `jupyter labextension develop` call other console scripts by name.
export PATH="$PWD/.venv/bin:$PATH"
bash scripts/setup.sh
root_flag=()
[ "$(id -u)" = "0" ] && root_flag=(--allow-root)
exec .venv/bin/jupyter lab "${root_flag[@]}" notebooks/01-quickstart.ipynb "$@"
