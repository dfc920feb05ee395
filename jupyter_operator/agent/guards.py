"""The loop's guard against going round in circles (learned from agent practice)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine import Run

#: The same failing command (action, path, code) this many turns in a row stops the run.
REPEAT_LIMIT = 3

Key = tuple["str | None", "str | None", "str | None"]


class RepeatGuard:
    """Counts, per (action, path, error code), the consecutive turns in which it failed.

    A person's rejection is a decision, not a failure, and is never counted.
    """

    def __init__(self, limit: int = REPEAT_LIMIT) -> None:
        self.limit = limit
        self._streaks: dict[Key, int] = {}

    def check(self, run: Run) -> str | None:
        """Fold in one turn's run; the message to stop with when a streak reached the limit."""
        failing = {
            (item.action, item.path, item.error_code)
            for item in run.items
            if item.result is not None and not item.result.ok and item.error_code != "ERR_REJECTED"
        }
        self._streaks = {key: self._streaks.get(key, 0) + 1 for key in failing}
        for (action, path, code), count in self._streaks.items():
            if count >= self.limit:
                what = " ".join(str(p) for p in (action or "an invalid command", path) if p)
                return (
                    f"Stopped: the same command ({what}) failed with {code or 'an error'} "
                    f"{self.limit} turns in a row."
                )
        return None
