"""The environment a command runs with: non-interactive, and only what a command needs of the
host's (an allowlist), so no credential reaches it under any name."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Iterable, Mapping

#: Variables never passed on (case-insensitive globs) unless the person allows the exact name,
#: even when an allowlist pattern below would take them (``LC_*`` cannot carry a ``*_TOKEN``).
SECRET_PATTERNS = ("*_KEY", "*_TOKEN", "*_SECRET", "*_PASSWORD", "JUPYTER*", "*_CREDENTIALS")

#: What a command gets from the host's environment: what programs need to find themselves,
#: speak the person's language and use the Python environment (an allowlist: a credential in a
#: variable of any other name, ``AWS_ACCESS_KEY_ID``, ``PGPASSWORD``, ``DATABASE_URL``, stays
#: out). The person adds names with the shell policy's ``env=`` (``allow``).
PASSED_ON = (
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TZ", "TMPDIR",
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_EXE", "PYTHONPATH",
    "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONDONTWRITEBYTECODE", "JAVA_HOME", "GOPATH",
    "CARGO_HOME", "RUSTUP_HOME", "NODE_PATH", "SSL_CERT_FILE", "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_INDEX_URL", "PIP_FIND_LINKS",
    "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OMP_NUM_THREADS", "MPLBACKEND", "COLUMNS",
)  # fmt: skip

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


@functools.cache
def _matcher(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One regular expression for a set of glob patterns (``fnmatchcase`` each, at once)."""
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in patterns))


def is_secret(name: str) -> bool:
    """True for names that look like credentials (``*_KEY``, ``*_TOKEN``, ``JUPYTER*``, ...)."""
    return _matcher(tuple(SECRET_PATTERNS)).match(name.upper()) is not None


def is_passed_on(name: str) -> bool:
    """True for a host variable every command gets (:data:`PASSED_ON`, never a secret)."""
    return not is_secret(name) and _matcher(tuple(PASSED_ON)).match(name) is not None


def child_env(
    extra: Mapping[str, str] = {},
    *,
    allow: Iterable[str] = (),
    base: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The host variables of :data:`PASSED_ON` and those ``allow`` names, plus ``extra``
    (the command's own variables), plus :data:`NON_INTERACTIVE`.

    ``allow`` lists exact names the person lets through (secret-looking ones included).
    """
    allowed = set(allow)
    source = os.environ if base is None else base
    env = {k: v for k, v in source.items() if k in allowed or is_passed_on(k)}
    env.update(extra)
    env.update(NON_INTERACTIVE)
    return env
