#!/usr/bin/env bash
# Copy the shipped notebooks into a playground folder (default: playground/, ignored by git),
# so that trying the demos - running, clicking, saving - never changes the repository's own
# notebooks. A copy that is already there is kept (it may hold your work); delete it, or the
# whole folder, to get a fresh one. Prints the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:-playground}"
mkdir -p "$target"
for notebook in notebooks/*.ipynb; do
  name="$(basename "$notebook")"
  [ -e "$target/$name" ] || cp "$notebook" "$target/$name"
done
echo "$target"
