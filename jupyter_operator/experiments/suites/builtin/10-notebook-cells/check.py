"""report.ipynb: the DEBUG cell is gone, the title is new, a last cell prints the best region.

The code cells run in a child process (taskcheck.run_python), on sales figures drawn for this
run in place of the load cell's (which must be unchanged), where the best region is not east;
what they print is judged here.
"""

import json
import random
from pathlib import Path

from taskcheck import fail, run_python

LOAD = 'sales = {"north": 120, "south": 95, "east": 143, "west": 88}'
TOTAL = 'total = sum(sales.values())\nprint(f"Total: {total}")'
CALL = '''
def main(sources):
    namespace, printed = run_cells(sources)
    return {"best": namespace.get("best"), "printed": printed}
'''


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
rng = random.SystemRandom()
figures = rng.sample(range(10, 500), 4)
sales = dict(zip(["north", "south", "east", "west"], figures, strict=True))
if max(sales, key=sales.get) == "east":  # another region than the notebook's own answer
    sales["east"], sales["west"] = sales["west"], sales["east"]
sources = [f"sales = {sales!r}"] + [source(cell) for cell in cells[2:]]
got = run_python(CALL, sources, what="the code cells of report.ipynb")
best = max(sales, key=sales.get)
wanted = {"best": best, "printed": f"Total: {sum(figures)}\nBest region: {best}\n"}
if got != wanted:
    fail(f"with sales = {sales}, the last cell should set best = {best!r} and print "
         f"'Best region: {best}'; got {got!r}")  # fmt: skip
print("OK: report.ipynb was tidied cell by cell")
