"""Point has a __repr__ in the region point-repr, placed after __init__; nothing else changed.

Point runs in a child process (taskcheck.run_python), with coordinates drawn for this run.
"""

import random
from pathlib import Path

from taskcheck import fail, run_python, same

ORIGINAL = '''"""Plane geometry helpers."""

import math


class Point:
    """A point in the plane."""

    def __init__(self, x: float, y: float) -> None:
        self.x = x
        self.y = y

    def distance_to(self, other: "Point") -> float:
        """The straight-line distance to ``other``."""
        return math.hypot(self.x - other.x, self.y - other.y)
'''
BEGIN, END = "# OPERATOR_BEGIN point-repr", "# OPERATOR_END point-repr"

CALL = '''
def main(points):
    Point = load("geometry.py").Point
    shown = [repr(Point(x, y)) for x, y in points]
    return {"repr": shown,
            "distance": Point(0, 0).distance_to(Point(3, 4))}
'''


path = Path("geometry.py")
if not path.is_file():
    fail("geometry.py is missing")
lines = path.read_text(encoding="utf-8").splitlines()
stripped = [line.strip() for line in lines]
if stripped.count(BEGIN) != 1 or stripped.count(END) != 1:
    fail(f"expected exactly one '{BEGIN}' and one '{END}' line")
begin, end = stripped.index(BEGIN), stripped.index(END)
if begin > end:
    fail("the region's end marker comes before its begin marker")
region = "\n".join(lines[begin + 1 : end])
if "def __repr__" not in region:
    fail("the region point-repr does not hold the __repr__ method")
outside = [line for line in lines[:begin] + lines[end + 1 :] if line.strip()]
if outside != [line for line in ORIGINAL.splitlines() if line.strip()]:
    fail("lines outside the region changed (only the new region should be added)")
init = stripped.index("self.y = y")
distance = next(i for i, line in enumerate(stripped) if line.startswith("def distance_to"))
if not init < begin < end < distance:
    fail("the region is not between __init__ and distance_to")
rng = random.SystemRandom()
points = [[1, 2.5], [rng.randrange(-99, 99), rng.randrange(-400, 400) / 4]]
got = run_python(CALL, points, what="geometry.Point")
wanted = {"repr": [f"Point(x={x!r}, y={y!r})" for x, y in points], "distance": 5.0}
if not isinstance(got, dict) or not same(got.get("repr"), wanted["repr"]):
    shown = got.get("repr") if isinstance(got, dict) else got
    fail(f"repr(Point(x, y)) of {points} gave {shown!r}, expected {wanted['repr']!r}")
if not same(got.get("distance"), 5.0):
    fail(f"Point(0, 0).distance_to(Point(3, 4)) is {got.get('distance')!r}, expected 5.0")
print("OK: Point.__repr__ is in the region point-repr")
