"""``--approve ask``: what a run's rules leave open is asked of a person in JupyterLab.

Each turn's waiting changes go to a running Jupyter server as a REST session (``POST
jupyter-operator/api/scan``), labelled with the experiment, the run and the turn, so the
JupyterLab panel lists it as a proposal. The session is a *review copy*: the server previews
the blocks against the bytes of the files they touch, sent from the run's own copy, in a
private folder of its own (``files``), never in a workspace it serves. So the person sees the
very diff the run would apply, and deciding changes nothing on the server's side. The run
waits (within its time budget) and reads the decisions back (``GET sessions/{id}``); each is
then made in the run's copy, and recorded (``ReviewedDecision``) in the row and the transcript:
which change, approved or rejected and why, who decided (``person``), when it was asked and
when the decision was seen.

A change whose block cannot be shown as it was planned (a field that spans lines) is not sent:
it is rejected, with the reason.
"""

from __future__ import annotations

import asyncio
import base64
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..engine import DecidableRun, Item

#: The REST API's path under the server's base URL.
API = "jupyter-operator/api/"
#: Why a change is rejected without being asked.
NOT_SHOWN = "this change could not be shown to the person for review (a field spans lines)"
#: Bytes of the run's copy one review sends at most (the server takes a review copy of 16 MiB).
MAX_SENT_BYTES = 8 * 1024 * 1024
#: Server statuses of a change the person approved (and the review copy applied).
APPROVED = ("applied", "done")


class ReviewError(RuntimeError):
    """The server could not be asked (unreachable, refused the token, answered an error)."""


@dataclass(frozen=True)
class Review:
    """Where a grid's decisions are asked: ``server`` (the Jupyter server's URL, with its base
    URL), ``token`` (its API token; never written to a row), ``experiment`` (the label's
    first word: the output folder's name), ``poll_s`` (how often a waiting run looks)."""

    server: str
    token: str | None = field(default=None, repr=False)
    experiment: str = "eval"
    poll_s: float = 0.5

    def url(self, *parts: str) -> str:
        base = self.server if self.server.endswith("/") else self.server + "/"
        return base + API + "/".join(urllib.parse.quote(part, safe="") for part in parts)

    def call(self, method: str, *parts: str, body: Any = None) -> dict[str, Any]:
        """One request to the REST API; ``ReviewError`` (one sentence) when it fails."""
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = f"token {self.token}"
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url(*parts), data=data, method=method,
                                         headers=headers)  # fmt: skip
        where = urllib.parse.urlsplit(self.server).netloc or self.server
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return dict(json.loads(answer.read()))
        except urllib.error.HTTPError as exc:
            try:
                said = json.loads(exc.read())["error"]["message"]
            except (ValueError, KeyError, TypeError):
                said = exc.reason
            raise ReviewError(f"the Jupyter server at {where} answered {exc.code}: {said}") \
                from None  # fmt: skip
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise ReviewError(f"the Jupyter server at {where} cannot be reached ({exc})") \
                from None  # fmt: skip


def check_server(review: Review) -> None:
    """One request before a grid: the server is there, runs the extension, takes the token."""
    review.call("GET", "workspaces")


def block_text(item: Item) -> str | None:
    """The item's OPERATOR_CMD block as it was planned, or None when one of its fields spans
    lines (it could not be shown as one block)."""
    command = getattr(item, "command", None)
    fields = dict(getattr(command, "fields", None) or {})
    fields.setdefault("id", item.id)
    if item.action:
        fields.setdefault("action", item.action)
    if any("\n" in f"{key}{value}" or "\r" in f"{key}{value}" for key, value in fields.items()):
        return None
    lines = ["OPERATOR_CMD", *(f"{key}: {value}" for key, value in fields.items())]
    return "\n".join([*lines, "END_OPERATOR_CMD"])


