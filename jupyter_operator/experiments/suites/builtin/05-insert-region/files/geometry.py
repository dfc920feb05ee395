"""Plane geometry helpers."""

import math


class Point:
    """A point in the plane."""

    def __init__(self, x: float, y: float) -> None:
        self.x = x
        self.y = y

    def distance_to(self, other: "Point") -> float:
        """The straight-line distance to ``other``."""
        return math.hypot(self.x - other.x, self.y - other.y)
