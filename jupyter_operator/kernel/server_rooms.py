"""Whether the Jupyter server that started this kernel holds a notebook or text file in a
collaborative room.

A change the kernel's magics approve is written to the file unless the notebook's page takes
it (``live_runs.OwnPage``). A notebook or text file open in a room (jupyter-collaboration) is
the room's shared document, which the room saves itself: a file written beneath it is reloaded
into the room, which wipes every collaborator's undo history. The kernel cannot edit the
server's rooms, so before writing a file it asks the server (``GET
jupyter-operator/api/rooms?path=``, with the server's own address and token from its runtime
file ``jpserver-<pid>.json``, the pid being ``JPY_PARENT_PID``, which jupyter_client sets for
the kernels it starts); a room holding it refuses the change (``engine/live_route.py``:
``beneath_room``).

No server started this kernel (a console, nbclient): no room can hold anything for it. A server
that does not answer is taken to hold the notebook when jupyter-collaboration is installed
here (refused rather than written beneath a room), and not to otherwise.

A change the person approved in this kernel to another notebook or text file a room holds is
applied in that room by the server, on the kernel's behalf (``ServerRoomEdits``, the engine's
``LiveRooms``): its preview is made on the room's document (``GET rooms?path=&content=1``) and
the approved cell edits, or the previewed and new text, are sent with ``POST rooms``, with the
same token. The server checks the path against its workspaces' jail and applies them with the
same guards as its own room changes (``ERR_STALE_PREVIEW`` naming the cell); the kernel's
journal records the change with ``route="room"``. A server that cannot be reached edits
nothing: the change is refused as before.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: How long the kernel waits for the server's answer.
ANSWER_SECONDS = 5.0
ROUTE = "jupyter-operator/api/rooms"

#: The largest answer read from the server (a room's document as JSON text).
CONTENT_LIMIT = 64 * 1024 * 1024
#: The largest list of open files read from the server.
LIST_LIMIT = 1024 * 1024

Ask = Callable[[str, dict[str, str]], dict[str, Any]]


def parent_server() -> dict[str, Any] | None:
    """The runtime information (``url``, ``token``, ...) of the server that started this
    kernel, or None."""
    pid = os.environ.get("JPY_PARENT_PID", "")
    if not pid.isdigit():
        return None
    try:
        from jupyter_core.paths import jupyter_runtime_dir

        info = json.loads((Path(jupyter_runtime_dir()) / f"jpserver-{pid}.json").read_text())
    except (ImportError, OSError, ValueError):
        return None
    return info if isinstance(info, dict) and isinstance(info.get("url"), str) else None


def _ask(url: str, headers: dict[str, str], data: bytes | None = None,
         limit: int = 4096) -> dict[str, Any]:  # fmt: skip
    request = urllib.request.Request(url, headers=headers, data=data,
                                     method="GET" if data is None else "POST")  # fmt: skip
    with urllib.request.urlopen(request, timeout=ANSWER_SECONDS) as answer:
        raw = answer.read(limit + 1)
    if len(raw) > limit:
        raise ValueError("the server's answer is too large")
    body = json.loads(raw)
    if not isinstance(body, dict):
        raise ValueError("the server's answer is not an object")
    return body


def collaboration_installed() -> bool:
    """Whether jupyter-collaboration's server extension is installed here."""
    return importlib.util.find_spec("jupyter_server_ydoc") is not None


