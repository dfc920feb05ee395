"""Outputs as a kernel sends them, gathered into nbformat outputs with a cap.

An endless printer must not fill the memory, the notebook or the model's context: each stream
keeps its first ``STREAM_KEEP`` characters and its last ones, and says how much it dropped.
"""

from __future__ import annotations

from typing import Any

STREAM_KEEP = 200_000  # characters of one stream kept (head and tail) in the saved output
MAX_OUTPUTS = 200  # outputs kept besides the streams (a loop that displays)


class _Stream:
    def __init__(self) -> None:
        self.head = ""
        self.tail = ""
        self.dropped = 0

    def add(self, text: str) -> None:
        room = STREAM_KEEP // 2 - len(self.head)
        if room > 0:
            self.head += text[:room]
            text = text[room:]
        if text:
            self.tail += text
            if len(self.tail) > STREAM_KEEP // 2:
                cut = len(self.tail) - STREAM_KEEP // 2
                self.dropped += cut
                self.tail = self.tail[cut:]

    def text(self) -> str:
        if not self.dropped:
            return self.head + self.tail
        return f"{self.head}\n... [{self.dropped} characters dropped] ...\n{self.tail}"


class OutputCollector:
    """Turns iopub messages of one execution into nbformat 4 outputs."""

    def __init__(self) -> None:
        self._items: list[dict[str, Any] | tuple[str, _Stream]] = []
        self.execution_count: int | None = None
        self.error = False
        self.dropped_outputs = 0

    def add(self, kind: str, content: dict[str, Any]) -> None:
        if kind == "execute_input":
            self.execution_count = content.get("execution_count")
        elif kind == "stream":
            name = content.get("name", "stdout")
            last = self._items[-1] if self._items else None
            if not (isinstance(last, tuple) and last[0] == name):
                last = (name, _Stream())
                self._items.append(last)
            last[1].add(content.get("text", ""))
        elif kind == "clear_output":
            self._items = []
        elif kind in ("execute_result", "display_data", "error"):
            if kind == "execute_result":
                self.execution_count = content.get("execution_count", self.execution_count)
            if kind == "error":
                self.error = True
            if len(self._items) >= MAX_OUTPUTS:
                self.dropped_outputs += 1
                return
            output = {"output_type": kind, **{k: v for k, v in content.items()
                                                if k in ("data", "metadata", "execution_count",
                                                         "ename", "evalue", "traceback")}}
            if kind != "error":
                output.setdefault("metadata", {})
            self._items.append(output)

    def outputs(self) -> list[dict[str, Any]]:
        """The outputs so far, in order (nbformat 4 shapes)."""
        found: list[dict[str, Any]] = []
        for item in self._items:
            if isinstance(item, tuple):
                found.append({"output_type": "stream", "name": item[0], "text": item[1].text()})
            else:
                found.append(item)
        if self.dropped_outputs:
            found.append({"output_type": "stream", "name": "stderr",
                          "text": f"[{self.dropped_outputs} more outputs dropped]\n"})
        return found
