"""Drive a notebook widget (run cards, history) the way its front end does (kernel-side tests)."""

from __future__ import annotations

import os
from typing import Any

import pytest


def require_built_cards() -> None:
    """Skip, saying why, when the cards' front end (``static/widget.js``) was not built in this
    clone (``jlpm build`` in labextension/); under CI a missing build is an error."""
    from jupyter_operator.widgets import module

    bundle = module.STATIC / "widget.js"
    if bundle.is_file():
        return
    message = (f"the cards' front end is not built ({bundle.name} missing: jlpm build in "
               "labextension/)")
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


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
