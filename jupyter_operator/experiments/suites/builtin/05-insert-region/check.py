"""Point has a __repr__ in the region point-repr, placed after __init__; nothing else changed."""

import importlib.util
import sys
from pathlib import Path
from typing import NoReturn

sys.dont_write_bytecode = True

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


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


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
spec = importlib.util.spec_from_file_location("geometry", path)
module = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(module)
    point = module.Point(1, 2.5)
    shown = repr(point)
    distance_ok = module.Point(0, 0).distance_to(module.Point(3, 4)) == 5.0
except Exception as exc:
    fail(f"using geometry.Point raised {type(exc).__name__}: {exc}")
if shown != "Point(x=1, y=2.5)":
    fail(f"repr(Point(1, 2.5)) is {shown!r}, expected 'Point(x=1, y=2.5)'")
if not distance_ok:
    fail("Point.distance_to no longer works")
print("OK: Point.__repr__ is in the region point-repr")
