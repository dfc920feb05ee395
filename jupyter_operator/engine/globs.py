"""Path globs of policy rules: exact, documented, and matched on normalised workspace paths.

A glob is matched against the *normalised workspace-relative path* of an action: the
components the workspace's own lexical check (``workspace.parse_path``) gives, joined with
``/`` (``./notes//a.md`` is ``notes/a.md``; the root is ``.``). A path that check refuses
(``..``, absolute, ``~``, drive letters, control characters) has no normalised form and
matches no glob at all, so a rule can never approve it.

- ``**`` as a whole part (``**``, ``notes/**``, ``**/x.py``) matches zero or more whole
  names, dot names included: ``notes/**`` matches ``notes`` itself and everything below it.
- ``*`` matches any run of characters within one name (never ``/``); ``?`` matches one
  character; ``[abc]``, ``[a-z]`` and ``[!abc]`` match one character of (not of) a set.
- ``*``, ``?`` and a set never match the leading ``.`` of a name: dot files and dot folders
  are matched only by writing the dot (``.env``, ``**/.*``, ``.github/**``) or by ``**``.
- Matching is case-sensitive, character for character (``Notes/**`` does not match
  ``notes/a``). Nothing else is special: ``{`` and ``}`` are plain characters, and ``\\``
  separates names as it does in workspace paths (there is no escape character).
- A glob is itself normalised (``./`` and repeated ``/`` dropped; a trailing ``/`` means
  ``/**``); a glob that could only name something outside the workspace (``..``, a leading
  ``/`` or ``~``) or that puts ``**`` inside a name (``a**``) is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from ..protocol import OperatorError
from ..workspace import parse_path


class GlobError(ValueError):
    """A path glob that cannot be used (the message says why)."""


def normalise_path(path: str | None) -> str | None:
    """The workspace-relative form a glob is matched on, or None when the path is invalid.

    ``""`` (no path given) is also None: an action without a path matches only ``**``.
    """
    if not path:
        return None
    try:
        comps = parse_path(path)
    except OperatorError:
        return None
    return "/".join(comps) if comps else "."


def _name_regex(part: str) -> str:
    """The regex for one name of a glob (no ``/`` inside)."""
    out: list[str] = []
    i = 0
    while i < len(part):
        ch = part[i]
        at_start = i == 0
        if ch == "*":
            while i + 1 < len(part) and part[i + 1] == "*":
                i += 1  # a run of stars inside a name is one star (checked by the caller)
            out.append("(?!\\.)[^/]*" if at_start else "[^/]*")
        elif ch == "?":
            out.append("[^/.]" if at_start else "[^/]")
        elif ch == "[":
            end = part.find("]", i + 2 if part[i + 1 : i + 2] in ("!", "]") else i + 1)
            if end < 0:
                out.append(re.escape(ch))
            else:
                body = part[i + 1 : end]
                negate = body.startswith("!")
                if negate:
                    body = body[1:]
                body = body.replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[")
                cls = f"[^/{body}]" if negate else f"[{body}]"
                out.append(f"(?!\\.){cls}" if at_start else f"(?!/){cls}")
                i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Glob:
    """A compiled path glob; ``text`` is its normalised form (what rules show)."""

    text: str
    regex: re.Pattern[str]

    def matches(self, normalised: str | None) -> bool:
        """True when the normalised path (see :func:`normalise_path`) matches.

        None (an invalid path, or no path) matches only the glob ``**``.
        """
        if normalised is None:
            return self.text == "**"
        return self.regex.fullmatch(normalised) is not None


@cache
def compile_glob(text: str) -> Glob:
    """Compile a path glob; raises :class:`GlobError` with a one-line reason."""
    raw = text.replace("\\", "/")  # as in workspace paths, a backslash separates names
    if not raw:
        raise GlobError("empty path glob")
    if raw.startswith("/") or raw.startswith("~"):
        raise GlobError(f"{text!r}: a glob is relative to the workspace (no leading / or ~)")
    trailing = raw.endswith("/")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if trailing:
        parts.append("**")
    if not parts:
        parts = ["**"]  # "./" or "." alone: the whole workspace
    for part in parts:
        if part == "..":
            raise GlobError(f"{text!r}: '..' would leave the workspace; globs cannot use it")
        if "**" in part and part != "**":
            raise GlobError(f"{text!r}: '**' must be a whole path part (like notes/** or **/x)")
    # Collapse repeated ** parts: they mean the same thing.
    squashed: list[str] = []
    for part in parts:
        if not (part == "**" and squashed and squashed[-1] == "**"):
            squashed.append(part)
    pattern = ""
    for index, part in enumerate(squashed):
        last = index == len(squashed) - 1
        if part == "**":
            # Zero or more whole names; the separators around it are folded in.
            if index == 0 and last:
                pattern += ".*"
            elif index == 0:
                pattern += "(?:[^/]+/)*"
            elif last:
                pattern = pattern[: -len("/")] + "(?:/.*)?"
            else:
                pattern += "(?:[^/]+/)*"
        else:
            pattern += _name_regex(part) + ("" if last else "/")
    try:
        regex = re.compile(pattern, re.DOTALL)
    except re.error as exc:  # a set like [z-a]
        raise GlobError(f"{text!r}: bad character set ({exc.msg})") from None
    return Glob("/".join(squashed), regex)
