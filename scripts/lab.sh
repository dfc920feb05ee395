#!/usr/bin/env bash
# Open JupyterLab on the quickstart notebook, with jupyter-operator installed. The notebooks are
# copies in playground/ (see scripts/playground.sh): trying them never changes the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
# Tools such as `jupyter labextension develop` call other console scripts by name.
export PATH="$PWD/.venv/bin:$PATH"
bash scripts/setup.sh
folder="$(bash scripts/playground.sh)"
root_flag=()
[ "$(id -u)" = "0" ] && root_flag=(--allow-root)
cd "$folder"
exec ../.venv/bin/jupyter lab "${root_flag[@]}" 01-quickstart.ipynb "$@"
