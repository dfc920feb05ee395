"""The loop's guard against going round in circles (learned from agent practice)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine import DecidableRun

#: The same failing command (action, path, code) this many turns in a row stops the run.
REPEAT_LIMIT = 3

Key = tuple["str | None", "str | None", "str | None"]


#: What a change that changes nothing counts as (its result is ok: "No change: ...").
NO_CHANGE = "no change"


class RepeatGuard:
    """Counts, per (action, path, error code), the consecutive turns in which it failed; the
    same change that changes nothing (byte-identical to the file) counts as a failure too, and
    so does a reply identical to the one before.

    A person's rejection is a decision, not a failure, and is never counted.
    """

    def __init__(self, limit: int = REPEAT_LIMIT) -> None:
        self.limit = limit
        self._streaks: dict[Key, int] = {}
        self._last_reply: str | None = None
        self._same_replies = 1

    def same_reply(self, reply: str) -> str | None:
        """Fold in one turn's reply; the message to stop with when the model sent the same
        reply ``limit`` turns in a row (whatever came of it)."""
        same = reply == self._last_reply
        self._same_replies = self._same_replies + 1 if same else 1
        self._last_reply = reply
        if self._same_replies >= self.limit:
            return f"Stopped: the model sent the same reply {self.limit} turns in a row."
        return None

    def check(self, run: DecidableRun) -> str | None:
        """Fold in one turn's run; the message to stop with when a streak reached the limit."""
        failing = {
            (item.action, item.path, item.error_code)
            for item in run.items
            if item.result is not None and not item.result.ok and item.error_code != "ERR_REJECTED"
        } | {
            (item.action, item.path, NO_CHANGE)
            for item in run.items
            if item.kind == "mutation" and item.result is not None and item.result.ok
            and item.result.summary.startswith("No change")
        }  # fmt: skip
        self._streaks = {key: self._streaks.get(key, 0) + 1 for key in failing}
        for (action, path, code), count in self._streaks.items():
            if count >= self.limit:
                what = " ".join(str(p) for p in (action or "an invalid command", path) if p)
                if code == NO_CHANGE:
                    return (f"Stopped: the same change ({what}) changed nothing "
                            f"{self.limit} turns in a row.")  # fmt: skip
                return (
                    f"Stopped: the same command ({what}) failed with {code or 'an error'} "
                    f"{self.limit} turns in a row."
                )
        return None
