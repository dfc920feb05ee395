"""Fixtures for string-command sessions: a workspace with nested Markdown and a session on it."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from jupyter_operator.engine import Operator, Policy
from jupyter_operator.engine.commands import CommandSession

DATA = Path(__file__).resolve().parents[1] / "data" / "commands"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    shutil.copy(DATA / "notes.md", folder / "notes.md")
    (folder / "docs").mkdir()
    (folder / "docs" / "guide.md").write_text("# Guide\n\nStart here.\n", encoding="utf-8")
    return folder


@pytest.fixture
def make_session(tmp_path: Path, root: Path) -> Iterator[Callable[..., CommandSession]]:
    operators: list[Operator] = []

    def make(policy: str | None = None, **kwargs: object) -> CommandSession:
        op = Operator(root, journal_dir=tmp_path / "journal",
                      policy=Policy.parse(policy) if policy else None)  # fmt: skip
        operators.append(op)
        return CommandSession(op, tag="qm", **kwargs)  # type: ignore[arg-type]

    yield make
    for op in operators:
        op.close()


@pytest.fixture
def session(make_session: Callable[..., CommandSession]) -> CommandSession:
    return make_session()


@pytest.fixture
def auto(make_session: Callable[..., CommandSession]) -> CommandSession:
    """A session whose policy applies changes without asking."""
    return make_session("auto=reads,writes")
