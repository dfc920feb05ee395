"""Outputs as a kernel sends them, gathered into nbformat outputs with caps.

An endless printer or a huge plot must not fill the memory, the notebook or the model's
context, so the caps hold while iopub is read (nothing over them is kept, only counted):

- each stream keeps its first and last characters (``STREAM_KEEP`` in all) and says how many
  it dropped;
- a rich output (``display_data``, ``execute_result``) over ``OUTPUT_MAX_CHARS`` is replaced,
  where it was, by a ``text/plain`` note naming its type and size; an error's traceback keeps
  its first and last frames;
- a run keeps at most ``MAX_OUTPUTS`` outputs and ``RUN_OUTPUT_MAX_CHARS`` characters in all;
  what comes after is dropped, and a last ``stderr`` note says how much.

The numbers follow Jupyter's own: JupyterLab shows the first 50 outputs of a cell
(``maxNumberOutputs``), and the Jupyter server stops forwarding iopub output past 1,000,000
bytes a second over a 3-second window (``iopub_data_rate_limit``, ``rate_limit_window``).
"""

from __future__ import annotations

import json
from typing import Any

STREAM_KEEP = 200_000  # characters of one stream kept (head and tail) in the saved output
MAX_OUTPUTS = 50  # outputs of a run kept (JupyterLab's maxNumberOutputs)
OUTPUT_MAX_CHARS = 1_000_000  # characters of one rich output (iopub_data_rate_limit, 1 s)
RUN_OUTPUT_MAX_CHARS = 3_000_000  # characters of all outputs of a run (its 3 s window)
TRACEBACK_KEEP = 10  # frames kept at each end of a traceback over OUTPUT_MAX_CHARS
_NOTE_TEXT_KEEP = 1_000  # characters of a cut output's text/plain kept in its note


class _Stream:
    def __init__(self) -> None:
        self.head = ""
        self.tail = ""
        self.dropped = 0

    def size(self) -> int:
        return len(self.head) + len(self.tail)

    def add(self, text: str, keep: int) -> None:
        """Add ``text``, keeping at most ``keep`` characters (half the head, the rest the
        latest text)."""
        room = keep // 2 - len(self.head)
        if room > 0:
            self.head += text[:room]
            text = text[room:]
        if not text:
            return
        limit = max(keep - len(self.head), 0)
        if len(text) >= limit:  # a huge chunk: keep its end without copying it whole
            self.dropped += len(self.tail) + len(text) - limit
            self.tail = text[len(text) - limit :] if limit else ""
            return
        self.tail += text
        if len(self.tail) > limit:
            cut = len(self.tail) - limit
            self.dropped += cut
            self.tail = self.tail[cut:]

    def text(self) -> str:
        if not self.dropped:
            return self.head + self.tail
        return f"{self.head}\n... [{self.dropped} characters dropped] ...\n{self.tail}"


