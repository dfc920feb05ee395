"""Read actions: they run at once (policy permitting) and produce a result, never a change.

Output formats follow the spec and the reference app where models already know them
(``%6d: text`` numbering, ``[DIR] name`` listings), with the fixes of PROTOCOL.md.

Output is bounded twice: a line shown by ``fs.readSlice`` or ``fs.search`` is cut after
``MAX_LINE_CHARS`` characters with a visible marker, and all the reads of one reply together
return at most ``REPLY_OUTPUT_BUDGET`` bytes of details (``OutputBudget``); a read past it
answers ``ERR_OUTPUT_BUDGET`` instead.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..protocol import (
    Command,
    OperatorError,
    Result,
    all_styles,
    codes,
    interface_spec,
    read_too_large,
    resolve_style,
    style_for_language,
)
from ..workspace import (
    FileTooLarge,
    Workspace,
    decode_text,
    list_regions,
    read_region,
    search_lines,
    utf8_len,
)

#: A test for the paths a rule keeps out of a listing or a search (``Policy.hidden``).
Hidden = Callable[[str], bool] | None

READ_LIMIT = 200_000  # fs.read (spec)
LARGE_READ_LIMIT = 2_000_000  # fs.readSlice, fs.search, regions (spec)
MAX_LINE_CHARS = 2_000  # characters of one line shown by fs.readSlice and fs.search
REPLY_OUTPUT_BUDGET = 8 * 1024 * 1024  # UTF-8 bytes of details all reads of one reply return

#: What of a result's details a card shows (``DETAILS_SHOWN_LINES`` in carddetails.ts): the
#: model's results hold the whole text, so a front sends a read's content once, not again in
#: every item view.
DETAILS_SHOWN_LINES = 200
DETAILS_SHOWN_CHARS = 64_000


def shown_details(details: str, action: str | None) -> tuple[str, int]:
    """The part of ``details`` a card shows, and how many characters are left out.

    At most ``DETAILS_SHOWN_LINES`` lines and ``DETAILS_SHOWN_CHARS`` characters; an
    ``nb.readCells`` result is JSON the card parses whole (it is bounded by its cell count).
    """
    if action == "nb.readCells":
        return details, 0
    head = details.split("\n", DETAILS_SHOWN_LINES)
    kept = len(details) - len(head[-1]) if len(head) > DETAILS_SHOWN_LINES else len(details)
    kept = min(kept, DETAILS_SHOWN_CHARS)
    return details[:kept], len(details) - kept


class OutputBudget:
    """What the reads of one reply may still return, so a reply cannot amplify its size.

    Each result's details are charged when the read runs; a read that would go past the
    budget (or starts once it is spent) answers ``ERR_OUTPUT_BUDGET`` and returns nothing.
    """

    def __init__(self, limit: int = REPLY_OUTPUT_BUDGET) -> None:
        self.limit = limit
        self.used = 0

    def message(self, size: int | None = None) -> str:
        """Why a read does not fit (``size`` None: the budget is spent)."""
        what = "this read was not run" if size is None else f"this read ({size} bytes) is not shown"
        return (
            f"the reads of this reply already returned {self.used} of the {self.limit} bytes "
            f"allowed; {what}. Read less (fs.readSlice, fs.search), or read it in a later reply."
        )

    def refusal(self, id: str, size: int | None = None) -> Result:
        """The result of a read that does not fit (``size`` None: the budget is spent)."""
        return Result.failure(id, codes.ERR_OUTPUT_BUDGET, self.message(size))

    def reserve(self, size: int) -> None:
        """Take ``size`` bytes of what is left, before reading them (the other dialects'
        reads); raises ``OperatorError(ERR_OUTPUT_BUDGET)`` when they do not fit."""
        if self.used + size > self.limit:
            spent = self.used >= self.limit
            raise OperatorError(codes.ERR_OUTPUT_BUDGET, self.message(None if spent else size))
        self.used += size

    def charge(self, result: Result) -> Result:
        """``result`` when its details fit in what is left, else the refusal."""
        size = utf8_len(result.details) if result.details else 0
        if self.used + size > self.limit:
            return self.refusal(result.id, size)
        self.used += size
        return result


def clip_line(line: str, limit: int = MAX_LINE_CHARS) -> str:
    """``line`` cut after ``limit`` characters, with a marker saying how much was left out."""
    if len(line) <= limit:
        return line
    return f"{line[:limit]} [line cut: {len(line) - limit} more characters]"


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _read_text(ws: Workspace, path: str, limit: int, action: str) -> str:
    try:
        data = ws.read_bytes(path, limit=limit)
    except FileTooLarge as exc:
        if action == "fs.read":
            raise  # the spec's own wording is produced by run_read
        raise OperatorError(
            codes.ERR_FILE_TOO_LARGE, f"file too large for {action} ({exc.size} bytes)."
        ) from None
    return decode_text(data).text


def _lines(text: str) -> list[str]:
    """Lines without their terminators; no phantom line after a final newline."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def get_interface_spec(ws: Workspace, cmd: Command) -> Result:
    return Result(cmd.id, True, "Interface spec", interface_spec())


