"""Tool calls in a model's own format as items of a run: translated, shown, the person's call.

A model trained on its family's tool-call syntax often writes ``<tool_call>{...}</tool_call>``
(or one of eight other formats, ``protocol.leaks``) instead of an ``OPERATOR_CMD`` block. Such
a call is never run as it is. Where its intent is clear it is translated to the block it
meant, and that block is planned like any other (a diff for a change, a card, undo), except
that no rule decides it: the translation is ours, so a person approves it. The model's result
says it used its own format either way: approved, the real result with a note; rejected (or
left to the model), ``ERR_FOREIGN_TOOL_CALL`` with the block it meant in ``details_b64``.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..protocol import MAX_SCAN_CHARS, Command, Result, codes, scan
from ..protocol.leaks import find_leaks, translate
from .items import Foreign, Item
from .rules import Verdict

#: Why a translated command waits for a person whatever the rules say (cards show it).
ASKS = "translation: no rule approves a translated tool call"

Entry = tuple[Command | None, Foreign]


def entries(text: str, taken: set[str], extensions: Iterable[str]) -> list[Entry]:
    """The calls in ``text`` in a model's own format, each with the command it was translated
    to (None when the intent is not clear). Ids are ``tool-call-N``, never one in ``taken``
    (which gains them)."""
    found: list[Entry] = []
    n = 0
    for call in find_leaks(text[-MAX_SCAN_CHARS:]):  # the window the scan reads, no more
        n += 1
        while f"tool-call-{n}" in taken:
            n += 1
        id = f"tool-call-{n}"
        taken.add(id)
        block = translate(call, id)
        command = None
        if block is not None:
            scanned = scan(block, extensions=tuple(extensions)).items
            command = scanned[0] if scanned and isinstance(scanned[0], Command) else None
            block = block if command is not None else None
        found.append((command, Foreign(id, call.family, call.name, block)))
    return found


def verdict(found: Verdict) -> Verdict:
    """A rule may refuse a translated command, never approve it."""
    return Verdict("ask", None, ASKS) if found.verdict == "auto" else found


def _told(foreign: Foreign) -> str:
    return (f"you used your own tool-call format ({foreign.family_name}: {foreign.name}); "
            "tools are called only with OPERATOR_CMD blocks")  # fmt: skip


def untranslated(index: int, foreign: Foreign) -> Item:
    """The item of a call whose intent is not clear: an error that asks for a real block."""
    message = (f"{_told(foreign)}; nothing was run. Rewrite the call as an OPERATOR_CMD block "
               "(see the spec).")  # fmt: skip
    result = Result.failure(foreign.id, codes.ERR_FOREIGN_TOOL_CALL, message)
    return Item(index, foreign.id, None, None, 0, "error", "error", result.summary, result,
                result.code, foreign=foreign)  # fmt: skip


def rejected(item: Item, reason_note: str) -> Result:
    """A translated command the person rejected (or left to the model): the block it meant."""
    assert item.foreign is not None
    message = (f"{_told(item.foreign)}; nothing was run. The block you meant is in details_b64;"
               f" the person did not approve its translation.{reason_note}")
    return Result.failure(item.id, codes.ERR_FOREIGN_TOOL_CALL, message, item.foreign.block)


def note(item: Item) -> str:
    """Added to the result of an approved translation: what happened, and the format to use."""
    assert item.foreign is not None
    return (f" (note: {item.id} was a tool call in your own format ({item.foreign.family_name}:"
            f" {item.foreign.name}); the person approved its translation to an OPERATOR_CMD "
            "block. Send OPERATOR_CMD blocks.)")  # fmt: skip
