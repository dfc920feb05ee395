"""Size budgets: how large a planned file may grow, checked before it grows.

A mutation is planned in memory before anyone approves it, so its size must be bounded by
what a person could review, whatever the reply asks for: three chained ``replaceAll`` edits in
a 3 KB reply could otherwise plan hundreds of megabytes. Transforms that can multiply the text
(``replaceAll``) check the running size *before* building the larger string.
"""

from __future__ import annotations

from jupyter_operator.protocol import OperatorError, codes

#: The largest file (UTF-8 bytes, BOM included) a mutation may plan: 16 MiB, the same as the
#: largest file a mutation is planned over.
MAX_PLANNED_BYTES = 16 * 1024 * 1024


def utf8_len(text: str) -> int:
    """The UTF-8 size of ``text`` (lone surrogates counted as three bytes, as encoded)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def too_large(size: int, limit: int) -> OperatorError:
    """``ERR_RESULT_TOO_LARGE`` for a planned file of ``size`` bytes over ``limit``."""
    return OperatorError(
        codes.ERR_RESULT_TOO_LARGE,
        f"the change would make the file at least {size} bytes, over the {limit}-byte limit; "
        "nothing was planned. Make smaller changes.",
    )


def check_size(size: int, limit: int = MAX_PLANNED_BYTES) -> None:
    """Raise ``ERR_RESULT_TOO_LARGE`` when a planned size is over ``limit``."""
    if size > limit:
        raise too_large(size, limit)


class SizeBudget:
    """The running size of a text being transformed step by step, kept under ``limit``."""

    def __init__(self, text: str, limit: int = MAX_PLANNED_BYTES) -> None:
        self.limit = limit
        self.size = utf8_len(text)
        check_size(self.size, limit)

    def grow(self, delta: int) -> None:
        """Account for a step that changes the size by ``delta`` bytes, before it is taken."""
        check_size(self.size + delta, self.limit)
        self.size += delta
