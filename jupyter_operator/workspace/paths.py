"""The lexical path check (security rule D1) and protected-path matching.

Every path a model (or any other untrusted client) names goes through :func:`parse_path` before
any system call is made with it. The result is a tuple of validated components; nothing downstream
ever re-joins and re-parses a string. Containment itself is enforced later by walking descriptors
(``jail.py``); this module only guarantees that a path cannot *name* anything outside the root.
"""

from __future__ import annotations

import fnmatch
import re
import string
import unicodedata
from collections.abc import Iterable

from jupyter_operator.protocol import OperatorError, codes

from .out_of_reach import CREDENTIAL_NAMES

MAX_PATH_BYTES = 4096
MAX_COMPONENT_BYTES = 255
#: The Editor File API's limit on the path it is sent, before normalisation.
MAX_PATH_CHARS = 4096

#: Protected by default, for every action including reads. Entries without a ``/`` match a
#: component at any depth; entries with one (even a trailing one) are anchored at the root.
DEFAULT_PROTECTED: tuple[str, ...] = (
    ".git",
    ".jupyter",
    ".ipython",
    ".ipynb_checkpoints",
    ".operator-trash",
    *CREDENTIAL_NAMES,
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
    _check_characters(path)
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


def canonical_path(path: str) -> str:
    """The one spelling of a workspace path: its :func:`parse_path` components joined with
    ``/`` (``.`` for the root), so ``./a//n.ipynb``, ``a\\n.ipynb`` and ``a/n.ipynb/`` are all
    ``a/n.ipynb``. What is keyed by a path (a notebook's kernel, its runs in the ledger) is
    keyed by this. Nothing else is folded: on Linux ``N.ipynb``, ``n.ipynb `` and the NFD
    spelling of ``café.ipynb`` name other files, and the jail reaches them as such. Raises
    like :func:`parse_path`."""
    return display_path(parse_path(path))


def _check_characters(path: str) -> None:
    for ch in path:
        if ch < " " or ch == "\x7f" or (ch > "~" and unicodedata.category(ch) in _BAD_CATEGORIES):
            raise _refuse("control, format or unassigned characters are not allowed")


def normalize_path(path: str, *, max_chars: int = MAX_PATH_CHARS) -> str:
    """The Editor File API's path rule: resolve ``.`` and ``..`` lexically, refuse escapes.

    ``a/../b.txt`` becomes ``b.txt`` and ``./a/./b`` becomes ``a/b``; a path that climbs above
    the root at any point (``a/../../x``, ``../x``) raises ``OperatorError(ERR_PATH_ESCAPE)``,
    as do absolute paths, paths longer than ``max_chars`` characters, and control or format
    characters anywhere (even in a component that ``..`` removes). The result is a plain
    relative path (``.`` for the root) that still goes through :func:`parse_path` and the
    descriptor walk like every other path. Nothing here touches the file system, so a symlink
    at ``a`` in ``a/../b.txt`` never matters: ``a/..`` is gone before any system call.

    The Operator protocol keeps the stricter rule of :func:`parse_path` (``..`` refused).
    """
    if not isinstance(path, str) or path == "":
        raise _refuse("the path is empty")
    if len(path) > max_chars:
        raise _refuse(f"longer than {max_chars} characters")
    _check_characters(path)
    norm = path.replace("\\", "/")
    if norm.startswith("/"):
        raise _refuse("absolute paths are not allowed; use a path relative to the workspace")
    parts: list[str] = []
    for comp in norm.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            if not parts:
                raise _refuse("the path leaves the workspace root")
            parts.pop()
        else:
            parts.append(comp)
    return display_path(tuple(parts))


def path_key(path: str) -> str:
    """One spelling per path as a model wrote it (``./a//b`` is ``a/b``), to find the commands
    of one reply that name the same file; not a check (``parse_path`` is)."""
    return "/".join(p for p in path.replace("\\", "/").split("/") if p not in ("", "."))


def paths_overlap(a: str, b: str) -> bool:
    """True when one path key is the other or lies inside it (the root, "", holds all)."""
    return a == b or not a or not b or a.startswith(b + "/") or b.startswith(a + "/")


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


#: Characters no other character case-folds to (checked over all of Unicode in the tests).
_CASELESS_LEADS = frozenset(string.punctuation + string.digits)


class ProtectedMatcher:
    """Case-folded matcher for protected paths (``.git``, ``.jupyter`` ...).

    A pattern without ``/`` matches any component at any depth (``sub/.git/config`` is protected
    too); a pattern with a ``/`` anywhere (``secrets/``, ``data/raw``) is anchored at the root and
    protects that path and everything below it. Components may use shell wildcards (``*.pth``).
    Matching is case-folded on every OS because case-insensitive file systems alias ``.GIT`` to
    ``.git``.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        self._exact: set[str] = set()  # literal component names, matched by set lookup
        self._globs: list[re.Pattern[str]] = []  # component names with wildcards
        self._anchored: list[tuple[re.Pattern[str], ...]] = []
        for pat in patterns:
            norm = pat.replace("\\", "/")
            comps = tuple(c.casefold() for c in norm.split("/") if c not in ("", "."))
            if not comps:
                continue
            if len(comps) == 1 and "/" not in norm:
                if any(ch in comps[0] for ch in "*?["):
                    self._globs.append(re.compile(fnmatch.translate(comps[0])))
                else:
                    self._exact.add(comps[0])
            else:
                self._anchored.append(tuple(re.compile(fnmatch.translate(c)) for c in comps))
        self.anchored_depth = max((len(p) for p in self._anchored), default=0)
        # The first characters a matching component can start with, when all are ASCII
        # punctuation or digits (``.git``, ``.ssh``...): no other character case-folds to
        # one of them, so a walk may skip the match for every other name. None when any
        # name may match (a wildcard, or a pattern starting with a letter).
        leads = {e[0] for e in self._exact}
        self.leading: frozenset[str] | None = (
            frozenset(leads) if not self._globs and leads <= _CASELESS_LEADS else None
        )

    def component_matches(self, comp: str) -> bool:
        """True when one component matches a pattern that applies at any depth."""
        comp = comp.casefold()
        # A trailing dot or space is ignored by Windows and some network file systems.
        bare = comp.rstrip(". ") or comp
        if comp in self._exact or bare in self._exact:
            return True
        # (a tree search asks for every entry: no generator when there is no glob)
        return bool(self._globs) and any(g.match(comp) or g.match(bare) for g in self._globs)

    def anchored_matches(self, components: tuple[str, ...]) -> bool:
        """True when the path is, or is below, a root-anchored pattern."""
        for pat in self._anchored:
            if len(components) >= len(pat) and all(
                p.match(c.casefold()) for c, p in zip(components, pat, strict=False)
            ):
                return True
        return False

    def matches(self, components: tuple[str, ...]) -> bool:
        """True when the path or any of its parents is protected."""
        return any(self.component_matches(c) for c in components) or self.anchored_matches(
            components
        )

    def holds(self, components: tuple[str, ...]) -> bool:
        """True when a root-anchored pattern lies below the path (a folder holding it)."""
        return any(
            len(components) < len(pat)
            and all(p.match(c.casefold()) for c, p in zip(components, pat, strict=False))
            for pat in self._anchored
        )

    def child_matches(self, components: tuple[str, ...]) -> bool:
        """``matches`` for a path whose parent is already known not to be protected."""
        if self.component_matches(components[-1]):
            return True
        return len(components) <= self.anchored_depth and self.anchored_matches(components)
