"""The sandbox tests cannot skip quietly in CI: there a missing sandbox fails them."""

from __future__ import annotations

import pytest

from support import sandboxing


def test_under_ci_a_missing_sandbox_fails_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandboxing, "sandbox_unavailable_reason", lambda: "bwrap is not installed")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="bwrap is not installed"):
        sandboxing.require_sandbox()
    with pytest.raises(pytest.fail.Exception, match="bwrap is not installed"):
        sandboxing.sandbox_here()  # the no-sandbox branch of a test is not taken in CI either


def test_outside_ci_a_missing_sandbox_skips_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sandboxing, "sandbox_unavailable_reason", lambda: "bwrap is not installed")
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="bwrap is not installed"):
        sandboxing.require_sandbox()
    assert sandboxing.sandbox_here() is False

