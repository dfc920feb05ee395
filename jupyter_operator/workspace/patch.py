"""``fs.patch``: a strict unified-diff engine of our own (security rule D6).

No fuzz, no offsets, never ``patch`` or ``git``. Accepted input:

- optional ``diff --git ...`` / ``index ...`` lines, then optional ``--- a/<path>`` and
  ``+++ b/<path>`` headers, which must name the target (``a/``/``b/`` prefixes and a trailing
  tab-separated timestamp allowed);
- one or more hunks ``@@ -<old>[,<n>] +<new>[,<m>] @@``, in order and not overlapping. The body
  is read by the counts, so removed or added lines that begin with ``--``/``++`` are fine; a
  completely empty body line is an empty context line (editors strip the trailing space);
- ``\\ No newline at end of file`` after a line, honoured on both sides;
- a final newline at the end of the patch, and blank lines after the last hunk.

A ``-N,0`` hunk inserts after line N. Lines are compared without their terminator; context and
unchanged lines keep their own bytes and added lines take the file's own newline. When a hunk
reaches the end of a file that lacks a final newline and the patch says nothing about it, the
file keeps lacking it.

Errors: ``ERR_INVALID_PATCH`` for anything malformed (bad header, wrong counts, several files,
mode/rename/binary sections, no hunks); ``ERR_PATCH_DOES_NOT_APPLY`` when the file's lines do
not match, naming the hunk and the line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from jupyter_operator.protocol import OperatorError, codes

from .budget import MAX_PLANNED_BYTES, SizeBudget, utf8_len
from .text import newline_of, split_lines

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(?: .*)?$")
_UNSUPPORTED = (
    "old mode", "new mode", "deleted file mode", "new file mode", "rename ", "copy ",
    "similarity index", "dissimilarity index", "Binary files", "GIT binary patch",
)  # fmt: skip
_NO_NEWLINE = "\\"


@dataclass
class _Hunk:
    number: int
    old_start: int
    ops: list[tuple[str, str]] = field(default_factory=list)  # (" " | "-" | "+", line text)
    old_no_eol: bool = False
    new_no_eol: bool = False

    @property
    def old(self) -> list[str]:
        return [t for tag, t in self.ops if tag != "+"]


def _invalid(message: str) -> OperatorError:
    return OperatorError(codes.ERR_INVALID_PATCH, message)


def _show(line: str, limit: int = 60) -> str:
    return repr(line if len(line) <= limit else line[:limit] + "...")


def _header_name(value: str) -> str:
    name = value.split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"') and len(name) > 1:
        name = name[1:-1]
    return name


def _norm(p: str) -> str:
    p = p.replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p


def _names_target(name: str, path: str) -> bool:
    target = _norm(path)
    return _norm(name) == target or (name[:2] in ("a/", "b/") and _norm(name[2:]) == target)


def parse_patch(patch: str, path: str) -> list[_Hunk]:
    """Parse the patch text into hunks, checking its structure and the headers."""
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in patch.split("\n")]
    while lines and lines[-1] == "":
        lines.pop()  # the patch's own final newline, and blank lines after the last hunk
    i = 0
    n = len(lines)
    while i < n and lines[i] == "":
        i += 1
    if i < n and lines[i].startswith("diff "):
        i += 1
        while i < n and lines[i].startswith("index "):
            i += 1
    if i < n and lines[i].startswith(_UNSUPPORTED):
        raise _invalid("mode, rename, copy and binary sections are not supported")
    if i < n and lines[i].startswith("--- "):
        if i + 1 >= n or not lines[i + 1].startswith("+++ "):
            raise _invalid("a '--- ' header must be followed by a '+++ ' header")
        for hdr in (lines[i][4:], lines[i + 1][4:]):
            name = _header_name(hdr)
            if not _names_target(name, path):
                raise _invalid(f"the headers must name {path}, not {_show(name)}")
        i += 2
    if i >= n or not lines[i].startswith("@@"):
        if i < n:
            raise _invalid(f"expected a hunk header '@@ -a,b +c,d @@', found {_show(lines[i])}")
        raise _invalid("no hunks (@@ -a,b +c,d @@) found")
    hunks: list[_Hunk] = []
    while i < n:
        line = lines[i]
        if not line.startswith("@@"):
            if line.startswith(("--- ", "diff ")):
                raise _invalid("the patch changes several files; send one fs.patch per file")
            raise _invalid(f"unexpected line after hunk {len(hunks)}: {_show(line)}")
        m = _HUNK.match(line)
        number = len(hunks) + 1
        if not m:
            raise _invalid(f"hunk {number}: malformed header {_show(line)}")
        old_start = int(m.group(1))
        old_count = int(m.group(2)) if m.group(2) is not None else 1
        new_count = int(m.group(4)) if m.group(4) is not None else 1
        if old_count == 0 and new_count == 0:
            raise _invalid(f"hunk {number}: the hunk is empty")
        if old_count and old_start == 0:
            raise _invalid(f"hunk {number}: line numbers start at 1")
        hunk = _Hunk(number, old_start)
        i += 1
        old_left, new_left = old_count, new_count
        last = ""
        while old_left or new_left or (i < n and lines[i].startswith(_NO_NEWLINE)):
            if i >= n:
                raise _invalid(
                    f"hunk {number}: the header promises {old_count} old and {new_count} new "
                    f"lines, but the patch ends early"
                )
            body = lines[i]
            tag, text = (body[:1], body[1:]) if body else (" ", "")
            if tag == _NO_NEWLINE:
                if last in (" ", "-"):
                    hunk.old_no_eol = True
                if last in (" ", "+"):
                    hunk.new_no_eol = True
                if not last:
                    raise _invalid(f"hunk {number}: '\\ No newline' before any line")
                i += 1
                continue
            if tag == " " and old_left and new_left:
                old_left -= 1
                new_left -= 1
            elif tag == "-" and old_left:
                old_left -= 1
            elif tag == "+" and new_left:
                new_left -= 1
            else:
                raise _invalid(
                    f"hunk {number}: line {_show(body)} does not fit the counts in the header "
                    f"(-{old_start},{old_count}) or is not ' ', '-' or '+'"
                )
            if (hunk.old_no_eol and tag != "+") or (hunk.new_no_eol and tag != "-"):
                raise _invalid(f"hunk {number}: '\\ No newline at end of file' before its end")
            hunk.ops.append((tag, text))
            last = tag
            i += 1
        hunks.append(hunk)
    return hunks


def apply_patch(text: str, patch: str, *, path: str, limit: int = MAX_PLANNED_BYTES) -> str:
    """Apply a unified diff for ``path`` to ``text``; all or nothing.

    Raises ``OperatorError`` (``ERR_INVALID_PATCH`` or ``ERR_PATCH_DOES_NOT_APPLY``; or
    ``ERR_RESULT_TOO_LARGE`` as soon as the added lines would take the text over ``limit``).
    """
    hunks = parse_patch(patch, path)
    budget = SizeBudget(text, limit)
    lines = split_lines(text)
    nl = newline_of(text)
    file_no_eol = bool(lines) and lines[-1][1] == ""
    out: list[tuple[str, str]] = []
    pos = 0  # index into lines of the first line not yet copied
    last: _Hunk | None = None
    for hunk in hunks:
        old = hunk.old
        # "-N,0" inserts after line N; otherwise the hunk starts at line N.
        start = hunk.old_start if not old else hunk.old_start - 1
        if start < pos:
            raise _invalid(f"hunk {hunk.number}: hunks overlap or are out of order")
        end = start + len(old)
        if end > len(lines):
            raise OperatorError(
                codes.ERR_PATCH_DOES_NOT_APPLY,
                f"hunk {hunk.number}: it needs lines {start + 1}-{end} but the file has "
                f"{len(lines)} lines",
            )
        for k, expected in enumerate(old):
            actual = lines[start + k][0]
            if actual != expected:
                raise OperatorError(
                    codes.ERR_PATCH_DOES_NOT_APPLY,
                    f"hunk {hunk.number}: line {start + k + 1} is {_show(actual)}, "
                    f"the patch expects {_show(expected)}",
                )
        at_end = end == len(lines)
        if hunk.old_no_eol and not (at_end and old and file_no_eol):
            raise OperatorError(
                codes.ERR_PATCH_DOES_NOT_APPLY,
                f"hunk {hunk.number}: the patch says line {end} has no newline at end of "
                f"file, but it has one",
            )
        if hunk.new_no_eol and not at_end:
            raise _invalid(f"hunk {hunk.number}: '\\ No newline' is only valid at the end")
        out.extend(lines[pos:start])
        k = start
        for tag, line in hunk.ops:
            if tag == " ":
                out.append(lines[k])  # context keeps its own bytes
                k += 1
            elif tag == "-":
                budget.grow(-utf8_len(lines[k][0]) - len(lines[k][1]))
                k += 1
            else:
                budget.grow(utf8_len(line) + len(nl))
                out.append((line, nl))
        pos = end
        last = hunk
    out.extend(lines[pos:])
    for k in range(len(out) - 1):  # only the last line may lack an ending
        if not out[k][1]:
            out[k] = (out[k][0], nl)
    if out and last is not None and pos == len(lines):
        content, ending = out[-1]
        if last.new_no_eol:
            ending = ""
        elif last.old_no_eol:
            ending = ending or nl  # the patch adds the final newline
        elif file_no_eol:
            ending = ""  # the patch is silent about it: the file keeps lacking one
        out[-1] = (content, ending)
    return "".join(c + e for c, e in out)
