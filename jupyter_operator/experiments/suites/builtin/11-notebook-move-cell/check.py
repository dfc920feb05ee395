"""convert.ipynb: the constants cell comes right after the introduction, all cells run.

The code cells run in a child process (taskcheck.run_python); the list they compute is judged
here.
"""

import json
from pathlib import Path

from taskcheck import fail, run_python, same

SOURCES = {
    "intro": "# Temperature conversion\n\nConverts a few Celsius readings to Fahrenheit.",
    "constants": "FACTOR = 9 / 5\nOFFSET = 32",
    "convert": "def to_fahrenheit(celsius):\n    return celsius * FACTOR + OFFSET",
    "table": "readings = [-5, 0, 21.5, 37]\n"
             "converted = [round(to_fahrenheit(c), 1) for c in readings]\n"
             "print(converted)",
}  # fmt: skip
CALL = '''
def main(sources):
    namespace, _ = run_cells(sources)
    return namespace.get("converted")
'''


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
sources = [source(cell) for cell in cells if cell["cell_type"] == "code"]
converted = run_python(CALL, sources, what="the code cells of convert.ipynb, top to bottom")
if not same(converted, [23.0, 32.0, 70.7, 98.6]):
    fail(f"converted is {converted!r}, expected [23.0, 32.0, 70.7, 98.6]")
print("OK: the constants cell moved and the notebook runs top to bottom")
