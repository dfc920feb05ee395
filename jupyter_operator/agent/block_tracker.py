"""Follow ``OPERATOR_CMD`` blocks in a reply while it streams in (pure, no I/O).

The engine scans the whole reply once it has ended; this tracker only tells the displays when
a block has become complete (so its card can appear at once) and, at the end, whether the
reply stopped inside an open block (an endpoint's length limit cut it off). Marker lines are
recognised as the scanner does: the token at the start of a line, after spaces or tabs.
"""

from __future__ import annotations

from dataclasses import dataclass

_START = "OPERATOR_CMD"
_END = "END_OPERATOR_CMD"
#: A block is only collected for display up to this many characters (the scanner refuses
#: larger blocks anyway); beyond it the tracker still follows the markers.
MAX_BLOCK_CHARS = 1_100_000


@dataclass(frozen=True)
class Block:
    """A complete block: its text (markers included) and where it started in the reply."""

    index: int
    start: int
    text: str


class BlockTracker:
    """Feed text deltas; get the blocks completed by each delta.

    Linear in the reply: every character is looked at once when its line completes.
    """

    def __init__(self) -> None:
        self._partial: list[str] = []  # the current, unfinished line
        self._offset = 0  # characters of the reply seen so far
        self._line_start = 0  # offset of the current line
        self._block: list[str] | None = None
        self._block_chars = 0
        self._block_start = 0
        self.count = 0

    @property
    def open_block_start(self) -> int | None:
        """Offset of the block still open (no END marker yet), or None."""
        if self._block is not None:
            return self._block_start
        if self._marker("".join(self._partial)) == _START:  # a START line with no newline yet
            return self._line_start
        return None

    def feed(self, delta: str) -> list[Block]:
        """Take the next piece of the reply; return the blocks it completed, in order."""
        done: list[Block] = []
        pos = 0
        while True:
            newline = delta.find("\n", pos)
            if newline < 0:
                self._partial.append(delta[pos:])
                break
            self._partial.append(delta[pos : newline + 1])
            line = "".join(self._partial)
            self._partial = []
            block = self._line(line)
            if block is not None:
                done.append(block)
            self._line_start += len(line)
            pos = newline + 1
        self._offset += len(delta)
        return done

    def finish(self) -> list[Block]:
        """The reply has ended: a last line without a newline may close a block."""
        line = "".join(self._partial)
        self._partial = []
        if not line:
            return []
        block = self._line(line)  # a START here leaves the block open
        self._line_start += len(line)
        return [block] if block is not None else []

    @staticmethod
    def _marker(line: str) -> str | None:
        lead = line.lstrip(" \t")
        if lead.startswith(_END):
            return _END
        if lead.startswith(_START):
            return _START
        return None

    def _line(self, line: str) -> Block | None:
        kind = self._marker(line)
        if kind == _START:  # a START inside a block opens a new one (the scanner's rule)
            self._block, self._block_chars = [line], len(line)
            self._block_start = self._line_start
            return None
        if self._block is None:
            return None
        if self._block_chars < MAX_BLOCK_CHARS:
            self._block.append(line)
            self._block_chars += len(line)
        if kind != _END:
            return None
        block = Block(self.count, self._block_start, "".join(self._block))
        self.count += 1
        self._block = None
        return block


class ProseFilter:
    """Feed text deltas; get the part of each that is prose (outside command blocks).

    Displays show prose as text and blocks as cards. A line is shown as it arrives once it can
    no longer become a marker line, so the first words of a reply appear at once; only the
    undecided start of a line is held back, so a very long line costs linear time.
    """

    def __init__(self) -> None:
        self._head = ""  # the start of the current line while it could still be a marker
        self._line: str | None = None  # "prose" or "hidden" once the current line is decided
        self._inside = False

    def _decide(self) -> str | None:
        """Classify the current line from its head, or None while it is still undecided."""
        lead = self._head.lstrip(" \t")
        if not lead:
            return None
        if lead.startswith((_START, _END)):
            return "hidden"
        if _START.startswith(lead) or _END.startswith(lead):
            return None
        return "hidden" if self._inside else "prose"

    def feed(self, delta: str) -> str:
        """The prose in ``delta`` (possibly empty)."""
        out: list[str] = []
        pos = 0
        while pos < len(delta):
            newline = delta.find("\n", pos)
            end = len(delta) if newline < 0 else newline + 1
            piece = delta[pos:end]
            if self._line is None:
                self._head += piece
                self._line = self._decide()
                if self._line == "prose":
                    out.append(self._head)
            elif self._line == "prose":
                out.append(piece)
            if newline >= 0:  # the line is complete: a marker changes the state
                kind = BlockTracker._marker(self._head)
                if kind == _START:
                    self._inside = True
                elif kind == _END and self._inside:
                    self._inside = False
                elif self._line is None and not self._inside:  # a short line like "OP\n"
                    out.append(self._head)
                self._head, self._line = "", None
            pos = end
        return "".join(out)
