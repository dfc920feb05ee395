"""The walk a folder delete is previewed with: every entry counted, protected paths refused.

Deleting a folder moves everything below it, so the preview must see everything below it: no
listing cap, hidden names included. The walk stops with an error instead of quietly stopping
early: ``ERR_PROTECTED_PATH`` for a protected path at any depth (a ``.git`` deep inside),
``ERR_TOO_MANY_ENTRIES`` past ``max_entries`` entries or ``max_depth`` levels, and whatever
``check_file`` raises for a regular file below it (a notebook whose own policy forbids moving
it away).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from jupyter_operator.protocol import OperatorError, codes

from .jail import O_DIR, Jail, close_quietly
from .paths import ProtectedMatcher, display_name, display_path


@dataclass(frozen=True)
class TreeListing:
    """What deleting a folder would move: the exact ``count`` of entries below it, and the
    first ``shown`` of them in walk order as ``(display path, is_dir, size)``."""

    count: int
    entries: tuple[tuple[str, bool, int], ...]


def _too_many(rel: str, why: str) -> OperatorError:
    return OperatorError(
        codes.ERR_TOO_MANY_ENTRIES, f"{rel} {why}; nothing was changed. Delete smaller folders."
    )


def walk_tree(
    jail: Jail,
    comps: tuple[str, ...],
    protected: ProtectedMatcher,
    *,
    max_entries: int,
    max_depth: int,
    shown: int,
    check_file: Callable[[int, tuple[str, ...]], None] | None = None,
) -> TreeListing:
    """Walk the directory at ``comps`` (validated, not protected) without following links;
    ``check_file(folder descriptor, components)`` is called for every regular file."""
    top = display_path(comps)
    count = 0
    entries: list[tuple[str, bool, int]] = []
    stack: list[tuple[int, tuple[str, ...], list[os.DirEntry[str]]]] = []
    try:
        with jail.directory(comps) as fd:
            own = os.dup(fd)
        # Entries are read from the descriptor kept open: their stat() uses it.
        stack.append((own, comps, []))
        stack[-1] = (own, comps, _sorted(own))
        while stack:
            fd, here, todo = stack[-1]
            if not todo:
                close_quietly(fd)
                stack.pop()
                continue
            entry = todo.pop()
            child = (*here, entry.name)
            rel = "/".join(display_name(c) for c in child)
            if protected.child_matches(child):
                raise OperatorError(
                    codes.ERR_PROTECTED_PATH,
                    f"{top} holds the protected path {rel}; a folder holding one cannot be deleted",
                )
            count += 1
            if count > max_entries:
                raise _too_many(top, f"holds more than {max_entries} entries")
            is_dir = entry.is_dir(follow_symlinks=False)
            if len(entries) < shown:
                size = 0 if is_dir else entry.stat(follow_symlinks=False).st_size
                entries.append((rel, is_dir, size))
            if is_dir:
                if len(stack) >= max_depth:
                    raise _too_many(top, f"is nested deeper than {max_depth} levels")
                cfd = os.open(entry.name, O_DIR, dir_fd=fd)
                try:
                    stack.append((cfd, child, _sorted(cfd)))
                except BaseException:
                    close_quietly(cfd)
                    raise
            elif check_file is not None and entry.is_file(follow_symlinks=False):
                check_file(fd, child)
    except OSError as exc:
        raise OperatorError(codes.ERR_IO, f"{top} could not be listed ({exc.strerror})") from None
    finally:
        for fd, _, _ in stack:
            close_quietly(fd)
    return TreeListing(count, tuple(entries))


def _sorted(fd: int) -> list[os.DirEntry[str]]:
    """The entries of an open directory, reverse sorted (popped from the end: name order)."""
    with os.scandir(fd) as it:
        return sorted(it, key=lambda e: e.name, reverse=True)
