"""Plain records returned by :class:`~jupyter_operator.workspace.Workspace`."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Limits:
    """Resource budgets of one workspace (security rule D14).

    ``max_list_entries``: entries returned by ``list_dir`` (the first ones by name).
    ``max_search_depth``: directory levels below the search start that ``search_tree`` enters;
    deeper directories are counted as skipped.
    ``max_delete_entries``: entries a folder delete may move (all counted, at any depth);
    more is refused with ``ERR_TOO_MANY_ENTRIES``, as is a folder nested deeper than
    ``max_search_depth`` levels.
    """

    max_list_entries: int = 10_000
    max_search_depth: int = 128
    max_delete_entries: int = 10_000


@dataclass(frozen=True)
class DirEntry:
    """One entry of ``list_dir``. ``name`` is escaped for display (see ``display_name``);
    ``is_dir`` is false for a symbolic link, which is never followed."""

    name: str
    is_dir: bool
    size: int


@dataclass(frozen=True)
class StatInfo:
    """``fs.stat`` of a path (never following a final symbolic link)."""

    size: int
    is_file: bool
    is_dir: bool
    mtime_ms: float
    ctime_ms: float


@dataclass(frozen=True)
class Snapshot:
    """The state a preview is computed from, and what a mutation must still find to apply.

    ``path`` is the workspace-relative display path. ``data`` holds the exact bytes of a regular
    file (None when absent or a directory) and ``sha256`` their hex digest. ``dev``/``ino`` identify
    the file or directory (0 when absent).
    """

    path: str
    exists: bool
    is_dir: bool
    data: bytes | None
    sha256: str | None
    dev: int = 0
    ino: int = 0


@dataclass
class TreeSearch:
    """Result of ``search_tree``: ``matches`` are ``(relative path with /, 1-based line, text)``
    in walk order (sorted by name, depth first). Each truncation flag is set only when more
    matches or more files to scan really existed beyond the limit."""

    matches: list[tuple[str, int, str]] = field(default_factory=list)
    files_scanned: int = 0
    files_skipped: int = 0
    files_hidden: int = 0  # files and folders a rule keeps out of the search (never opened)
    truncated_matches: bool = False
    truncated_files: bool = False
