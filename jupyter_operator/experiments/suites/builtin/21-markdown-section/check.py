"""README.md has a Configuration section (a table of the three variables) before Usage."""

import hashlib
from pathlib import Path

from taskcheck import fail

CONFIG_SHA256 = "b6d10c695693c5e3d2dacaea835d531862ad9c996dafcfe18941a6273b094bc1"
ORIGINAL = """# Ledger

A small bookkeeping service.

## Installation

    pip install -e .

## Usage

    python -m ledger serve

The service listens on port 8000.

## License

MIT
"""
VARIABLES = {
    "LEDGER_DATABASE_URL": "sqlite:///ledger.db",
    "LEDGER_WORKERS": "4",
    "LEDGER_LOG_LEVEL": "info",
}


def cells(row: str) -> list[str]:
    return [cell.strip().strip("`").strip() for cell in row.strip().strip("|").split("|")]


config = Path("config.py")
if not config.is_file() or hashlib.sha256(config.read_bytes()).hexdigest() != CONFIG_SHA256:
    fail("config.py was changed; only README.md should be")
try:
    lines = Path("README.md").read_text(encoding="utf-8").splitlines()
except OSError as exc:
    fail(f"README.md cannot be read: {exc}")
headings = [line.strip() for line in lines if line.startswith("#")]
wanted = ["# Ledger", "## Installation", "## Configuration", "## Usage", "## License"]
if headings != wanted:
    fail(f"the headings are {headings}, expected {wanted}")
start = next(i for i, line in enumerate(lines) if line.strip() == "## Configuration")
end = next(i for i, line in enumerate(lines) if line.strip() == "## Usage")
section = lines[start + 1 : end]
rows = [cells(line) for line in section if line.count("|") >= 2]  # outer pipes optional
if len(rows) < 2 or [cell.lower() for cell in rows[0]] != ["variable", "default", "meaning"]:
    fail("the section has no table with the columns Variable, Default and Meaning")
if not all(set(cell) <= set("-: ") and cell for cell in rows[1]):
    fail("the table's second line is not a Markdown separator row")
found = {row[0]: row for row in rows[2:]}
if set(found) != set(VARIABLES):
    fail(f"the table lists {sorted(found)}, expected {sorted(VARIABLES)}")
for name, default in VARIABLES.items():
    row = found[name]
    if len(row) != 3 or row[1] != default or not row[2]:
        fail(f"the row of {name} should give the default {default!r} and a meaning: {row}")
outside = [line for line in lines[:start] + lines[end:] if line.strip()]
if outside != [line for line in ORIGINAL.splitlines() if line.strip()]:
    fail("README.md changed outside the new section")
print("OK: README.md documents the configuration")
