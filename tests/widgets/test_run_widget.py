"""The notebook's run widget: its state (the server's item JSON) and the view's requests,
sent as the front end sends them (custom messages with a number) against the real engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.operator_replies import block, reply, write_block
from support.widget_front import Front, require_built_cards

from jupyter_operator.engine import Operator
from jupyter_operator.protocol import parse_results
from jupyter_operator.widgets.run_widget import RunWidget, preview_token


def widget_for(root: Path, text: str, **options: Any) -> tuple[RunWidget, Front]:
    widget = RunWidget(Operator(root).run(text), **options)
    return widget, Front(widget)


def test_the_state_is_the_items_as_the_server_sends_them(workspace: Path) -> None:
    widget, _front = widget_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    run = widget.engine_run
    state = widget.run
    assert state["items"] == [run.items[0].to_dict()]
    assert state["items"][0]["status"] == "pending" and "+A" in state["items"][0]["diff"]
    assert state["previews"] == {"w1": preview_token(run.items[0])}
    assert state["done"] is False and state["results_text"] == ""
    assert state["dialect"] == "operator" and state["can_edit"] is True
    assert state["title"] == "Operator" and state["notes"] == []


def test_approve_writes_the_file_and_the_state_follows(workspace: Path) -> None:
    widget, front = widget_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    assert not (workspace / "a.txt").exists()  # nothing before the decision

    answer = front.decide("w1")

    assert answer == {"kind": "reply", "request": 1}
    assert (workspace / "a.txt").read_bytes() == b"A\n"
    assert front.item("w1")["status"] == "applied"
    assert widget.run["done"] is True and widget.run["previews"] == {}
    [result] = parse_results(widget.run["results_text"])
    assert result.id == "w1" and result.ok


def test_a_stale_preview_decides_nothing(workspace: Path) -> None:
    (workspace / "a.txt").write_text("old\n")
    _widget, front = widget_for(workspace, reply(write_block("w1", "a.txt", "new\n")))

    answer = front.request(kind="decide", id="w1", decision="approve", preview="not-this-one")

    assert answer["stale"] is True and "changed since it was shown" in answer["error"]
    assert (workspace / "a.txt").read_text() == "old\n"
    assert front.item("w1")["status"] == "pending"


def test_reject_with_a_reason_tells_the_model(workspace: Path) -> None:
    widget, front = widget_for(workspace, reply(write_block("w1", "a.txt", "A\n")))

    front.decide("w1", "reject", reason="use b.txt instead")

    assert not (workspace / "a.txt").exists()
    assert front.item("w1")["status"] == "rejected"
    [result] = parse_results(widget.run["results_text"])
    assert not result.ok and result.code == "ERR_REJECTED"
    assert "use b.txt instead" in widget.run["results_text"]


def test_deciding_twice_says_so_and_changes_nothing(workspace: Path) -> None:
    _widget, front = widget_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    front.decide("w1")
    (workspace / "a.txt").write_text("changed by hand\n")

    answer = front.request(kind="decide", id="w1", decision="reject", preview=None)

    assert "already" in answer["note"]
    assert (workspace / "a.txt").read_text() == "changed by hand\n"
    assert front.item("w1")["status"] == "applied"


def test_approve_all_and_reject_all(workspace: Path) -> None:
    text = reply(write_block("w1", "a.txt", "A\n"), write_block("w2", "b.txt", "B\n"))
    widget, front = widget_for(workspace, text)
    front.request(kind="decide_all", decision="approve")
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt", "b.txt"]
    assert widget.run["done"]

    other, front2 = widget_for(workspace, reply(write_block("w3", "c.txt", "C\n")))
    front2.request(kind="decide_all", decision="reject", reason="not now")
    assert not (workspace / "c.txt").exists()
    assert "not now" in other.run["results_text"]


def test_edit_then_approve_writes_the_persons_text(workspace: Path) -> None:
    (workspace / "a.txt").write_text("one\n")
    _widget, front = widget_for(workspace, reply(write_block("w1", "a.txt", "two\n")))

    content = front.request(kind="content", id="w1")["content"]
    assert content == {"id": "w1", "path": "a.txt", "editable": True,
                       "proposed": "two\n", "original": "one\n"}  # fmt: skip
    front.decide("w1", content="three\n")

    assert (workspace / "a.txt").read_text() == "three\n"
    item = front.item("w1")
    assert item["status"] == "applied" and item["edited"] is True
    assert "+three" in item["diff"]  # the diff of what was written


def test_a_refused_edit_leaves_the_item_pending(workspace: Path) -> None:
    # A notebook edited into text that is not a notebook is refused (BadEdit).
    (workspace / "n.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, '
                                       '"nbformat_minor": 5}')  # fmt: skip
    new = '{"cells": [], "metadata": {"x": 1}, "nbformat": 4, "nbformat_minor": 5}'
    _widget, front = widget_for(workspace, reply(write_block("w1", "n.ipynb", new)))

    answer = front.decide("w1", content="not json at all")

    assert answer["error"].startswith("operator: ")
    assert front.item("w1")["status"] == "pending"
    assert '"x"' not in (workspace / "n.ipynb").read_text()


def test_history_and_undo_from_the_view(workspace: Path) -> None:
    operator = Operator(workspace)
    run = operator.run(reply(write_block("w1", "a.txt", "A\n")))
    undone: list[str | None] = []

    def undo(entry_id: str | None) -> str:
        undone.append(entry_id)
        entry = operator.undo(entry_id)
        return f"Undone: {entry.path}"

    def history() -> dict[str, Any]:
        return {"history": [e.to_dict() for e in operator.history()], "executions": []}

    widget = RunWidget(run, undo=undo, history=history)
    front = Front(widget)
    front.decide("w1")
    [entry] = front.request(kind="history")["history"]
    assert entry["path"] == "a.txt" and entry["undone"] is False

    answer = front.request(kind="undo", entry_id=entry["entry_id"])

    assert answer["note"] == "Undone: a.txt" and undone == [entry["entry_id"]]
    assert not (workspace / "a.txt").exists()
    assert front.item("w1")["status"] == "undone"  # the engine told the run; the state follows
    no_redo = front.request(kind="redo", entry_id=None)
    assert no_redo["error"] == "operator: redo is not available here"


def test_decisions_made_from_python_reach_the_view(workspace: Path) -> None:
    widget, _front = widget_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    widget.engine_run.approve("w1")
    assert widget.run["items"][0]["status"] == "applied"


def test_a_dry_run_decides_nothing(workspace: Path) -> None:
    widget, front = widget_for(workspace, reply(write_block("w1", "a.txt", "A\n")), dry_run=True)
    assert widget.run["can_edit"] is False and widget.run["dry_run"] is True
    assert front.decide("w1")["error"] == "operator: a dry run decides nothing"
    assert front.request(kind="decide_all", decision="approve")["error"]
    assert not (workspace / "a.txt").exists()


@pytest.mark.parametrize(
    "body",
    [{"kind": "explode"}, {"kind": "decide", "id": "nope", "decision": "approve"},
     {"kind": "decide", "id": "w1", "decision": "maybe", "preview": None}],
)  # fmt: skip
def test_bad_requests_get_an_error_reply_and_change_nothing(workspace: Path, body: dict) -> None:
    _widget, front = widget_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    if body.get("decision") == "maybe":
        body["preview"] = front.widget.run["previews"]["w1"]
    answer = front.request(**body)
    assert answer["error"].startswith("operator: ")
    assert not (workspace / "a.txt").exists()


def test_messages_without_a_request_number_are_ignored(workspace: Path) -> None:
    widget, front = widget_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    widget._on_message(widget, {"kind": "decide", "id": "w1", "decision": "approve"}, None)
    widget._on_message(widget, "approve everything", None)
    assert front.replies == [] and not (workspace / "a.txt").exists()


def test_at_most_three_widget_models_per_run_whatever_its_size(workspace: Path) -> None:
    from ipywidgets.widgets.widget import _instances

    counts = []
    for size in (1, 60, 200):
        before = len(_instances)
        blocks = (write_block(f"w{size}-{i}", f"f{size}-{i}.txt", f"{i}\n") for i in range(size))
        widget_for(workspace, reply(*blocks))
        counts.append(len(_instances) - before)
    # The first run opens the widget and the layout every run's widget shares; then one each.
    assert counts == [2, 1, 1]


def test_the_saved_view_is_escaped_html_of_the_same_state(workspace: Path) -> None:
    text = reply(write_block("w1", "x.txt", '<img src=x onerror="alert(1)">\n'),
                 block("r1", "fs.read", "missing.txt"))  # fmt: skip
    widget, front = widget_for(workspace, text)
    front.request(kind="decide_all", decision="approve")
    data, _meta = widget._repr_mimebundle_()
    html = data["text/html"]
    assert "<img" not in html and "&lt;img src=x" in html
    assert "[Applied]" in html and "x.txt" in html and "ERR_NOT_FOUND" in html
    assert "id: w1" in html  # the results for the model, once nothing waits
    assert data["text/plain"].startswith("Operator run: 2 commands")
    assert widget.saved_metadata() == {"jupyter_operator": {"final": True}}


def test_the_module_is_sent_once_on_request_not_with_every_widget(workspace: Path) -> None:
    from jupyter_operator.widgets import module

    widget, front = widget_for(workspace, reply(write_block("w1", "a.txt", "A\n")))
    state = widget.get_state()
    # The widget's own module is the small loader, keyed by the module's digest.
    assert state["_esm"] == module.loader() and len(state["_esm"]) < 2_000
    assert "__jupyterOperatorCards_" in state["_esm"] and "kind: 'module'" in state["_esm"]
    widget._on_message(widget, {"kind": "module"}, None)
    assert front.replies[-1] == {"kind": "module", "source": module.source()}
    assert not (workspace / "a.txt").exists()  # asking for the module decides nothing


def test_the_module_sent_is_the_bundled_cards() -> None:
    from jupyter_operator.widgets import module

    require_built_cards()
    assert "jp-Operator-card" in module.source()  # the bundled cards (built by jlpm build)


@pytest.mark.parametrize(("ci", "outcome"), [(None, pytest.skip.Exception),
                                             ("true", pytest.fail.Exception)])  # fmt: skip
def test_a_clone_without_the_built_cards_skips_with_its_reason_or_fails_under_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ci: str | None, outcome: type
) -> None:
    from jupyter_operator.widgets import module

    monkeypatch.setattr(module, "STATIC", tmp_path)  # a clone where jlpm build never ran
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match=r"widget\.js missing: jlpm build in labextension/"):
        require_built_cards()


def test_a_long_read_sends_its_first_lines_and_how_many_more(workspace: Path) -> None:
    (workspace / "long.txt").write_text("".join(f"line {i}\n" for i in range(1_000)))
    widget, _front = widget_for(workspace, reply(block("r1", "fs.read", "long.txt")))
    [item] = widget.run["items"]
    assert item["details"].endswith("line 199\n") and "line 200" not in item["details"]
    assert item["details_more"] == sum(len(f"line {i}\n") for i in range(200, 1_000))
    # The model still gets the whole file.
    [result] = parse_results(widget.run["results_text"])
    assert result.details is not None and result.details.endswith("line 999\n")