def copy_files(workspace: Path, paths: list[str]) -> dict[str, str]:
    """The files at ``paths`` in the run's copy (as they are now, base64), for the review
    copy: only plain files inside the copy, reached without a link; a path that is not one
    (a new file) is left out, and so the server previews it as new too."""
    root = workspace.resolve()
    found: dict[str, str] = {}
    sent = 0
    for path in dict.fromkeys(paths):
        target = root.joinpath(*[part for part in path.split("/") if part])
        if any(p.is_symlink() for p in [target, *target.parents] if p != root and
               p.is_relative_to(root)) or not target.resolve().is_relative_to(root):  # fmt: skip
            continue
        if not target.is_file():
            continue
        sent += target.stat().st_size  # before a byte is read
        if sent > MAX_SENT_BYTES:
            raise ReviewError(f"the files to review exceed {MAX_SENT_BYTES} bytes")
        data = target.read_bytes()
        found[target.relative_to(root).as_posix()] = base64.b64encode(data).decode("ascii")
    return found


def asking(review: Review, workspace: Path, label: Callable[[], str],
           record: Callable[[dict[str, Any]], None]) -> Callable[[DecidableRun], Any]:  # fmt: skip
    """A run's ``decide`` with a person to ask: a translated tool call is rejected (as in an
    unattended run); whatever else waits is sent to the server and decided there;
    ``record(decision)`` is told each decision made."""

    async def decide(run: DecidableRun) -> None:
        for item in list(run.pending):
            if getattr(item, "foreign", None) is not None:
                run.reject(item.id)  # the model's result names the block it meant
        waiting = list(run.pending)
        if not waiting:
            return
        shown: dict[str, str] = {}
        for item in waiting:
            text = block_text(item)
            if text is None:
                run.reject(item.id, reason=NOT_SHOWN)
            else:
                shown[item.id] = text
        if not shown:
            return
        paths = [item.path for item in waiting if item.id in shown and item.path]
        files = copy_files(workspace, paths)
        body = {"text": "\n\n".join(shown.values()), "dialect": "operator", "label": label(),
                "files": files}  # fmt: skip
        session = await asyncio.to_thread(review.call, "POST", "scan", body=body)
        asked_at = round(time.time(), 3)
        decided: dict[str, dict[str, Any]] = {}
        while len(decided) < len(shown):
            view = await asyncio.to_thread(review.call, "GET", "sessions", session["session"])
            seen_at = round(time.time(), 3)
            for server_item in view.get("items", []):
                ident = server_item.get("id")
                if ident in shown and ident not in decided and \
                        server_item.get("status") not in ("pending", "waiting"):  # fmt: skip
                    decided[ident] = {**server_item, "seen_at": seen_at}
            missing = set(shown) - {i.get("id") for i in view.get("items", [])}
            for ident in missing:  # the server did not plan it: nothing to ask
                decided.setdefault(ident, {"status": "missing", "seen_at": seen_at})
            if len(decided) < len(shown):
                await asyncio.sleep(review.poll_s)
        for ident, server_item in decided.items():
            status = server_item.get("status")
            if status in APPROVED:
                run.approve(ident)
                reason = None
            else:
                reason = _reason(server_item)
                run.reject(ident, reason=reason)
            record({"server": urllib.parse.urlsplit(review.server).netloc,
                    "session": session["session"], "id": ident,
                    "decision": "approve" if status in APPROVED else "reject",
                    "server_status": status, "reason": reason,
                    "decided_by": server_item.get("decided_by"),
                    "asked_at": asked_at, "decided_at": server_item["seen_at"]})  # fmt: skip

    return decide


def _reason(server_item: dict[str, Any]) -> str:
    """Why a change came back not approved, from the server's view of it."""
    status = server_item.get("status")
    if status == "rejected":
        summary = str(server_item.get("summary") or "")
        _, said, reason = summary.partition("Reason: ")
        return reason.strip() if said else "the person rejected it"
    if status == "missing":
        return "the server did not plan this change"
    return f"the review copy could not carry it out ({status})"