def _text_size(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return sum(len(part) for part in value)
    return len(json.dumps(value, default=str))  # application/json and the like


def output_size(content: dict[str, Any]) -> int:
    """The characters an output message's content would add to a notebook (roughly)."""
    size = 0
    data = content.get("data")
    if isinstance(data, dict):
        size += sum(_text_size(value) for value in data.values())
    traceback = content.get("traceback")
    if isinstance(traceback, list):
        size += sum(_text_size(frame) for frame in traceback)
    size += _text_size(content.get("evalue") or "")
    return size


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return "".join(part if isinstance(part, str) else str(part) for part in value)
    return value if isinstance(value, str) else ""


def cut_note(kind: str, content: dict[str, Any], size: int) -> dict[str, Any]:
    """What stands where a rich output over ``OUTPUT_MAX_CHARS`` was: its kind, MIME types and
    size, and the start of its ``text/plain``, as a ``text/plain`` of the same output type."""
    data = content.get("data") if isinstance(content.get("data"), dict) else {}
    mimes = ", ".join(sorted(data)) or "no data"
    note = (f"[output not kept: a {kind} of {size:,} characters ({mimes}); a cell run keeps "
            f"at most {OUTPUT_MAX_CHARS:,} characters of one output]")  # fmt: skip
    plain = _joined(data.get("text/plain"))
    if plain:
        more = len(plain) - _NOTE_TEXT_KEEP
        note += "\n" + plain[:_NOTE_TEXT_KEEP] + (f"\n... [{more} characters cut]" if more > 0
                                                  else "")  # fmt: skip
    output: dict[str, Any] = {"output_type": kind, "data": {"text/plain": note}, "metadata": {}}
    if kind == "execute_result":
        output["execution_count"] = content.get("execution_count")
    return output


def _cut_error(content: dict[str, Any], size: int) -> dict[str, Any]:
    """An error over ``OUTPUT_MAX_CHARS`` (a deep recursion): its first and last frames, each
    cut to a share of the cap, and its value cut."""
    frames = [_joined(frame) if not isinstance(frame, str) else frame
              for frame in content.get("traceback") or []]  # fmt: skip
    share = OUTPUT_MAX_CHARS // (4 * TRACEBACK_KEEP)
    if len(frames) > 2 * TRACEBACK_KEEP:
        gone = len(frames) - 2 * TRACEBACK_KEEP
        frames = [*frames[:TRACEBACK_KEEP], f"... [{gone} frames cut: the traceback had "
                  f"{size:,} characters] ...", *frames[-TRACEBACK_KEEP:]]  # fmt: skip
    frames = [frame if len(frame) <= share else frame[:share] + " ... [cut]" for frame in frames]
    evalue = str(content.get("evalue") or "")
    return {"output_type": "error", "ename": str(content.get("ename") or ""),
            "evalue": evalue[:share], "traceback": frames}  # fmt: skip


def _capped(kind: str, content: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The nbformat output of a rich message (``display_data``, ``execute_result``,
    ``error``), over ``OUTPUT_MAX_CHARS`` cut to its note or its end frames; and its size."""
    size = output_size(content)
    if size > OUTPUT_MAX_CHARS:
        output = _cut_error(content, size) if kind == "error" else cut_note(kind, content, size)
        return output, output_size(output)
    output = {"output_type": kind, **{k: v for k, v in content.items()
                                      if k in ("data", "metadata", "execution_count", "ename",
                                               "evalue", "traceback")}}  # fmt: skip
    if kind != "error":
        output.setdefault("metadata", {})
    return output, size


def process_message(msg: dict[str, Any], cell: OutputCollector) -> bool:
    """Apply one iopub message of a cell's run to ``cell``, as nbclient's ``process_message``
    does; True once the run is complete (the kernel is ``idle`` again).

    The caller passes only the messages whose parent is the run's request. ``clear_output``
    clears at once (``wait`` or not: only the end state is kept); comm messages and anything
    unknown are ignored.
    """
    kind = msg.get("msg_type") or msg.get("header", {}).get("msg_type")
    content = msg.get("content")
    if not isinstance(content, dict):
        return False
    transient = content.get("transient")
    display_id = transient.get("display_id") if isinstance(transient, dict) else None
    display_id = display_id if isinstance(display_id, str) else None
    if kind == "status":
        return content.get("execution_state") == "idle"
    if kind == "execute_input":
        cell.execution_count = content.get("execution_count")
    elif kind == "stream":
        cell.add_stream(str(content.get("name") or "stdout"), _joined(content.get("text")))
    elif kind in ("display_data", "execute_result", "error"):
        cell.add_output(kind, content, display_id)
    elif kind == "update_display_data":
        if display_id is not None:
            cell.update_display(display_id, content)
    elif kind == "clear_output":
        cell.clear()
    return False


class OutputCollector:
    """The outputs of one cell run as iopub brings them (``process_message``): nbformat 4
    outputs within the caps, its execution count, and whether it raised."""

    def __init__(self) -> None:
        self._items: list[dict[str, Any] | tuple[str, _Stream]] = []
        self.execution_count: int | None = None
        self.error = False
        self.used = 0  # characters kept: rich outputs and stream text
        self.dropped_outputs = 0
        self.dropped_chars = 0
        #: Where each ``display_id`` of this run's kept outputs is (indexes into ``_items``):
        #: an ``update_display_data`` replaces them in place.
        self._displays: dict[str, list[int]] = {}

    def clear(self) -> None:
        """``clear_output``: what the cell showed so far is gone (counts of drops too)."""
        self._items, self.used, self._displays = [], 0, {}
        self.dropped_outputs = self.dropped_chars = 0

    def add_stream(self, name: str, text: str) -> None:
        """Text of the stream ``name``, joined to the stream before it when it is the same."""
        last = self._items[-1] if self._items else None
        if not (isinstance(last, tuple) and last[0] == name):
            if len(self._items) >= MAX_OUTPUTS:
                # Past the count, text joins the last stream of its name (a progress bar
                # between prints must not push the end of the output out).
                last = next((item for item in reversed(self._items)
                             if isinstance(item, tuple) and item[0] == name), None)  # fmt: skip
            else:
                last = None
            if last is None:
                if len(self._items) >= MAX_OUTPUTS + 2 or self.used >= RUN_OUTPUT_MAX_CHARS:
                    self.dropped_outputs += 1
                    self.dropped_chars += len(text)
                    return
                last = (name, _Stream())
                self._items.append(last)
        stream = last[1]
        before = stream.size()
        left = RUN_OUTPUT_MAX_CHARS - (self.used - before)
        stream.add(text, max(min(STREAM_KEEP, left), 0))
        self.used += stream.size() - before

    def add_output(self, kind: str, content: dict[str, Any],
                    display_id: str | None = None) -> None:  # fmt: skip
        """A rich output (``display_data``, ``execute_result``, ``error``) in the caps."""
        if kind == "error":
            self.error = True
        if kind == "execute_result":
            self.execution_count = content.get("execution_count", self.execution_count)
        if display_id is not None:  # a display shown again updates where it was shown before
            self.update_display(display_id, content)
        output, size = _capped(kind, content)
        over = len(self._items) >= MAX_OUTPUTS or self.used + size > RUN_OUTPUT_MAX_CHARS
        # The error (why the cell failed) and the result (its value) come once a run, within
        # the cap of one output: always kept.
        if over and kind not in ("error", "execute_result"):
            self.dropped_outputs += 1
            self.dropped_chars += size
            return
        if display_id is not None:
            self._displays.setdefault(display_id, []).append(len(self._items))
        self._items.append(output)
        self.used += size

    def update_display(self, display_id: str, content: dict[str, Any]) -> None:
        """Give the kept outputs of ``display_id`` the new data and metadata (each within the
        cap of one output; one that would pass the run's cap becomes its note)."""
        for index in self._displays.get(display_id, []):
            old = self._items[index]
            assert isinstance(old, dict)  # displays are rich outputs, never streams
            kind = old["output_type"]
            new, size = _capped(kind, content)
            before = output_size(old)
            if self.used - before + size > RUN_OUTPUT_MAX_CHARS:
                new = cut_note(kind, content, size)
                size = output_size(new)
            if "execution_count" in old:
                new["execution_count"] = old["execution_count"]
            self._items[index] = new
            self.used += size - before

    def outputs(self) -> list[dict[str, Any]]:
        """The outputs so far, in order (nbformat 4 shapes), and a note of what was dropped."""
        found: list[dict[str, Any]] = []
        for item in self._items:
            if isinstance(item, tuple):
                found.append({"output_type": "stream", "name": item[0], "text": item[1].text()})
            else:
                found.append(item)
        if self.dropped_outputs:
            found.append({"output_type": "stream", "name": "stderr",
                          "text": f"[{self.dropped_outputs} more outputs ({self.dropped_chars:,} "
                                  f"characters) not kept: a cell run keeps at most {MAX_OUTPUTS} "
                                  f"outputs and {RUN_OUTPUT_MAX_CHARS:,} characters]\n"})
        return found
