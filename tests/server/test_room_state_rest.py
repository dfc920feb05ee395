"""``GET rooms?path=``: whether a collaborative room holds a notebook or text file, for a
kernel's magics to ask before writing it (``kernel/server_rooms.py``); only with the server's
token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_helpers import Api


async def test_a_kernel_asks_whether_a_room_holds_a_notebook(
    api: Api, root: Path, jp_serverapp: Any
) -> None:
    shared = root / "shared.ipynb"
    script = root / "shared.py"
    await api("workspaces")  # the services are built by the first request
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_operator"]

    class Held:
        """``server.rooms.SharedRooms`` as the handler uses it: rooms hold ``shared`` and
        ``script``."""

        async def held(self, path: Path) -> bool:
            return path in (shared, script)

    app.sessions.registry.rooms = Held()
    assert await api("rooms", params={"path": str(shared)}) == (200, {"open": True})
    assert await api("rooms", params={"path": str(root / "other.ipynb")}) == (200, {"open": False})
    # A text file's room counts as a notebook's: the kernel never writes beneath it.
    assert await api("rooms", params={"path": str(script)}) == (200, {"open": True})
    assert await api("rooms", params={"path": str(root / "notes.txt")}) == (200, {"open": False})
    # Not absolute: never a room.
    assert await api("rooms", params={"path": "shared.ipynb"}) == (200, {"open": False})
    status, _body = await api("rooms", params={"path": str(shared)}, headers={
        "Authorization": "token wrong"})
    assert status == 403
