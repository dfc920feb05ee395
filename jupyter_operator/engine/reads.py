"""Read actions: they run at once (policy permitting) and produce a result, never a change.

Output formats follow the spec and the reference app where models already know them
(``%6d: text`` numbering, ``[DIR] name`` listings), with the fixes of PROTOCOL.md.
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
)

READ_LIMIT = 200_000  # fs.read (spec)
LARGE_READ_LIMIT = 2_000_000  # fs.readSlice, fs.search, regions (spec)


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


def list_dir(ws: Workspace, cmd: Command) -> Result:
    entries = ws.list_dir(cmd.params.path)
    # Names arrive escaped by the workspace layer: one entry is always one line.
    lines = [f"[DIR] {e.name}" if e.is_dir else e.name for e in entries]
    return Result(cmd.id, True, f"Listed {len(entries)} entries", "\n".join(lines))


def read(ws: Workspace, cmd: Command) -> Result:
    try:
        text = _read_text(ws, cmd.params.path, READ_LIMIT, "fs.read")
    except FileTooLarge as exc:
        return Result(
            cmd.id, False, f"File too large for fs.read ({exc.size} bytes). Use fs.readSlice."
        )
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
    body = "\n".join(f"{n:6d}: {lines[n - 1]}" for n in range(start, end + 1))
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
    body = "\n".join(f"{n:6d}: {line}" for n, line in matches)
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


def search_tree(ws: Workspace, cmd: Command) -> Result:
    p = cmd.params
    found = ws.search_tree(p.path, p.query)
    flag = " (truncated)" if found.truncated_matches or found.truncated_files else ""
    scanned = f"# files scanned: {found.files_scanned}"
    if found.files_skipped:
        scanned += f" (skipped: {found.files_skipped})"
    if found.truncated_files:
        scanned += " (file limit reached)"
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
}


def run_read(ws: Workspace, cmd: Command) -> Result:
    """Run one read action; command faults become ``ok: false`` results with their code."""
    try:
        return READERS[cmd.action](ws, cmd)
    except OperatorError as exc:
        return Result(cmd.id, False, exc.summary)
