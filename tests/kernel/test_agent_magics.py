"""%%operator_agent and %operator model in a real IPython shell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from support.host_folders import keep_host_files_in
from support.replies import b64, block


@pytest.fixture
def agent_host(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Journal and transcripts in tmp_path, no model from the environment, and no
    ``%operator model`` choice left from an earlier test."""
    from jupyter_operator.kernel import agent_magics

    keep_host_files_in(tmp_path, monkeypatch)
    monkeypatch.setattr(agent_magics, "SETTINGS", agent_magics.AgentSettings())


@pytest.fixture
def ip(agent_host: None, ip: Any) -> Any:
    """The folder's shell (conftest: recorded comms, a fresh session), set up as above first."""
    return ip


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def test_a_replayed_task_runs_with_a_policy(ip: Any, root: Path, tmp_path: Path) -> None:
    from jupyter_operator.kernel.agent_magics import last_agent

    script = tmp_path / "script.jsonl"
    lines = [block("w1", "fs.write", path="a.txt", content_b64=b64("a")), "Done."]
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    ip.run_cell_magic(
        "operator_agent", f'--replay "{script}" --root "{root}" --policy auto=all', "write a"
    )
    agent = last_agent()
    assert agent is not None and agent.result.reason == "done"
    assert (root / "a.txt").read_text() == "a"


def test_without_an_event_loop_changes_are_refused_with_a_reason(
    ip: Any, root: Path, tmp_path: Path
) -> None:
    from jupyter_operator.kernel.agent_magics import last_agent

    script = tmp_path / "script.json"
    script.write_text(json.dumps([block("w1", "fs.write", path="a.txt", content_b64=b64("a"))]))
    ip.run_cell_magic("operator_agent", f'--replay "{script}" --root "{root}"', "write a")
    agent = last_agent()
    (decision,) = [r for r in agent.transcript if r["type"] == "decision"]
    assert decision["outcome"] == "rejected" and "no running event loop" in decision["reason"]
    assert not (root / "a.txt").exists()


@pytest.mark.parametrize(
    ("line", "body", "message"),
    [
        ("--max-turns 0 --replay x", "t", "--max-turns needs a positive number"),
        ("--replay", "t", "--replay needs a file"),
        ("--bogus 1", "t", "unexpected '--bogus'"),
        ("", "t", "no model"),
        ("--replay x", "  ", "the cell body is the task"),
        ("--replay /nonexistent/x.json", "t", "cannot read the replay file"),
        ("--policy auto=nope --replay x", "t", "unknown action or group"),
        ("--max-cost 0.5 --replay x", "t", "max_cost needs a price: the model has no known "
         "price per million tokens \\(give one: --price IN or --price IN,OUT\\)"),
        ("--max-tokens lots --replay x", "t", "--max-tokens needs a positive number"),
        ("--max-seconds 0 --replay x", "t", "max_seconds must be a positive number"),
        ("--max-cost 1 --price 1,2,3 --replay x", "t", "--price is IN or IN,OUT"),
    ],
)
def test_usage_errors_are_one_line(ip: Any, line: str, body: str, message: str) -> None:
    from jupyter_operator.kernel.agent_magics import AgentMagics

    magics = AgentMagics(shell=ip)
    with pytest.raises(UsageError, match=message):
        magics.operator_agent(line, body)


