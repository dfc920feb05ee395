"""The lexical path check (security rule D1) and protected-path matching.

Every path a model (or any other untrusted client) names goes through :func:`parse_path` before
any system call is made with it. The result is a tuple of validated components; nothing downstream
ever re-joins and re-parses a string. Containment itself is enforced later by walking descriptors
(``jail.py``); this module only guarantees that a path cannot *name* anything outside the root.
"""

from __future__ import annotations

import fnmatch
import unicodedata
from collections.abc import Iterable

from jupyter_operator.protocol import OperatorError, codes

MAX_PATH_BYTES = 4096
MAX_COMPONENT_BYTES = 255

#: Protected by default, for every action including reads. Entries without a ``/`` match a
#: component at any depth; entries with one (even a trailing one) are anchored at the root.
DEFAULT_PROTECTED: tuple[str, ...] = (
    ".git",
    ".jupyter",
    ".ipython",
    ".ipynb_checkpoints",
    ".operator-trash",
)

#: Prefix of the temporary files of the atomic write path. Listing and search hide them.
TEMP_PREFIX = ".~operator-"

# Unicode categories refused in a path: controls, format characters (zero-width, bidi
# overrides), line/paragraph separators, surrogates, unassigned and private-use code points.
_BAD_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Cn", "Co"})


def _refuse(reason: str) -> OperatorError:
    return OperatorError(codes.ERR_PATH_ESCAPE, f"invalid path: {reason}")


def parse_path(path: str) -> tuple[str, ...]:
    """Validate a workspace-relative path and return its components.

    ``\\`` is accepted as a separator; empty and ``.`` components are dropped, so ``./a//b/``
    is ``("a", "b")``. The empty tuple means the workspace root (``.``); callers decide where the
    root is acceptable (a directory is meant) and where not. Everything else that could name
    something outside the root, or confuse a person reading it, raises
    ``OperatorError(ERR_PATH_ESCAPE)`` with a short reason and never echoes the bad path back.
    """
    if not isinstance(path, str) or path == "":
        raise _refuse("the path is empty")
    for ch in path:
        if ch < " " or ch == "\x7f" or (ch > "~" and unicodedata.category(ch) in _BAD_CATEGORIES):
            raise _refuse("control, format or unassigned characters are not allowed")
    try:
        raw = path.encode("utf-8")
    except UnicodeEncodeError:
        raise _refuse("the path is not valid Unicode") from None
    if len(raw) > MAX_PATH_BYTES:
        raise _refuse(f"longer than {MAX_PATH_BYTES} bytes")
    norm = path.replace("\\", "/")
    if norm.startswith("/"):
        raise _refuse("absolute paths are not allowed; use a path relative to the workspace")
    if norm.startswith("~"):
        raise _refuse("'~' home-directory paths are not allowed")
    if ":" in norm:
        # Drive letters (C:\, C:foo), NTFS streams (a::$DATA) and URL schemes, on every OS.
        raise _refuse("':' (drive letters, streams) is not allowed")
    parts: list[str] = []
    for comp in norm.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            raise _refuse("'..' components are not allowed")
        if len(comp.encode("utf-8")) > MAX_COMPONENT_BYTES:
            raise _refuse(f"a path component is longer than {MAX_COMPONENT_BYTES} bytes")
        parts.append(comp)
    return tuple(parts)


def display_path(components: tuple[str, ...]) -> str:
    """The relative path shown in messages (``.`` for the root)."""
    return "/".join(components) if components else "."


def display_name(name: str) -> str:
    """A file name found on disk, made safe for one line of output.

    Undecodable bytes (which ``os`` hands back as lone surrogates) and control or format
    characters are shown as escapes, so one entry is always one line and a name cannot smuggle
    terminal or bidi controls into a result.
    """
    if name.isprintable() and name.isascii():
        return name
    out = []
    for ch in name:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:  # surrogateescape of an undecodable byte
            out.append(f"\\x{o - 0xDC00:02x}")
        elif ch < " " or ch == "\x7f" or unicodedata.category(ch) in _BAD_CATEGORIES:
            out.append(f"\\u{o:04x}" if o > 0xFF else f"\\x{o:02x}")
        else:
            out.append(ch)
    return "".join(out)


class ProtectedMatcher:
    """Case-folded matcher for protected paths (``.git``, ``.jupyter`` ...).

    A pattern without ``/`` matches any component at any depth (``sub/.git/config`` is protected
    too); a pattern with a ``/`` anywhere (``secrets/``, ``data/raw``) is anchored at the root and
    protects that path and everything below it. Components may use shell wildcards (``*.pth``).
    Matching is case-folded on every OS because case-insensitive file systems alias ``.GIT`` to
    ``.git``.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        self.anywhere: list[str] = []
        self.anchored: list[tuple[str, ...]] = []
        for pat in patterns:
            norm = pat.replace("\\", "/")
            comps = tuple(c.casefold() for c in norm.split("/") if c not in ("", "."))
            if not comps:
                continue
            if len(comps) == 1 and "/" not in norm:
                self.anywhere.append(comps[0])
            else:
                self.anchored.append(comps)

    def matches(self, components: tuple[str, ...]) -> bool:
        """True when the path or any of its parents is protected."""
        folded = [c.casefold() for c in components]
        for comp in folded:
            # A trailing dot or space is ignored by Windows and some network file systems.
            bare = comp.rstrip(". ") or comp
            for pat in self.anywhere:
                if fnmatch.fnmatchcase(comp, pat) or fnmatch.fnmatchcase(bare, pat):
                    return True
        for pat in self.anchored:
            if len(folded) >= len(pat) and all(
                fnmatch.fnmatchcase(c, p) for c, p in zip(folded, pat, strict=False)
            ):
                return True
        return False
