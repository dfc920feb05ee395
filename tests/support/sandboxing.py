"""The bubblewrap sandbox in tests: ``needs_sandbox`` marks a test that must run in it.

Outside CI a host without a working sandbox skips those tests with the reason; under CI
(``CI`` set) it fails them, as a missing chromium fails the browser tests: the sandbox is part
of the product, and a run that quietly skipped its tests would prove nothing about it.
"""

from __future__ import annotations

import os

import pytest

from jupyter_operator.shell import sandbox_unavailable_reason

#: Marks a test (or a ``pytest.param``) that needs the sandbox (``tests/conftest.py`` checks it).
needs_sandbox = pytest.mark.needs_sandbox


def require_sandbox() -> None:
    """Return when the sandbox starts here; else skip, or fail under CI, with the reason."""
    reason = sandbox_unavailable_reason()
    if reason is None:
        return
    message = f"the bubblewrap sandbox cannot run here: {reason} (apt-get install bubblewrap)"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def sandbox_here() -> bool:
    """Whether the sandbox starts here, for a test that checks the other case too; under CI a
    missing sandbox fails the test instead of taking the other branch."""
    if sandbox_unavailable_reason() is None:
        return True
    if os.environ.get("CI"):
        require_sandbox()
    return False
