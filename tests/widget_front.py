"""Drive a notebook widget (run cards, history) the way its front end does (kernel-side tests)."""

from __future__ import annotations

from typing import Any


class Front:
    """Sends requests to a widget the way widget.js does and keeps its replies."""

    def __init__(self, widget: Any) -> None:
        self.widget = widget
        self.replies: list[dict[str, Any]] = []
        self._next = 0
        widget.send = self.replies.append  # type: ignore[method-assign]

    def request(self, **body: Any) -> dict[str, Any]:
        self._next += 1
        self.widget._on_message(self.widget, {**body, "request": self._next}, None)
        answer = self.replies[-1]
        assert answer["kind"] == "reply" and answer["request"] == self._next
        return answer

    def decide(self, id: str, decision: str = "approve", **more: Any) -> dict[str, Any]:
        preview = self.widget.run["previews"].get(id)
        return self.request(kind="decide", id=id, decision=decision, preview=preview, **more)

    def item(self, id: str) -> dict[str, Any]:
        return next(i for i in self.widget.run["items"] if i["id"] == id)

    def card(self, id: str) -> dict[str, Any]:
        """The item's state as the view draws it (alias of :meth:`item`)."""
        return self.item(id)
