"""Small statistics over lists of numbers."""


def total(values: list[float]) -> float:
    """The total of ``values`` (0 for an empty list)."""
    running_total = 0.0
    for value in values:
        running_total += value
    return running_total


def mean(values: list[float]) -> float:
    """The arithmetic mean; raises ValueError for an empty list."""
    if not values:
        raise ValueError("mean of an empty list")
    return total(values) / len(values)
