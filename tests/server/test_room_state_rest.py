"""``GET rooms?path=``: whether a collaborative room holds a notebook, for a kernel's magics to
ask before writing it (``kernel/server_rooms.py``); only with the server's token."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from server_helpers import Api


async def test_a_kernel_asks_whether_a_room_holds_a_notebook(
    api: Api, root: Path, jp_serverapp: Any
) -> None:
    shared = root / "shared.ipynb"
    await api("workspaces")  # the services are built by the first request
    [app] = jp_serverapp.extension_manager.extension_apps["jupyter_operator"]

    class Held:
        """``server.rooms.SharedRooms`` as the handler uses it: a room holds ``shared``."""

        async def held(self, path: Path) -> bool:
            return path == shared

    app.sessions.registry.rooms = Held()
    assert await api("rooms", params={"path": str(shared)}) == (200, {"open": True})
    assert await api("rooms", params={"path": str(root / "other.ipynb")}) == (200, {"open": False})
    # Not a notebook, or not absolute: never a room.
    assert await api("rooms", params={"path": str(root / "notes.txt")}) == (200, {"open": False})
    assert await api("rooms", params={"path": "shared.ipynb"}) == (200, {"open": False})
    status, _body = await api("rooms", params={"path": str(shared)}, headers={
        "Authorization": "token wrong"})
    assert status == 403
