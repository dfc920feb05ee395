"""Context by mention: files and cells the person names with ``@`` in the Ask box.

The panel completes ``@`` from :func:`mentionable` (the workspace's files, walked through the
jail: no links followed, protected paths and what a rule denies ``fs.read`` left out) and sends
the mentions it kept with the task. A file is read here, through the same jail and rules as a
model's ``fs.read`` (the browser names a path, it never reads one); a cell comes from the open
notebook as the person sees it (like "Fix with Operator"), its outputs without colour codes.
Everything attached shares one budget (``ATTACH_BUDGET``): a text past its share is cut in the
middle and the cut is said, to the model and on the request's card.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..engine.reads import LARGE_READ_LIMIT, READ_LIMIT
from ..execution.report import outputs_text
from ..protocol import OperatorError, codes
from ..workspace import FileTooLarge, decode_text
from ..workspace.paths import display_path, parse_path
from ..workspace.tree_search import SKIP_DIRS
from .errors import ApiError
from .fix_error import CELL_KEEP, fenced_block, fix_notebook_path

if TYPE_CHECKING:
    from ..engine.policy import Policy
    from ..workspace import Workspace
    from .bodies import CellMention, FileMention

#: Characters of all the attachments of one request together: what one ``fs.read`` returns.
ATTACH_BUDGET = READ_LIMIT
#: Paths one completion lists, and entries the walk looks at before it stops.
LIST_LIMIT = 200
WALK_LIMIT = 5_000
WALK_DEPTH = 8


@dataclass(frozen=True)
class Attachment:
    """One mention as the model gets it (``text``) and as the card lists it."""

    kind: str  # "file" or "cell"
    label: str
    text: str
    chars: int  # characters of the original text (the file's, or the cell's with its outputs)
    cut: bool

    def describe(self) -> dict[str, Any]:
        """What the request's card shows (never the text)."""
        return {"kind": self.kind, "label": self.label, "chars": self.chars, "cut": self.cut}


def mentionable(ws: Workspace, policy: Policy | None, query: str = "") -> dict[str, Any]:
    """``{"paths", "truncated"}``: files below the root whose path contains ``query``
    (case-insensitive), breadth first, at most ``LIST_LIMIT``.

    The walk goes through the jail (``list_dir``); links are never entered, version-control and
    cache folders are skipped, and so are protected paths and paths a rule denies to ``fs.read``.
    """
    denied = policy.hidden("fs.read") if policy is not None else None
    needle = query.casefold()
    found: list[str] = []
    seen = 0
    folders: deque[tuple[str, int]] = deque([("", 0)])
    while folders:
        folder, depth = folders.popleft()
        try:
            entries = ws.list_dir(folder or ".")
        except OperatorError:
            continue  # a folder that vanished or cannot be listed: nothing to offer from it
        for entry in entries:
            seen += 1
            if seen > WALK_LIMIT:
                return {"paths": found, "truncated": True}
            path = f"{folder}/{entry.name}" if folder else entry.name
            try:
                if ws.is_protected(path) or (denied is not None and denied(path)):
                    continue
            except OperatorError:
                continue  # a name the lexical check refuses (escaped control characters)
            if entry.is_dir:
                if entry.name not in SKIP_DIRS and depth + 1 < WALK_DEPTH:
                    folders.append((path, depth + 1))
                continue
            if needle in path.casefold():
                found.append(path)
                if len(found) >= LIST_LIMIT:
                    return {"paths": found, "truncated": True}
    return {"paths": found, "truncated": False}


def _refused(exc: OperatorError, path: str) -> ApiError:
    """A file mention the jail or the rules refuse: 400 with the engine's code."""
    return ApiError(400, exc.code, f"attachments: {path}: {exc.message}")


def read_file_mention(ws: Workspace, policy: Policy | None, path: str) -> tuple[str, str]:
    """The workspace path and UTF-8 text of a mentioned file, read through the jail.

    ApiError 400 with the engine's code for a path that leaves the workspace (``..``, an
    absolute path, a link: ``ERR_PATH_ESCAPE``), a protected path (``ERR_PROTECTED_PATH``), a
    path a rule denies to ``fs.read`` (``ERR_POLICY_DENIED``), a folder, a binary file or one
    over ``LARGE_READ_LIMIT`` bytes (``ERR_FILE_TOO_LARGE``).
    """
    try:
        shown = display_path(parse_path(path))
        if policy is not None and policy.verdict("fs.read", shown).verdict == "deny":
            raise OperatorError(codes.ERR_POLICY_DENIED, "a rule of this workspace denies it")
        data = ws.read_bytes(shown, limit=LARGE_READ_LIMIT)
        return shown, decode_text(data, shown).text
    except FileTooLarge as exc:
        message = f"the file has {exc.size} bytes, over {LARGE_READ_LIMIT}: attach a smaller one"
        raise ApiError(400, codes.ERR_FILE_TOO_LARGE, f"attachments: {path}: {message}") from None
    except OperatorError as exc:
        raise _refused(exc, path) from None


def _cut(text: str, room: int) -> tuple[str, bool]:
    body = fenced_block(text, max(room, 200))
    return body, len(text) > max(room, 200)


def attach(
    ws: Workspace,
    policy: Policy | None,
    mentions: list[FileMention | CellMention],
    budget: int = ATTACH_BUDGET,
) -> list[Attachment]:
    """The mentions as attachments, in order, sharing ``budget`` characters.

    A file or cell past what is left of the budget is cut in the middle (the cut said in the
    text and by ``cut``); every mention is attached, the late ones shorter.
    """
    out: list[Attachment] = []
    left = budget
    for index, mention in enumerate(mentions):
        share = left // max(1, len(mentions) - index)
        if mention.kind == "file":
            path, text = read_file_mention(ws, policy, mention.path)
            body, cut = _cut(text, share)
            out.append(Attachment("file", path, f"The file {path}:\n{body}", len(text), cut))
        else:
            notebook = fix_notebook_path(mention.notebook)
            shown, _ = outputs_text(mention.outputs)
            whole = mention.source + (shown or "")
            room = min(share, 2 * CELL_KEEP)
            source, cut_source = _cut(mention.source, room * 2 // 3 if shown else room)
            label = f"{notebook} cell {mention.index}"
            parts = [f"The {mention.cell_type} cell {mention.id or '-'} (index {mention.index}) "
                     f"of {notebook}:", source]  # fmt: skip
            cut_output = False
            if shown:
                output, cut_output = _cut(shown, room // 3)
                parts += ["Its output:", output]
            text = "\n".join(parts)
            out.append(Attachment("cell", label, text, len(whole), cut_source or cut_output))
        left -= len(out[-1].text)
    return out


def task_with(task: str, attachments: list[Attachment]) -> str:
    """The person's task followed by what they attached (said as theirs, not the model's)."""
    if not attachments:
        return task
    parts = [task, "", "The person attached (mentioned with @):"]
    for item in attachments:
        parts += ["", item.text]
        if item.cut:
            parts.append(f"({item.label} was cut to fit: read the rest if you need it.)")
    return "\n".join(parts)
