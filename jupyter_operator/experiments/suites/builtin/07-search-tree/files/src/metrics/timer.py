"""A context manager that measures elapsed time."""

import time


class Timer:
    """``with Timer() as t: ...`` then ``t.elapsed`` is the time in seconds."""

    def __init__(self) -> None:
        self.elapsed = 0.0
        self._start = 0.0

    def __enter__(self) -> "Timer":
        self._start = time.clock()
        return self

    def __exit__(self, *exc: object) -> None:
        self.elapsed = time.clock() - self._start
