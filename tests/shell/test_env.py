"""The environment rules: secrets out (unless allowed by name), non-interactive settings win."""

from __future__ import annotations

import pytest

from jupyter_operator.shell import NON_INTERACTIVE, child_env, is_secret


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("OPENAI_API_KEY", True),
        ("GITHUB_TOKEN", True),
        ("AWS_SECRET", True),
        ("JUPYTER_TOKEN", True),
        ("JUPYTERHUB_API_URL", True),
        ("db_password", True),
        ("GOOGLE_APPLICATION_CREDENTIALS", True),
        ("PATH", False),
        ("HOME", False),
        ("KEYBOARD", False),
        ("TOKENIZERS_PARALLELISM", False),
    ],
)
def test_is_secret(name: str, secret: bool) -> None:
    assert is_secret(name) is secret


def test_child_env() -> None:
    base = {"PATH": "/bin", "HF_TOKEN": "x", "MY_KEY": "y", "PAGER": "less", "EDITOR": "vim"}
    env = child_env({"DEBUG": "1", "CI": "0"}, allow=("HF_TOKEN",), base=base)
    assert env["PATH"] == "/bin" and env["HF_TOKEN"] == "x" and "MY_KEY" not in env
    assert env["DEBUG"] == "1"
    for name, value in NON_INTERACTIVE.items():
        assert env[name] == value  # the model's CI=0 and the host's PAGER do not win
