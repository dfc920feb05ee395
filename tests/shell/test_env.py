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


@pytest.mark.parametrize("name", ["AWS_ACCESS_KEY_ID", "PGPASSWORD", "MYSQL_PWD", "DATABASE_URL",
                                  "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "LC_TOKEN", "SOMETHING"])
def test_only_the_allowlist_reaches_a_command(name: str) -> None:
    """Credentials under names no denylist guesses stay out: only what a command needs passes."""
    base = {name: "secret-value", "PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_ALL": "C"}
    env = child_env(base=base)
    assert name not in env
    assert env["PATH"] == "/usr/bin" and env["LANG"] == "C.UTF-8" and env["LC_ALL"] == "C"
    assert child_env(base=base, allow=(name,))[name] == "secret-value"  # the person's choice
