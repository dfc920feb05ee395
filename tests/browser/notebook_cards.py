"""The notebook's run widget in a real page: its cards are the panel's (``.jp-Operator-card``
with ``data-id``, ``data-kind`` and ``data-status``), inside ``.jp-Operator-run-widget``."""

from __future__ import annotations

import re
from typing import Any

#: A card of a notebook run (never the side panel's).
CARD = ".jp-Operator-run-widget .jp-Operator-card"
#: An added line of a card's diff.
ADDED = ".jp-Operator-diff .jp-Operator-line-add"

#: The action buttons by what they say.
BUTTONS = {
    "Approve": ".jp-Operator-approve",
    "Run": ".jp-Operator-approve",
    "Approve & Run": ".jp-Operator-approve-run",
    "Edit": ".jp-Operator-edit-button",
    "Reject": ".jp-Operator-reject",
    "Reject with reason": ".jp-Operator-reject-reason",
}


def cards(scope: Any, *, kind: str | None = None) -> Any:
    """Every card under ``scope`` (of one kind: ``mutation``, ``read``, ``shell``, ``run``)."""
    return scope.locator(CARD + (f"[data-kind='{kind}']" if kind else ""))


def card_by_id(scope: Any, command_id: str) -> Any:
    """The card of one command id."""
    return scope.locator(f"{CARD}[data-id='{command_id}']")


def card_for(scope: Any, path: str) -> Any:
    """The mutation card of a path."""
    exact = re.compile(rf"^{re.escape(path)}$")
    # A `has` locator is matched inside each card: it is made from the page, not the scope.
    page = getattr(scope, "page", scope)
    path_node = page.locator(".jp-Operator-card-path", has_text=exact)
    return cards(scope, kind="mutation").filter(has=path_node)


def button(card: Any, label: str) -> Any:
    """A card's action button (``Approve``, ``Reject``, ``Approve & Run``...)."""
    return card.locator(BUTTONS[label])


def status_is(card: Any, status: str, timeout: float = 30_000) -> None:
    """Wait until the card shows ``status`` (``pending``, ``applied``, ``rejected``...)."""
    card.locator(f".jp-Operator-status-{status}").wait_for(timeout=timeout)


def approve(card: Any, label: str = "Approve") -> None:
    """Wait for the card to ask, click Approve (or ``label``), wait until it is applied."""
    status_is(card, "pending", timeout=60_000)
    button(card, label).click()


def results_box(scope: Any) -> Any:
    """The results for the model (shown once nothing waits)."""
    return scope.locator(".jp-Operator-run-widget .jp-Operator-results-text")
