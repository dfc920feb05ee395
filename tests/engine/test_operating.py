"""The protocols the engine's helper modules see a session and a run through (operating.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from jupyter_operator.engine import Operator
from jupyter_operator.engine.operating import Deciding, Operating

ENGINE = Path(__file__).resolve().parents[2] / "jupyter_operator" / "engine"
#: The modules Operator and Run call down into, passing themselves along.
HELPERS = ("carry_out.py", "run_items.py", "live_route.py", "file_api.py", "history.py", "run.py")


def members(protocol: type) -> set[str]:
    names = set(getattr(protocol, "__annotations__", {}))
    names |= {n for n in vars(protocol) if not n.startswith("_")}
    return names


def test_the_session_and_its_runs_offer_every_member_of_their_protocols(tmp_path: Path) -> None:
    with Operator(tmp_path) as op:
        assert op.started_runner is None  # asking starts no kernel (``runner`` would)
        assert op.lock is op._lock
        run = op.run("no commands here")
        assert run.operator is op
        assert {n for n in members(Operating) if not hasattr(op, n)} == set()
        assert {n for n in members(Deciding) if not hasattr(run, n)} == set()


def test_the_protocols_name_no_private_member() -> None:
    assert not [n for n in members(Operating) | members(Deciding) if n.startswith("_")]


def test_the_helpers_never_import_the_session_nor_call_its_private_methods() -> None:
    private = ("_finish", "_carry_out", "_replan", "_start", "_blockers", "_runner", "_lock")
    for name in HELPERS:
        tree = ast.parse((ENGINE / name).read_text(encoding="utf-8"))
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert "session" not in imported, name
        owners = ("op", "operator", "self._operator")
        calls = {ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                 and node.attr in private and ast.unparse(node.value) in owners}  # fmt: skip
        assert calls == set(), (name, calls)
