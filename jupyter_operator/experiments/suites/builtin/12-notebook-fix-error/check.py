"""weather.ipynb: every code cell runs, mean_temp is 16.0, the data is unchanged.

The code cells run in a child process (taskcheck.run_python), once as they are and once with
readings drawn for this run in the data cell (which must be unchanged); the values they leave
are judged here.
"""

import json
import random
from pathlib import Path

from taskcheck import fail, run_python

DATA = (
    'import csv\nimport io\n\nRAW = """city,temp_c\nOslo,4.5\nLisbon,17.0\n'
    'Cairo,26.5\n"""\nrows = list(csv.DictReader(io.StringIO(RAW)))'
)
CALL = '''
def main(sources):
    namespace, _ = run_cells(sources)
    return {"mean_temp": namespace.get("mean_temp"), "warmest": namespace.get("warmest")}
'''


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
rng = random.SystemRandom()
readings = {city: rng.randrange(-200, 450) / 10 for city in rng.sample(
    ["Oslo", "Lisbon", "Cairo", "Lima", "Perth", "Quito", "Riga"], 4)}  # fmt: skip
raw = "city,temp_c\n" + "".join(f"{city},{temp}\n" for city, temp in readings.items())
drawn = DATA.replace(DATA[DATA.index("city,") : DATA.index('"""\nrows')], raw)
if any(cell.get("cell_type") != "code" for cell in cells[1:]):
    fail("the cells data, mean and warmest should all be code cells")
for data_cell, mean, warmest, readings_are in [
    (DATA, 16.0, "Cairo", "the notebook's readings"),
    (drawn, sum(readings.values()) / len(readings), max(readings, key=readings.get),
     f"the readings {raw.splitlines()[1:]} in the data cell"),
]:  # fmt: skip
    got = run_python(CALL, [data_cell, source(cells[2]), source(cells[3])],
                     what="the code cells of weather.ipynb")  # fmt: skip
    if not isinstance(got, dict):
        fail(f"the code cells of weather.ipynb gave {got!r}")
    value = got.get("mean_temp")
    if not isinstance(value, (int, float)) or isinstance(value, bool) or abs(value - mean) > 1e-9:
        fail(f"with {readings_are}, mean_temp is {value!r}, expected {mean!r}")
    if got.get("warmest") != warmest:
        fail(f"with {readings_are}, warmest is {got.get('warmest')!r}, expected {warmest!r}")
print("OK: every code cell of weather.ipynb runs")