def get_comment_style(ws: Workspace, cmd: Command) -> Result:
    language = cmd.params.language
    if language:
        style = style_for_language(language)
        if style is None:
            raise OperatorError(codes.ERR_UNKNOWN_LANGUAGE, f"unknown language '{language}'")
        return Result(cmd.id, True, "Comment style", _json(style.to_json_dict()))
    styles = [s.to_json_dict() for s in all_styles()]
    return Result(cmd.id, True, "Comment style list", _json({"styles": styles}))


def _below(folder: str, name: str) -> str:
    folder = folder.replace("\\", "/").strip("/")
    return name if folder in ("", ".") else f"{folder}/{name}"


def list_dir(ws: Workspace, cmd: Command, hidden: Hidden = None) -> Result:
    entries = ws.list_dir(cmd.params.path)
    shown = [e for e in entries if hidden is None or not hidden(_below(cmd.params.path, e.name))]
    # Names arrive escaped by the workspace layer: one entry is always one line.
    lines = [f"[DIR] {e.name}" if e.is_dir else e.name for e in shown]
    summary = f"Listed {len(shown)} entries"
    if len(shown) < len(entries):
        summary += f" ({len(entries) - len(shown)} hidden by the workspace's rules)"
    return Result(cmd.id, True, summary, "\n".join(lines))


def read(ws: Workspace, cmd: Command) -> Result:
    try:
        text = _read_text(ws, cmd.params.path, READ_LIMIT, "fs.read")
    except FileTooLarge as exc:
        return read_too_large(cmd.id, exc.size)
    return Result(cmd.id, True, "Read file" if text else "Read file (empty)", text)


def read_slice(ws: Workspace, cmd: Command) -> Result:
    p = cmd.params
    lines = _lines(_read_text(ws, p.path, LARGE_READ_LIMIT, "fs.readSlice"))
    start, end = p.start, min(len(lines), p.start + p.lines - 1)
    if start > len(lines):
        header = (
            f"# {p.path}\n"
            f"# lines: past the end (start {start}; the file has {len(lines)} lines)\n"
        )
        return Result(cmd.id, True, f"Read slice (past the end: {len(lines)} lines)", header)
    body = "\n".join(f"{n:6d}: {clip_line(lines[n - 1])}" for n in range(start, end + 1))
    header = f"# {p.path}\n# lines {start}-{end} of {len(lines)}\n\n"
    return Result(cmd.id, True, f"Read slice ({start}-{end})", header + body)


def search(ws: Workspace, cmd: Command) -> Result:
    p = cmd.params
    if ws.stat(p.path).is_dir:
        raise OperatorError(codes.ERR_SEARCH_PATH_IS_DIR, "path is a directory; use fs.list.")
    text = _read_text(ws, p.path, LARGE_READ_LIMIT, "fs.search")
    matches, truncated = search_lines(text, p.query)
    flag = " (truncated)" if truncated else ""
    header = f"# search in {p.path}\n# query: {p.query}\n# matches: {len(matches)}{flag}\n\n"
    body = "\n".join(f"{n:6d}: {clip_line(line)}" for n, line in matches)
    return Result(cmd.id, True, f"Search found {len(matches)} matches", header + body)


def stat(ws: Workspace, cmd: Command) -> Result:
    info = ws.stat(cmd.params.path)
    details = {
        "path": cmd.params.path,
        "size": info.size,
        "isFile": info.is_file,
        "isDir": info.is_dir,
        "mtimeMs": info.mtime_ms,
        "ctimeMs": info.ctime_ms,
    }
    return Result(cmd.id, True, "Stat", _json(details))


