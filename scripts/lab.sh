#!/usr/bin/env bash
# Open JupyterLab on the quickstart notebook, with jupyter-operator installed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
root_flag=()
[ "$(id -u)" = "0" ] && root_flag=(--allow-root)
exec .venv/bin/jupyter lab "${root_flag[@]}" notebooks/01-quickstart.ipynb "$@"
