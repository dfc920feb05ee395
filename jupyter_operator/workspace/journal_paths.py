"""Where the undo journal lives, and opening its folders without following links.

The journal directory is chosen by the host (``$JUPYTER_OPERATOR_JOURNAL_DIR``, the server's or
the CLI's setting, else ``<jupyter data dir>/jupyter_operator/journal``), so it is resolved once;
everything below it is opened relative to its descriptor with ``O_NOFOLLOW``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from jupyter_operator.protocol import OperatorError, codes

from .history_records import corrupt
from .jail import O_DIR, close_quietly

ENV_DIRECTORY = "JUPYTER_OPERATOR_JOURNAL_DIR"


def default_directory() -> Path:
    """``$JUPYTER_OPERATOR_JOURNAL_DIR``, else ``<jupyter data dir>/jupyter_operator/journal``."""
    configured = os.environ.get(ENV_DIRECTORY)
    if configured:
        return Path(configured)
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "jupyter_operator" / "journal"


@contextmanager
def journal_io() -> Iterator[None]:
    """Turn an OS failure on the journal into ``ERR_IO`` (no host path, no traceback)."""
    try:
        yield
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else "input/output error"
        raise OperatorError(codes.ERR_IO, f"the undo journal cannot be used: {reason}") from None


#: What ``default_directory`` depends on (jupyter_core reads these, and resolves the home).
_DEFAULT_KEYS = (ENV_DIRECTORY, "JUPYTER_DATA_DIR", "JUPYTER_PLATFORM_DIRS", "XDG_DATA_HOME",
                 "HOME")  # fmt: skip
# Journal folders made and resolved in this process, by the setting that named them. Every
# engine session asks up to three times (a server makes one per reply): 0.1 ms without this.
_MADE: dict[object, Path] = {}


def journal_base(directory: str | os.PathLike[str] | None = None) -> Path:
    """The journal directory (configured or default), created 0o700 and resolved once.

    Later calls with the same setting get the same real folder while it is still a folder
    (one ``stat``); one that was removed is made again.
    """
    if directory is not None:
        key: object = os.fspath(directory)
    else:
        key = tuple(os.environ.get(name) for name in _DEFAULT_KEYS)
    known = _MADE.get(key)
    if known is not None and os.path.isdir(known):
        return known
    base = Path(directory) if directory is not None else default_directory()
    try:
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise OperatorError(
            codes.ERR_IO,
            f"the undo journal folder cannot be created: {os.strerror(exc.errno or 5)}",
        ) from None
    real = _MADE[key] = Path(os.path.realpath(base))
    return real


def root_key(root: Path) -> str:
    """A folder name for a workspace root: readable, and unique per real path."""
    real = os.path.realpath(root)
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(real).name)[:40]
    return f"{name or 'root'}-{digest}"


def open_subdir(parent_fd: int, name: str, *, create: bool = True) -> int:
    """Open (making it when asked) a directory below ``parent_fd``; a link there is corruption."""
    if create:
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o700, dir_fd=parent_fd)
    try:
        return os.open(name, O_DIR, dir_fd=parent_fd)
    except FileNotFoundError:
        raise
    except OSError:
        raise corrupt(f"{name} is not a plain folder") from None


def open_folders(base: Path, key: str) -> tuple[int, int, int]:
    """Descriptors of a root's journal folder and its blobs and trash (made when missing)."""
    try:
        base_fd = os.open(base, O_DIR)
    except OSError:
        raise OperatorError(codes.ERR_IO, "the undo journal folder cannot be opened") from None
    fds: list[int] = []
    try:
        fds.append(open_subdir(base_fd, key))
        fds.append(open_subdir(fds[0], "blobs"))
        fds.append(open_subdir(fds[0], "trash"))
    except BaseException:
        for fd in fds:
            close_quietly(fd)
        raise
    finally:
        close_quietly(base_fd)
    return fds[0], fds[1], fds[2]