def search_tree(ws: Workspace, cmd: Command, hidden: Hidden = None) -> Result:
    p = cmd.params
    found = ws.search_tree(p.path, p.query, hidden=hidden)
    flag = " (truncated)" if found.truncated_matches or found.truncated_files else ""
    scanned = f"# files scanned: {found.files_scanned}"
    if found.files_skipped:
        scanned += f" (skipped: {found.files_skipped})"
    if found.truncated_files:
        scanned += " (file limit reached)"
    if found.files_hidden:
        scanned += f" (hidden by the workspace's rules: {found.files_hidden})"
    header = (
        f"# searchTree in {p.path}\n# query: {p.query}\n"
        f"# matches: {len(found.matches)}{flag}\n{scanned}\n\n"
    )
    body = "\n".join(f"{path}:{n}: {line}" for path, n, line in found.matches)
    return Result(cmd.id, True, f"SearchTree found {len(found.matches)} matches", header + body)


def _region_text(ws: Workspace, cmd: Command) -> tuple[str, Any]:
    style = resolve_style(cmd.params.style, cmd.params.path)
    return _read_text(ws, cmd.params.path, LARGE_READ_LIMIT, cmd.action), style


def list_regions_action(ws: Workspace, cmd: Command) -> Result:
    text, style = _region_text(ws, cmd)
    regions = [region.to_dict() for region in list_regions(text, style)]
    return Result(cmd.id, True, f"Listed {len(regions)} regions", _json({"regions": regions}))


def read_region_action(ws: Workspace, cmd: Command) -> Result:
    text, style = _region_text(ws, cmd)
    content = read_region(text, style, cmd.params.marker_id)
    return Result(cmd.id, True, f"Read region {cmd.params.marker_id}", content)


def _read_cells(ws: Workspace, cmd: Command, kernel: Any = None) -> Result:
    from .cell_actions import read_cells  # the cell actions load nbformat's writer: on first use

    return read_cells(ws, cmd, kernel)


READERS: dict[str, Callable[[Workspace, Command], Result]] = {
    "operator.getInterfaceSpec": get_interface_spec,
    "operator.getCommentStyle": get_comment_style,
    "fs.list": list_dir,
    "fs.read": read,
    "fs.readSlice": read_slice,
    "fs.search": search,
    "fs.stat": stat,
    "fs.searchTree": search_tree,
    "fs.listRegions": list_regions_action,
    "fs.readRegion": read_region_action,
    # A host extension: only scanned when the host enables it (Operator(extensions=("nb",))).
    "nb.readCells": _read_cells,
}


#: Reads that walk below the path they name, and the actions whose rules hide a path there.
WALKS: dict[str, tuple[str, ...]] = {
    "fs.list": ("fs.list",),
    "fs.searchTree": ("fs.searchTree", "fs.read"),
}


def run_read(ws: Workspace, cmd: Command, budget: OutputBudget | None = None, *,
             extensions: tuple[str, ...] = (), policy: Any = None,
             kernel: Any = None) -> Result:  # fmt: skip
    """Run one read action; command faults become ``ok: false`` results with their code.

    With a ``budget``, the read is charged to it (or refused with ``ERR_OUTPUT_BUDGET``).
    ``extensions`` are the host's enabled extensions (the spec's appendix describes them).
    With a ``policy``, a listing or search skips every path below its folder that a rule
    denies (``Policy.hidden``). ``kernel(notebook, kernel_name)`` describes a notebook's
    kernel for ``nb.readCells``.
    """
    if budget is not None and budget.used >= budget.limit:
        return budget.refusal(cmd.id)
    try:
        if cmd.action in WALKS:
            hidden = policy.hidden(*WALKS[cmd.action]) if policy is not None else None
            result = READERS[cmd.action](ws, cmd, hidden)  # type: ignore[call-arg]
        elif cmd.action == "nb.readCells" and kernel is not None:
            result = READERS[cmd.action](ws, cmd, kernel)  # type: ignore[call-arg]
        elif cmd.action == "operator.getInterfaceSpec":
            result = Result(cmd.id, True, "Interface spec", interface_spec(actions=extensions))
        else:
            result = READERS[cmd.action](ws, cmd)
    except OperatorError as exc:
        return Result.of_error(cmd.id, exc)
    return budget.charge(result) if budget is not None else result
