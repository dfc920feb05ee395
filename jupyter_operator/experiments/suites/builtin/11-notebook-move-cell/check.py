"""convert.ipynb: the constants cell comes right after the introduction, all cells run."""

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import NoReturn

SOURCES = {
    "intro": "# Temperature conversion\n\nConverts a few Celsius readings to Fahrenheit.",
    "constants": "FACTOR = 9 / 5\nOFFSET = 32",
    "convert": "def to_fahrenheit(celsius):\n    return celsius * FACTOR + OFFSET",
    "table": "readings = [-5, 0, 21.5, 37]\n"
             "converted = [round(to_fahrenheit(c), 1) for c in readings]\n"
             "print(converted)",
}  # fmt: skip


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


try:
    cells = json.loads(Path("convert.ipynb").read_text(encoding="utf-8"))["cells"]
except (OSError, ValueError, KeyError, TypeError) as exc:
    fail(f"convert.ipynb is missing or not a notebook: {exc}")
ids = [cell.get("id") for cell in cells]
if ids != list(SOURCES):
    fail(f"the cells are in the order {ids}, expected {list(SOURCES)}")
for cell in cells:
    if source(cell).strip() != SOURCES[cell["id"]]:
        fail(f"the source of cell {cell['id']} changed; only the order should")
code = "\n".join(source(cell) for cell in cells if cell["cell_type"] == "code")
namespace: dict = {"__name__": "__main__"}
try:
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, namespace)
except Exception as exc:
    fail(f"running the code cells raised {type(exc).__name__}: {exc}")
if namespace.get("converted") != [23.0, 32.0, 70.7, 98.6]:
    fail(f"converted is {namespace.get('converted')!r}")
print("OK: the constants cell moved and the notebook runs top to bottom")
