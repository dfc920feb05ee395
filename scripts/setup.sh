#!/usr/bin/env bash
# Set up everything jupyter-operator needs on a fresh machine (idempotent):
# Debian's chromium for the browser tests, a virtual environment in .venv, and the package
# installed in editable mode with its test extra (the build compiles the JupyterLab extension
# with jlpm, so Node.js and npm must be present).
set -euo pipefail
cd "$(dirname "$0")/.."
# Tools such as `jupyter labextension develop` call other console scripts by name.
export PATH="$PWD/.venv/bin:$PATH"

if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing Debian's chromium (for the browser tests)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "==> chromium is missing: install it (e.g. sudo apt-get install chromium) for the browser tests" >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv"
  python3 -m venv .venv
fi
echo "==> installing jupyter-operator and its test dependencies"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[test]"
# An editable install does not place the prebuilt extension in the environment's share/ folder.
.venv/bin/jupyter labextension develop --overwrite . >/dev/null
.venv/bin/jupyter server extension enable jupyter_operator --sys-prefix >/dev/null