class ServerRooms:
    """The rooms of the server that started this kernel, as the engine's ``RoomHolders``."""

    def __init__(self, server: dict[str, Any] | None = None, ask: Ask | None = None,
                 collaboration: Callable[[], bool] = collaboration_installed) -> None:  # fmt: skip
        self._server = server if server is not None else parent_server()
        self._ask = ask
        self._collaboration = collaboration

    def _url(self, **query: str) -> str | None:
        server = self._server
        if server is None:
            return None
        url = str(server["url"]).rstrip("/") + "/" + ROUTE
        return url + "?" + urllib.parse.urlencode(query) if query else url

    def _headers(self) -> dict[str, str]:
        token = (self._server or {}).get("token")
        return {"Authorization": f"token {token}"} if token else {}

    def holds(self, path: Path) -> bool:
        """Whether a room holds the file ``path`` (absolute); see the module docstring."""
        url = self._url(path=str(path))
        if url is None:
            return False
        try:
            return (self._ask or _ask)(url, self._headers()).get("open") is True
        except Exception as exc:  # any failure is "no answer"
            log.warning("jupyter_operator: the server did not say whether a room holds %s (%s)",
                        path.name, type(exc).__name__)  # fmt: skip
            return self._collaboration()

    def holding(self, folder: Path, files: Sequence[Path]) -> Path | None:
        """The file below the folder ``folder`` (absolute) that a room holds, or None: one
        question (``GET rooms?path=&below=1``), the server listing the folder through its own
        workspaces' jail (``files``, the kernel's listing, only says there is one to ask
        about). A server that does not answer: as for ``holds`` (the folder names it)."""
        url = self._url(path=str(folder), below="1")
        if url is None or not files:
            return None
        try:
            answer = (self._ask or _ask)(url, self._headers())
        except Exception as exc:  # any failure is "no answer"
            log.warning("jupyter_operator: the server did not say whether a room holds a file "
                        "below %s (%s)", folder.name, type(exc).__name__)  # fmt: skip
            return folder if self._collaboration() else None
        if answer.get("open") is not True:
            return None
        file = answer.get("file")
        return Path(file) if isinstance(file, str) and Path(file).is_absolute() else folder

    def open_below(self, root: Path) -> list[Path]:
        """The files below the folder ``root`` (absolute) that the server's pages or rooms
        hold open: one question (``GET rooms?path=&open=1``). A server that does not answer
        names none (logged): a command then runs as it would with no server."""
        url = self._url(path=str(root), open="1")
        if url is None:
            return []
        try:
            answer = (self._ask(url, self._headers()) if self._ask is not None
                      else _ask(url, self._headers(), limit=LIST_LIMIT))  # fmt: skip
        except Exception as exc:  # any failure is "no answer"
            log.warning("jupyter_operator: the server did not say which files below %s are "
                        "open (%s)", root.name, type(exc).__name__)  # fmt: skip
            return []
        files = answer.get("files")
        if not isinstance(files, list):
            return []
        return [Path(file) for file in files if isinstance(file, str) and Path(file).is_absolute()]


#: What a change sent to a server that did not answer ends as: nothing is known to be changed.
UNANSWERED = {"state": "unanswered"}


class ServerRoomEdits(ServerRooms):
    """The rooms of the server that started this kernel, as the engine's ``LiveRooms``: a
    change approved here to a file one holds is applied there by the server (see the module
    docstring). ``beside`` holds the kernel's own notebook, whose page applies its changes
    (``live_runs.OwnPage``): that one is never sent to the server.

    ``send`` (tests) posts a JSON body: ``send(url, headers, data)`` -> the answer."""

    def __init__(self, beside: Any = None, server: dict[str, Any] | None = None,
                 ask: Ask | None = None,
                 send: Callable[[str, dict[str, str], bytes], dict[str, Any]] | None = None,
                 ) -> None:  # fmt: skip
        super().__init__(server, ask, collaboration=lambda: False)
        self._beside = beside
        self._send = send

    def holds(self, path: Path) -> bool:
        """Whether the server holds ``path`` in a room this kernel can have it edit in: a
        server that does not answer edits nothing (``ServerRooms`` refuses the disk write)."""
        if self._beside is not None and self._beside.holds(path):
            return False
        return super().holds(path)

    def open_below(self, root: Path) -> list[Path]:
        """None: the kernel's ``room_holders`` ask the same server (``ServerRooms``)."""
        return []

    def content(self, path: Path) -> bytes | None:
        """The room's document (a notebook's JSON, a text file's text) in UTF-8, or None."""
        url = self._url(path=str(path), content="1")
        if url is None or (self._beside is not None and self._beside.holds(path)):
            return None
        try:
            answer = _ask(url, self._headers(), limit=CONTENT_LIMIT)
        except Exception as exc:  # no answer: the file is the preview's base
            log.warning("jupyter_operator: the server did not send the room of %s (%s)",
                        path.name, type(exc).__name__)  # fmt: skip
            return None
        content = answer.get("content")
        return content.encode("utf-8") if answer.get("open") and isinstance(content, str) else None

    def _post(self, body: dict[str, Any]) -> dict[str, Any]:
        url = self._url()
        if url is None:
            return {"state": "gone"}
        headers = {**self._headers(), "Content-Type": "application/json"}
        data = json.dumps(body).encode("utf-8")
        try:
            answer = (self._send or _ask)(url, headers, data)
        except Exception as exc:  # no answer (or a refusal): nothing is known to be applied
            log.warning("jupyter_operator: the server did not apply a change in a room (%s)",
                        type(exc).__name__)  # fmt: skip
            return dict(UNANSWERED)
        state = answer.get("state")
        if state not in ("applied", "stale", "gone"):
            return dict(UNANSWERED)
        cell = answer.get("cell")
        return {"state": state, **({"cell": str(cell)[:200]} if cell is not None else {})}

    def apply(self, path: Path, edits: dict[str, Any], actor: str) -> dict[str, Any]:
        """Have the server apply the cell edits in the notebook's room."""
        return self._post({"path": str(path), "edits": edits, "actor": actor})

    def apply_text(self, path: Path, before: str, after: str, actor: str) -> dict[str, Any]:
        """Have the server turn the room's text from ``before`` into ``after``."""
        return self._post({"path": str(path), "before": before, "after": after,
                           "actor": actor})  # fmt: skip