def test_model_shows_and_sets_the_endpoint_never_the_key(
    ip: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-kernel-SECRET-1")
    ip.run_line_magic("operator", "model")
    shown = capsys.readouterr().out
    assert "api.openai.com" in shown and "OPENAI_API_KEY set" in shown
    ip.run_line_magic("operator", "model llama3 --base-url http://localhost:11434/v1")
    shown = capsys.readouterr().out
    assert "llama3" in shown and "localhost:11434" in shown
    assert "sk-kernel-SECRET-1" not in shown


def test_a_task_against_an_endpoint_set_with_operator_model(
    ip: Any, root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from support.fake_openai import FakeOpenAI

    from jupyter_operator.kernel.agent_magics import last_agent

    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add(block("w1", "fs.write", path="a.txt", content_b64=b64("a")), "Done.")
        ip.run_line_magic("operator", f"model fake-model --base-url {fake.url}")
        ip.run_cell_magic("operator_agent", f'--root "{root}" --policy auto=all', "write a")
    agent = last_agent()
    assert agent.result.reason == "done" and agent.model.name == "fake-model"
    assert (root / "a.txt").read_text() == "a"
    assert fake.key not in capsys.readouterr().out


def test_an_ended_runs_change_is_undone_from_magics_and_from_its_card(
    ip: Any, root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from jupyter_operator.kernel.agent_magics import SETTINGS

    script = tmp_path / "script.jsonl"
    (root / "a.txt").write_text("before")
    lines = [block("w1", "fs.write", path="a.txt", content_b64=b64("after")), "Done."]
    script.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    ip.run_cell_magic(
        "operator_agent", f'--replay "{script}" --root "{root}" --policy auto=all', "change a"
    )
    assert SETTINGS.last_agent.result.reason == "done"
    ip.run_line_magic("operator", f'root "{root}"')
    ip.run_line_magic("operator", "undo")
    assert (root / "a.txt").read_text() == "before"
    ip.run_line_magic("operator", "redo")
    assert (root / "a.txt").read_text() == "after"
    assert "Undone: fs.write a.txt" in capsys.readouterr().out
    # The card of the run's turn, after the run ended (its engine session is done with).
    card = SETTINGS.last_view.turns[0].run_view
    assert "Undone: fs.write a.txt" in card.handle({"kind": "undo", "entry_id": None})["note"]
    assert (root / "a.txt").read_text() == "before"
    assert card.state()["items"][0]["status"] == "undone"
    assert "Redone" in card.handle({"kind": "redo", "entry_id": None})["note"]
    assert (root / "a.txt").read_text() == "after"
    # The history widget (%operator history) undoes it too.
    from jupyter_operator.kernel.operators import session

    ip.run_line_magic("operator", "history")
    [history] = session().history_views
    assert history.act(None, redo=False).startswith("Undone: fs.write a.txt")
    assert (root / "a.txt").read_text() == "before"
    assert card.state()["items"][0]["status"] == "undone"


def test_a_cell_s_run_stops_at_its_cost_budget(
    ip: Any, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from support.fake_openai import FakeOpenAI, Script

    from jupyter_operator.kernel.agent_magics import last_agent

    with FakeOpenAI() as fake:
        monkeypatch.setenv("OPENAI_API_KEY", fake.key)
        fake.add(*[Script(block(f"w{n}", "fs.write", path=f"{n}.txt", content_b64=b64("a")),
                          usage=(100_000, 10_000)) for n in range(3)])  # $0.30 a reply
        ip.run_line_magic("operator", f"model fake-model --base-url {fake.url}")
        ip.run_cell_magic("operator_agent", f'--root "{root}" --policy auto=all --max-cost 0.5 '
                          "--price 2,10 --max-tokens 1000000", "write files")  # fmt: skip
        sent = len(fake.requests)
    agent = last_agent()
    assert (agent.result.reason, agent.result.budget) == ("budget", "cost")
    assert sent == 2 and agent.cost == pytest.approx(0.6)
    assert agent.limits == {"max_tokens": 1_000_000, "max_cost": 0.5}


def test_operator_model_lists_and_uses_the_endpoints_added_in_the_panel(
    ip: Any, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The panel's "Add model" saves to the shared list: the notebook sees the same names, and
    runs through one with its stored key (never printed)."""
    from support.fake_openai import FakeOpenAI

    from jupyter_operator.agent.endpoints import Endpoint, EndpointStore
    from jupyter_operator.kernel.agent_magics import last_agent

    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    with FakeOpenAI(key="sk-stored-for-the-kernel-99") as fake:
        EndpointStore(use_keyring=False).add(Endpoint("loopback", fake.url, "fake-model"),
                                             fake.key)  # fmt: skip
        ip.run_line_magic("operator", "model")
        shown = capsys.readouterr().out
        assert "loopback: fake-model at 127.0.0.1" in shown and "(key: stored)" in shown
        ip.run_line_magic("operator", "model loopback")
        shown = capsys.readouterr().out
        assert "endpoint: loopback (fake-model at 127.0.0.1" in shown and "* loopback" in shown
        fake.add(block("w1", "fs.write", path="k.txt", content_b64=b64("k")), "Done.")
        ip.run_cell_magic("operator_agent", f'--root "{root}" --policy auto=all', "write k")
    agent = last_agent()
    assert agent.result.reason == "done" and agent.model.base_url == fake.url
    assert (root / "k.txt").read_text() == "k"
    assert fake.key not in capsys.readouterr().out
