#!/usr/bin/env bash
# Set up everything jupyter-operator needs on a fresh machine (idempotent):
# Debian's chromium and bubblewrap, a virtual environment in .venv, and the package
# installed in editable mode with its test extra (the build compiles the JupyterLab extension
# with jlpm, so Node.js and npm must be present). The test extra holds the collaboration extra
# (jupyter-collaboration): the browser tests start JupyterLab with real-time collaboration off
# unless a test is about it (tests/browser/browserkit.py).
set -euo pipefail
cd "$(dirname "$0")/.."
# Tools such as `jupyter labextension develop` call other console scripts by name.
export PATH="$PWD/.venv/bin:$PATH"

# Debian packages: chromium (browser tests) and bubblewrap (the sandbox shell commands run in).
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing ${missing[*]} (Debian packages)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "==> missing: ${missing[*]}: install them (e.g. sudo apt-get install ${missing[*]})" >&2
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
# JupyterLab 4.5 moved `jupyter labextension develop` (now deprecated: it prints a warning on
# every run) to jupyter-builder, which it installs; older JupyterLab has only the former.
if [ -x .venv/bin/jupyter-builder ]; then
  .venv/bin/jupyter-builder develop --overwrite . >/dev/null
else
  .venv/bin/jupyter labextension develop --overwrite . >/dev/null
fi
.venv/bin/jupyter server extension enable jupyter_operator --sys-prefix >/dev/null
