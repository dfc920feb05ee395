"""The magics in a real IPython shell."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from support.operator_replies import block, reply, write_block
from support.widget_front import Front

import jupyter_operator
from jupyter_operator.kernel.magics import last_view
from jupyter_operator.kernel.operators import session
from jupyter_operator.protocol import parse_results


def run_cell(ip: Any, line: str, cell: str) -> Any:
    ip.run_cell_magic("operator", line, cell)
    return jupyter_operator.last_run()


def test_cell_magic_plans_without_writing(ip: Any, workspace: Path) -> None:
    (workspace / "hello.txt").write_text("hi\n")
    text = reply(block("r1", "fs.read", "hello.txt"), write_block("w1", "new.txt", "made\n"))
    run = run_cell(ip, f"--root {workspace}", text)
    assert [(i.id, i.status) for i in run.items] == [("r1", "done"), ("w1", "pending")]
    assert not (workspace / "new.txt").exists()
    view = last_view()
    assert view.engine_run is run and len(view.run["items"]) == 2
    run.approve("w1")  # the Python API, as the notebooks use it
    assert (workspace / "new.txt").read_text() == "made\n"
    assert Front(view).card("w1")["status"] == "applied"  # the cards follow
    assert [r.id for r in parse_results(run.results_text)] == ["r1", "w1"]


def test_root_defaults_to_the_working_directory(
    ip: Any, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(workspace)
    run = run_cell(ip, "", write_block("w1", "here.txt", "x"))
    run.approve_all()
    assert (workspace / "here.txt").read_text() == "x"


def test_root_subcommand_sets_the_workspace(ip: Any, workspace: Path, capsys: Any) -> None:
    ip.run_line_magic("operator", f"root {workspace}")
    assert str(workspace.resolve()) in capsys.readouterr().out
    run_cell(ip, "", write_block("w1", "a.txt", "A")).approve("w1")
    assert (workspace / "a.txt").read_text() == "A"


def test_duplicate_ids_are_tracked_across_cells(ip: Any, workspace: Path) -> None:
    ip.run_line_magic("operator", f"root {workspace}")
    first = run_cell(ip, "", write_block("w1", "a.txt", "A"))
    assert len(first.items) == 1
    first.approve("w1")
    # The same cell run again shows the earlier run's cards as decided, not "0 commands".
    again = run_cell(ip, "", write_block("w1", "a.txt", "A"))
    assert again is first and last_view().engine_run is first
    heading = last_view_for(ip, first)
    assert "already ran in this session" in heading
    assert Front(last_view()).card("w1")["status"] == "applied"
    # A reply mixing old and new ids runs the new ones and lists the skipped ones.
    mixed = run_cell(ip, "", write_block("w1", "a.txt", "A") + write_block("w2", "b.txt", "B"))
    assert [i.id for i in mixed.items] == ["w2"] and mixed.skipped_duplicates == ("w1",)
    heading = last_view_for(ip, mixed)
    assert "Already ran earlier in this session, skipped: w1." in heading
    third = run_cell(ip, "", write_block("w1", "a.txt", "different"))
    assert third.items[0].error_code == "ERR_DUPLICATE_ID"


def last_view_for(ip: Any, run: Any) -> str:
    view = last_view()
    assert view.engine_run is run
    return " ".join(view.run["notes"])


def test_run_variable(ip: Any, workspace: Path) -> None:
    ip.user_ns["answer"] = reply(write_block("w1", "v.txt", "from a variable"))
    ip.run_line_magic("operator", f"run answer --root {workspace}")
    run = jupyter_operator.last_run()
    run.approve("w1")
    assert (workspace / "v.txt").read_text() == "from a variable"


def test_policy_show_and_set(ip: Any, workspace: Path, capsys: Any) -> None:
    ip.run_line_magic("operator", "policy")
    assert "default: auto reads, ask for every change" in capsys.readouterr().out
    ip.run_line_magic("operator", "policy auto=reads deny=fs.delete")  # the older form
    assert "1  deny fs.delete **" in capsys.readouterr().out
    (workspace / "b.txt").write_text("keep")
    text = reply(block("d1", "fs.delete", "b.txt"), write_block("w1", "a.txt", "A"))
    run = run_cell(ip, f"--root {workspace}", text)
    assert [i.status for i in run.items] == ["denied", "pending"]
    ip.run_line_magic("operator", "policy auto=reads,writes")
    run = run_cell(ip, f"--root {workspace}", write_block("w2", "c.txt", "C"))
    assert run.items[0].status == "applied" and (workspace / "c.txt").read_text() == "C"


def test_dry_run_shows_diffs_and_writes_nothing(ip: Any, workspace: Path, capsys: Any) -> None:
    (workspace / "a.txt").write_text("old\n")
    text = reply(block("r1", "fs.read", "a.txt"), write_block("w1", "a.txt", "new\n"))
    run = run_cell(ip, f"--root {workspace} --dry-run", text)
    assert [i.status for i in run.items] == ["done", "rejected"]
    assert (workspace / "a.txt").read_text() == "old\n"
    state = last_view().run
    card = Front(last_view()).card("w1")
    assert "+new" in card["diff"]  # shown ...
    assert "dry run" in run.results_text  # ... and refused, with the reason for the model
    assert state["title"] == "Operator (dry run: nothing is written)"
    # ... but not offered for copying as if the model should get them.
    assert state["dry_run"] is True
    assert "these results are not for the model" in " ".join(state["notes"])
    ip.run_line_magic("operator", "results")
    assert "was a dry run" in capsys.readouterr().out
    # A dry run does not use up the ids: the real run afterwards still asks.
    real = run_cell(ip, f"--root {workspace}", text)
    assert [i.status for i in real.items] == ["done", "pending"]


def test_undo_and_history(ip: Any, workspace: Path, capsys: Any) -> None:
    ip.run_line_magic("operator", f"root {workspace}")
    (workspace / "a.txt").write_text("before\n")
    run = run_cell(ip, "", write_block("w1", "a.txt", "after\n"))
    run.approve("w1")
    cards = Front(last_view())
    capsys.readouterr()
    ip.run_line_magic("operator", "history")
    out = capsys.readouterr().out
    assert "fs.write" in out and "a.txt" in out and "w1" in out
    history = next(iter(session().history_views))
    assert history.history["history"][0]["undone"] is False
    ip.run_line_magic("operator", "undo")
    assert "Undone: fs.write a.txt" in capsys.readouterr().out
    # The history widget on screen follows an undo made elsewhere.
    assert history.history["history"][0]["undone"] is True
    assert (workspace / "a.txt").read_text() == "before\n"
    # The card and the results for the model say what is true now.
    assert cards.card("w1")["status"] == "undone"
    [result] = parse_results(run.results_text)
    assert not result.ok and "Undone" in result.summary
    assert "[Undone] fs.write a.txt (w1)" in last_view()._repr_mimebundle_()[0]["text/plain"]
    ip.run_line_magic("operator", "history")
    assert "undone" in capsys.readouterr().out
    ip.run_line_magic("operator", "undo")  # nothing left: said plainly, not as an error
    assert "Nothing to undo" in capsys.readouterr().out
    with pytest.raises(UsageError, match=r"cannot undo: .*j9"):
        ip.run_line_magic("operator", "undo j9")


def test_results_prints_the_last_results(ip: Any, workspace: Path, capsys: Any) -> None:
    run = run_cell(ip, f"--root {workspace}", write_block("w1", "a.txt", "A"))
    run.reject("w1", reason="no")
    capsys.readouterr()
    ip.run_line_magic("operator", "results")
    out = capsys.readouterr().out
    assert out.strip() == run.results_text.strip()
    assert "OPERATOR_RESULT" in out and "ERR_REJECTED" in out


def test_spec_shows_the_interface_spec_in_a_copy_box(ip: Any, monkeypatch: Any) -> None:
    shown: list[Any] = []
    monkeypatch.setattr("IPython.display.display", lambda obj, **kw: shown.append(obj))
    ip.run_line_magic("operator", "spec")
    [box] = shown
    assert box.value.startswith("Operator Interface Specification (version: 3)")
    assert "assistant's normal message stream" in box.value
    assert box.copy_button.description == "Copy"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("frobnicate", "unknown subcommand 'frobnicate'"),
        ("root /no/such/folder/here", "not an existing folder"),
        ("policy auto=everything", "unknown action or group 'everything'"),
        ("policy allow=reads", "line 1: expected auto, ask or deny, got 'allow=reads'"),
        ("run", "usage: %operator run VARIABLE"),
        ("run missing_variable", "no variable named 'missing_variable'"),
        ("results", "no %%operator run yet"),
        ("undo a b", "usage: %operator undo [ID]"),
        ("root 'unbalanced", "cannot read the options"),
    ],
)
def test_usage_mistakes_are_one_line(ip: Any, line: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("operator", line)
    assert message in str(info.value)
    assert info.type is UsageError  # exactly UsageError: IPython shows it without a traceback


def test_non_string_variable_is_refused(ip: Any) -> None:
    ip.user_ns["number"] = 42
    with pytest.raises(UsageError, match="number is a int, not a string"):
        ip.run_line_magic("operator", "run number")


@pytest.mark.parametrize(
    ("line", "message"),
    [("--frobnicate", "unknown option --frobnicate"), ("--root", "--root needs a folder"),
     ("stray", "unexpected 'stray'")],
)  # fmt: skip
def test_cell_option_mistakes(ip: Any, line: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        ip.run_cell_magic("operator", line, "text")


def test_usage_error_in_a_cell_prints_one_line(ip: Any, capsys: Any) -> None:
    result = ip.run_cell("%operator frobnicate")
    assert type(result.error_in_exec) is UsageError
    err = capsys.readouterr().err
    assert "UsageError: operator: unknown subcommand 'frobnicate'" in err
    assert "Traceback" not in err


def test_unload_removes_the_magics(ip: Any) -> None:
    ip.run_line_magic("unload_ext", "jupyter_operator")
    assert "operator" not in ip.magics_manager.magics["line"]
    assert "operator" not in ip.magics_manager.magics["cell"]
    ip.run_line_magic("load_ext", "jupyter_operator")
    assert "operator" in ip.magics_manager.magics["cell"]


def test_undo_from_the_history_widget_updates_the_card_and_results(
    ip: Any, workspace: Path
) -> None:
    ip.run_line_magic("operator", f"root {workspace}")
    run = run_cell(ip, "", write_block("w1", "a.txt", "A\n") + write_block("w2", "b.txt", "B\n"))
    run.approve_all()
    view = last_view()
    ip.run_line_magic("operator", "history")
    history = next(iter(session().history_views))
    older = next(e for e in history.history["history"] if e["command_id"] == "w1")
    # Undo on the older entry, as the view sends it.
    undo = Front(history).request(kind="undo", entry_id=older["entry_id"])
    assert not (workspace / "a.txt").exists() and (workspace / "b.txt").exists()
    cards = Front(view)
    assert cards.card("w1")["status"] == "undone"
    assert cards.card("w2")["status"] == "applied"
    results = {r.id: r for r in parse_results(view.run["results_text"])}
    assert not results["w1"].ok and results["w2"].ok
    assert undo["note"] == f"Undone: fs.write a.txt (entry {older['entry_id']})"
    assert history.history["message"] == undo["note"]


def test_redo_brings_the_card_back_to_applied(ip: Any, workspace: Path, capsys: Any) -> None:
    ip.run_line_magic("operator", f"root {workspace}")
    run = run_cell(ip, "", write_block("w1", "a.txt", "A\n"))
    run.approve("w1")
    cards = Front(last_view())
    ip.run_line_magic("operator", "undo")
    assert cards.card("w1")["status"] == "undone" and not (workspace / "a.txt").exists()
    ip.run_line_magic("operator", "redo")
    assert "Redone: fs.write a.txt" in capsys.readouterr().out
    assert cards.card("w1")["status"] == "applied" and (workspace / "a.txt").read_text() == "A\n"
    [result] = parse_results(run.results_text)
    assert result.ok


def test_a_card_undoes_and_redoes_after_a_reset_closed_its_session(
    ip: Any, workspace: Path
) -> None:
    # %operator reset (a notebook run again from the top) closes the engine sessions; the
    # cards of earlier runs still undo and redo their changes.
    ip.run_line_magic("operator", f"root {workspace}")
    run = run_cell(ip, "", write_block("w1", "a.txt", "A\n"))
    run.approve("w1")
    cards = Front(last_view())
    ip.run_line_magic("operator", "reset")
    assert cards.request(kind="undo", entry_id=None)["note"].startswith("Undone: fs.write a.txt")
    assert cards.card("w1")["status"] == "undone" and not (workspace / "a.txt").exists()
    assert cards.request(kind="redo", entry_id=None)["note"].startswith("Redone: fs.write a.txt")
    assert (workspace / "a.txt").read_text() == "A\n"
    assert [e["command_id"] for e in cards.request(kind="history")["history"]] == ["w1"]


def test_reset_starts_a_new_session(ip: Any, workspace: Path, capsys: Any) -> None:
    ip.run_line_magic("operator", f"root {workspace}")
    run_cell(ip, "", write_block("w1", "a.txt", "A")).approve("w1")
    (workspace / "a.txt").unlink()  # a notebook resets its folder and runs again from the top
    ip.run_line_magic("operator", "reset")
    assert "New operator session" in capsys.readouterr().out
    again = run_cell(ip, "", write_block("w1", "a.txt", "A"))
    assert [(i.id, i.status) for i in again.items] == [("w1", "pending")]  # asked again
