"""Keep a displayed panel's saved text truthful as decisions arrive, so a notebook reopened
without a kernel (or shown by nbconvert, GitHub, VS Code) reads the final state.

A notebook saves each output's whole MIME bundle. The panel (a run's cards, an agent run) is a
widget that needs a live kernel, so its bundle also carries ``text/plain`` and ``text/html``
describing the run; when a decision changes the run, the output is replaced by display id with
a fresh bundle.

Who receives the update: JupyterLab and Notebook 7 hand an output message to the cell whose
execute request is its parent (a finished cell's output area keeps listening until it runs
again); nbclient applies updates by display id while it runs the current cell. A click handler
runs under the parent of a widget message, which no cell owns, so the update is sent with the
parent of the cell that displayed the panel, and again with the current one when that is
another cell's execute request (a decision made from Python in a later cell, or an agent run
going on while a later cell runs).
"""

from __future__ import annotations

import copy
import uuid
from typing import Any


def _shell() -> Any:
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell.instance() if InteractiveShell.initialized() else None


def _parent(pub: Any) -> dict[str, Any] | None:
    header = getattr(pub, "parent_header", None)
    return copy.deepcopy(header) if isinstance(header, dict) and header else None


def _header(parent: dict[str, Any] | None) -> dict[str, Any]:
    """The message header of a parent (ipykernel keeps the header itself, or a whole message)."""
    parent = parent or {}
    header = parent.get("header", parent)
    return header if isinstance(header, dict) else {}


class SavedOutput:
    """One displayed object whose saved bundle is refreshed on :meth:`update`."""

    def __init__(self, obj: Any) -> None:
        from IPython.display import display

        self.display_id = f"jpo-{uuid.uuid4().hex}"
        shell = _shell()
        self._parent = _parent(shell.display_pub) if shell is not None else None
        self._last: tuple[str, str, str] | None = None
        self.updates = 0  # how many updates were sent (for tests and debugging)
        # The bundle itself (raw): an object may display itself through this class from its
        # ``_ipython_display_``, which displaying the object would call again.
        data, metadata = self.bundle(obj)
        display(data, raw=True, display_id=self.display_id, metadata=metadata)
        self._last = self._key(obj)

    @staticmethod
    def _metadata(obj: Any) -> dict[str, Any]:
        """The object's own output metadata for the saved notebook (``saved_metadata()``)."""
        extra = getattr(obj, "saved_metadata", None)
        return dict(extra()) if callable(extra) else {}

    @classmethod
    def bundle(cls, obj: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The object's MIME bundle and output metadata (its own and ``saved_metadata()``)."""
        bundle = obj._repr_mimebundle_()
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        return dict(data or {}), {**(metadata or {}), **cls._metadata(obj)}

    @classmethod
    def _key(cls, obj: Any) -> tuple[str, str, str]:
        data, metadata = cls.bundle(obj)
        return (
            str(data.get("text/plain", "")),
            str(data.get("text/html", "")),
            repr(sorted(metadata.items())),
        )

    def update(self, obj: Any) -> None:
        """Send the object's current bundle in place of the displayed one (if it changed)."""
        key = self._key(obj)
        if key == self._last:
            return
        self._last = key
        shell = _shell()
        if shell is None:
            return
        pub = shell.display_pub
        data, metadata = self.bundle(obj)
        session, socket = getattr(pub, "session", None), getattr(pub, "pub_socket", None)
        if session is None or socket is None:  # not a kernel (a terminal or a test shell)
            from IPython.display import update_display

            update_display(data, raw=True, display_id=self.display_id, metadata=metadata)
            self.updates += 1
            return
        content = {
            "data": data,
            "metadata": metadata,
            "transient": {"display_id": self.display_id},
        }
        parents = [self._parent]
        # The current cell: this context's parent, and the request the kernel took last (a
        # task started by an earlier cell, such as an agent run, keeps that cell's context).
        latest = getattr(pub, "_parent_header_global", None)
        for other in (_parent(pub), copy.deepcopy(latest) if isinstance(latest, dict) else None):
            header = _header(other)
            if header.get("msg_type") == "execute_request" and header.get("msg_id") not in {
                _header(p).get("msg_id") for p in parents
            }:
                parents.append(other)
        for parent in parents:
            if parent is not None:
                session.send(socket, "update_display_data", content, parent=parent,
                             ident=getattr(pub, "topic", None))  # fmt: skip
        self.updates += 1
