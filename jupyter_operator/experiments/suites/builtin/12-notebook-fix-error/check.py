"""weather.ipynb: every code cell runs, mean_temp is 16.0, the data is unchanged."""

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import NoReturn

DATA = (
    'import csv\nimport io\n\nRAW = """city,temp_c\nOslo,4.5\nLisbon,17.0\n'
    'Cairo,26.5\n"""\nrows = list(csv.DictReader(io.StringIO(RAW)))'
)


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


try:
    cells = json.loads(Path("weather.ipynb").read_text(encoding="utf-8"))["cells"]
except (OSError, ValueError, KeyError, TypeError) as exc:
    fail(f"weather.ipynb is missing or not a notebook: {exc}")
ids = [cell.get("id") for cell in cells]
if ids != ["title", "data", "mean", "warmest"]:
    fail(f"the cells are {ids}, expected title, data, mean, warmest (fix the cell in place)")
if source(cells[1]).strip() != DATA:
    fail("the data cell changed; the fix belongs in the cell that computes the mean")
code = "\n".join(source(cell) for cell in cells if cell["cell_type"] == "code")
namespace: dict = {"__name__": "__main__"}
try:
    with contextlib.redirect_stdout(io.StringIO()):
        exec(code, namespace)
except Exception as exc:
    fail(f"running the code cells raised {type(exc).__name__}: {exc}")
mean = namespace.get("mean_temp")
if not isinstance(mean, (int, float)) or abs(mean - 16.0) > 1e-9:
    fail(f"mean_temp is {mean!r}, expected 16.0")
if namespace.get("warmest") != "Cairo":
    fail(f"warmest is {namespace.get('warmest')!r}, expected 'Cairo'")
print("OK: every code cell of weather.ipynb runs")
