"""The environment a command runs with: non-interactive, and without the host's secrets."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping

#: Variables never passed on (case-insensitive globs) unless the person allows the exact name.
SECRET_PATTERNS = ("*_KEY", "*_TOKEN", "*_SECRET", "*_PASSWORD", "JUPYTER*", "*_CREDENTIALS")

#: Set for every command, after the extra variables, so nothing can turn them back on.
NON_INTERACTIVE = {
    "CI": "1",
    "TERM": "dumb",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "MANPAGER": "cat",
    "EDITOR": "false",
    "VISUAL": "false",
    "GIT_EDITOR": "false",
    "GIT_TERMINAL_PROMPT": "0",
    "DEBIAN_FRONTEND": "noninteractive",
    "NO_COLOR": "1",
    "PYTHONUNBUFFERED": "1",
}


def is_secret(name: str) -> bool:
    """True for names that look like credentials (``*_KEY``, ``*_TOKEN``, ``JUPYTER*``, ...)."""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in SECRET_PATTERNS)


def child_env(
    extra: Mapping[str, str] = {},
    *,
    allow: Iterable[str] = (),
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The host environment without secrets, plus ``extra``, plus :data:`NON_INTERACTIVE`.

    ``allow`` lists exact names of secret-looking variables the person lets through.
    """
    allowed = set(allow)
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if k in allowed or not is_secret(k)}
    env.update(extra)
    env.update(NON_INTERACTIVE)
    return env
