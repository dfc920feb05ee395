"""report.ipynb: the DEBUG cell is gone, the title is new, a last cell prints the best region."""

import contextlib
import io
import json
import sys
from pathlib import Path
from typing import NoReturn

LOAD = 'sales = {"north": 120, "south": 95, "east": 143, "west": 88}'
TOTAL = 'total = sum(sales.values())\nprint(f"Total: {total}")'


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


path = Path("report.ipynb")
try:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    cells = notebook["cells"]
except (OSError, ValueError, KeyError, TypeError) as exc:
    fail(f"report.ipynb is missing or not a notebook: {exc}")
if notebook.get("nbformat") != 4 or any(not cell.get("id") for cell in cells):
    fail("report.ipynb is no longer an nbformat 4 notebook with cell ids")
if any("DEBUG" in source(cell) for cell in cells):
    fail("a cell still prints DEBUG")
ids = [cell["id"] for cell in cells]
if len(cells) != 4 or ids[:3] != ["title", "load", "total"]:
    fail(f"expected the cells title, load, total and one new cell; got ids {ids}")
title = cells[0]
if title["cell_type"] != "markdown" or source(title).strip() != "# Sales report (Q3 2024)":
    fail(f"the title cell is {source(title)!r}, expected '# Sales report (Q3 2024)'")
if source(cells[1]).strip() != LOAD or source(cells[2]).strip() != TOTAL:
    fail("the load or total cell changed")
last = cells[3]
if last["cell_type"] != "code":
    fail("the new last cell is not a code cell")
code = "\n".join(source(cell) for cell in cells if cell["cell_type"] == "code")
namespace: dict = {"__name__": "__main__"}
out = io.StringIO()
try:
    with contextlib.redirect_stdout(out):
        exec(code, namespace)
except Exception as exc:
    fail(f"running the code cells raised {type(exc).__name__}: {exc}")
if namespace.get("best") != "east" or "Best region: east" not in out.getvalue():
    printed = out.getvalue()
    fail(f"the last cell should set best = 'east' and print 'Best region: east'; got {printed!r}")
print("OK: report.ipynb was tidied cell by cell")
