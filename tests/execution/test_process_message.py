"""``process_message``: one iopub message of a cell's run applied to its outputs, per type."""

from __future__ import annotations

from typing import Any

from jupyter_operator.execution.streams import (
    OUTPUT_MAX_CHARS,
    RUN_OUTPUT_MAX_CHARS,
    OutputCollector,
    process_message,
)


def msg(kind: str, **content: Any) -> dict[str, Any]:
    return {"msg_type": kind, "header": {"msg_type": kind}, "parent_header": {"msg_id": "m1"},
            "content": content}  # fmt: skip


def shown(cell: OutputCollector, *messages: dict[str, Any]) -> list[dict[str, Any]]:
    for message in messages:
        assert process_message(message, cell) is False, message["msg_type"]
    return cell.outputs()


def test_status_idle_completes_the_run_and_busy_does_not() -> None:
    cell = OutputCollector()
    assert process_message(msg("status", execution_state="busy"), cell) is False
    assert process_message(msg("status", execution_state="idle"), cell) is True
    assert cell.outputs() == []


def test_execute_input_gives_the_execution_count() -> None:
    cell = OutputCollector()
    assert shown(cell, msg("execute_input", code="1", execution_count=4)) == []
    assert cell.execution_count == 4


def test_stream_text_of_one_name_joins_and_another_name_starts_an_output() -> None:
    outputs = shown(OutputCollector(), msg("stream", name="stdout", text="a\n"),
                    msg("stream", name="stdout", text="b\n"),
                    msg("stream", name="stderr", text="warn\n"))  # fmt: skip
    assert outputs == [{"output_type": "stream", "name": "stdout", "text": "a\nb\n"},
                       {"output_type": "stream", "name": "stderr", "text": "warn\n"}]  # fmt: skip


def test_display_data_is_an_output_with_its_metadata() -> None:
    outputs = shown(OutputCollector(), msg("display_data", data={"text/plain": "x"}))
    assert outputs == [{"output_type": "display_data", "data": {"text/plain": "x"},
                        "metadata": {}}]  # fmt: skip


def test_execute_result_is_an_output_and_gives_the_execution_count() -> None:
    cell = OutputCollector()
    outputs = shown(cell, msg("execute_result", data={"text/plain": "42"}, metadata={},
                              execution_count=3))  # fmt: skip
    assert outputs == [{"output_type": "execute_result", "data": {"text/plain": "42"},
                        "metadata": {}, "execution_count": 3}]  # fmt: skip
    assert cell.execution_count == 3 and not cell.error


def test_error_is_an_output_and_marks_the_run_failed() -> None:
    cell = OutputCollector()
    outputs = shown(cell, msg("error", ename="ValueError", evalue="no", traceback=["tb"]))
    assert outputs == [{"output_type": "error", "ename": "ValueError", "evalue": "no",
                        "traceback": ["tb"]}]  # fmt: skip
    assert cell.error


def test_clear_output_removes_what_was_shown_before_it_wait_or_not() -> None:
    for wait in (False, True):
        outputs = shown(OutputCollector(), msg("stream", name="stdout", text="10%\n"),
                        msg("display_data", data={"text/plain": "bar"}),
                        msg("clear_output", wait=wait),
                        msg("stream", name="stdout", text="100%\n"))  # fmt: skip
        assert outputs == [{"output_type": "stream", "name": "stdout", "text": "100%\n"}], wait


def test_update_display_data_replaces_the_display_where_it_was_shown() -> None:
    cell = OutputCollector()
    outputs = shown(
        cell,
        msg("display_data", data={"text/plain": "0%"}, metadata={}, transient={"display_id": "p"}),
        msg("stream", name="stdout", text="between\n"),
        msg("update_display_data", data={"text/plain": "100%"}, metadata={"k": 1},
            transient={"display_id": "p"}),
        msg("update_display_data", data={"text/plain": "lost"}, transient={"display_id": "nope"}),
    )  # fmt: skip
    assert outputs == [
        {"output_type": "display_data", "data": {"text/plain": "100%"}, "metadata": {"k": 1}},
        {"output_type": "stream", "name": "stdout", "text": "between\n"},
    ]  # an update keeps its place; one of an unknown display shows nothing
    assert cell.used == len("100%") + len("between\n")


def test_a_display_shown_again_updates_its_earlier_places_too() -> None:
    """As nbclient and JupyterLab do: every output of a display_id shows its latest data."""
    outputs = shown(OutputCollector(),
                    msg("display_data", data={"text/plain": "old"}, transient={"display_id": "d"}),
                    msg("display_data", data={"text/plain": "new"}, transient={"display_id": "d"}))
    assert [output["data"]["text/plain"] for output in outputs] == ["new", "new"]


def test_an_update_keeps_the_caps() -> None:
    """A huge update becomes the note of one output, like a huge display; what iopub brings
    never passes the run's cap through updates."""
    cell = OutputCollector()
    shown(cell, msg("display_data", data={"text/plain": "small"}, transient={"display_id": "d"}))
    (output,) = shown(cell, msg("update_display_data", data={"text/plain": "y" * (OUTPUT_MAX_CHARS
                                                                                  + 1)},
                                transient={"display_id": "d"}))  # fmt: skip
    assert output["data"]["text/plain"].startswith("[output not kept: a display_data of")
    for n in range(10):
        shown(cell, msg("display_data", data={"text/plain": "z" * 290_000},
                        transient={"display_id": f"e{n}"}))  # fmt: skip
    for n in range(10):
        shown(cell, msg("update_display_data", data={"text/plain": "w" * 900_000},
                        transient={"display_id": f"e{n}"}))  # fmt: skip
        assert cell.used <= RUN_OUTPUT_MAX_CHARS


def test_a_cleared_display_is_not_brought_back_by_its_update() -> None:
    outputs = shown(OutputCollector(),
                    msg("display_data", data={"text/plain": "a"}, transient={"display_id": "d"}),
                    msg("clear_output", wait=False),
                    msg("stream", name="stdout", text="after\n"),
                    msg("update_display_data", data={"text/plain": "b"},
                        transient={"display_id": "d"}))  # fmt: skip
    assert outputs == [{"output_type": "stream", "name": "stdout", "text": "after\n"}]


def test_other_messages_and_malformed_ones_are_ignored() -> None:
    cell = OutputCollector()
    assert shown(cell, msg("comm_msg", comm_id="c", data={}), msg("execute_reply"),
                 {"msg_type": "stream", "content": None},
                 msg("update_display_data", data={"text/plain": "x"}, transient=None),
                 msg("update_display_data", data={"text/plain": "x"},
                     transient={"display_id": 7})) == []  # fmt: skip
    outputs = shown(cell, msg("display_data", data={"text/plain": "y"}, transient=None))
    assert outputs == [{"output_type": "display_data", "data": {"text/plain": "y"},
                        "metadata": {}}]  # fmt: skip
