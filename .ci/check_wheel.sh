#!/usr/bin/env bash
# Packaging check: build the wheel from a clean copy of the source tree (so the JupyterLab
# extension is compiled by the build hook, as on a fresh checkout), install it into a fresh
# virtual environment, and check with Node off the PATH that JupyterLab and jupyter-server
# both see jupyter-operator as enabled and OK.
#
# Usage: .ci/check_wheel.sh            build the wheel with .venv/bin/python (needs `build`), check it
#        .ci/check_wheel.sh WHEEL      check an already built wheel instead
#        PYTHON=/path/to/python .ci/check_wheel.sh   build and check with another interpreter
# Needs Node.js and npm for the build step only. Exit status 0 means every check passed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
[ -z "${KEEP_WORK:-}" ] || trap - EXIT  # KEEP_WORK=1 keeps the scratch folder for debugging

fail() { echo "check_wheel: FAIL: $*" >&2; exit 1; }
strip_colours() { sed -e 's/\x1b\[[0-9;]*m//g'; }

if [ -n "${1:-}" ]; then
  WHEEL="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
  [ -f "$WHEEL" ] || fail "no such wheel: $1"
else
  echo "==> copying the source tree (tracked and unignored files only)"
  mkdir -p "$WORK/src"
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -xf - -C "$WORK/src"
  [ ! -e "$WORK/src/jupyter_operator/labextension" ] || fail "build output was copied into the clean tree"

  echo "==> building the wheel (the hook runs jlpm install and build:prod)"
  start=$SECONDS
  (cd "$WORK/src" && "$PYTHON" -m build --wheel --outdir "$WORK/dist" . >"$WORK/build.log" 2>&1) \
    || { tail -40 "$WORK/build.log" >&2; fail "wheel build failed"; }
  WHEEL="$(ls "$WORK"/dist/jupyter_operator-*.whl)"
  echo "    $(basename "$WHEEL") in $((SECONDS - start)) s"
  mkdir -p "$ROOT/dist"
  cp "$WHEEL" "$ROOT/dist/"
fi

echo "==> checking the wheel's contents"
"$PYTHON" - "$WHEEL" <<'PY' || fail "the wheel is missing labextension or config files"
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
share = "share/jupyter/labextensions/jupyter-operator/"
needed = [share + "package.json", share + "install.json", share + "static/style.js",
          share + "schemas/jupyter-operator/plugin.json",
          "etc/jupyter/jupyter_server_config.d/jupyter_operator.json"]
missing = [n for n in needed if not any(x.endswith(".data/data/" + n) for x in names)]
if missing:
    print("missing:", *missing, sep="\n  ", file=sys.stderr)
    sys.exit(1)
if not any(x.startswith(("jupyter_operator/", )) and x.endswith("__init__.py") for x in names):
    sys.exit("the Python package is missing")
# The notebook cards' front end (bundled by the same build step): anywidget loads it from here.
cards = [n for n in ("jupyter_operator/static/widget.js", "jupyter_operator/static/widget.css")
         if n not in names]
if cards:
    sys.exit("the notebook cards' module is missing: " + ", ".join(cards))
# The results viewer's script and styles (`jupyter-operator view`, `Results.show()`).
viewer = [n for n in ("jupyter_operator/experiments/viewer/viewer.js",
                      "jupyter_operator/experiments/viewer/viewer.css") if n not in names]
if viewer:
    sys.exit("the results viewer's files are missing: " + ", ".join(viewer))
PY

echo "==> installing it (and JupyterLab) into a fresh virtual environment"
"$PYTHON" -m venv "$WORK/venv"
# JupyterLab is not a dependency of the package (it also serves Notebook 7 and plain
# jupyter-server), so install it beside the wheel as a user would, from PyPI wheels only.
"$WORK/venv/bin/python" -m pip install -q "$WHEEL" "jupyterlab>=4,<5" >"$WORK/pip.log" 2>&1 \
  || { tail -20 "$WORK/pip.log" >&2; fail "pip install of the wheel failed"; }

# No Node on the PATH: the installed extension must be prebuilt. Jupyter's user-level
# folders point into the scratch directory so only the fresh environment is seen.
no_node() {
  env PATH="$WORK/venv/bin" JUPYTER_PLATFORM_DIRS=1 \
    JUPYTER_CONFIG_DIR="$WORK/jupyter-config" JUPYTER_DATA_DIR="$WORK/jupyter-data" "$@"
}
if no_node /bin/sh -c 'command -v node' >/dev/null 2>&1; then fail "node is still on the PATH"; fi

echo "==> jupyter labextension list"
# `|| true`: the listing is judged by its text below, not by its exit status.
labs="$(no_node "$WORK/venv/bin/jupyter" labextension list 2>&1 | strip_colours || true)"
echo "$labs" | grep -i "jupyter-operator" || true
echo "$labs" | grep -Eq "jupyter-operator v[0-9.]+ enabled +OK" \
  || { echo "$labs" >&2; fail "jupyter-operator is not listed as an enabled, OK labextension"; }

echo "==> jupyter server extension list"
servers="$(no_node "$WORK/venv/bin/jupyter" server extension list 2>&1 | strip_colours || true)"
echo "$servers" | grep -i "jupyter_operator" || true
echo "$servers" | grep -Eq "jupyter_operator +enabled" \
  || { echo "$servers" >&2; fail "jupyter_operator is not an enabled server extension"; }
echo "$servers" | grep -Eq "jupyter_operator [0-9.]+ +OK" \
  || { echo "$servers" >&2; fail "jupyter_operator did not validate (import or load error)"; }

echo "==> the built-in task suite ships in the wheel"
suite="$(no_node "$WORK/venv/bin/python" -c \
  "from jupyter_operator.experiments import load_suite; print(len(load_suite('builtin')))")" \
  || fail "the built-in suite does not load from the installed wheel"
[ "$suite" -ge 20 ] || fail "the built-in suite has $suite tasks in the wheel"
echo "    $suite tasks"

echo "==> the notebook cards' module loads from the installed wheel"
module="$(no_node "$WORK/venv/bin/python" -c \
  "from jupyter_operator.widgets import module; print(len(module.source()), 'jp-Operator-card' in module.source())")" \
  || fail "the notebook cards' module does not load from the installed wheel"
case "$module" in
  *True) echo "    $module" ;;
  *) fail "the notebook cards' module is missing from the installed wheel: $module" ;;
esac

echo "check_wheel: OK"
