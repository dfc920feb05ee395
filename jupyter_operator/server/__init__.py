"""The jupyter-server extension: REST endpoints for sessions and the WebSocket file API.

Everything here is a thin front over :mod:`jupyter_operator.engine` and
:mod:`jupyter_operator.workspace`. Authentication, authorization, origin, host and XSRF checks
are jupyter-server's own; this package adds none of its own.

- :mod:`.app`: the :class:`OperatorExtension` and its configuration.
- :mod:`.workspaces`: configured workspace names, their roots and their write locks.
- :mod:`.sessions`: in-memory sessions (one ``Operator`` and its ``Run``), capped and expiring.
- :mod:`.fileapi`: the WebSocket file API (``file_list``, ``file_read``, ``file_write``).
- :mod:`.errors`: the error types and the tables mapping workspace codes to wire codes.
- :mod:`.handlers`, :mod:`.websocket`: the tornado handlers.
- :mod:`.bodies`: the REST request bodies (pydantic, loaded with the first request).
- :mod:`.limits`: the size limits the extension checks its configuration against.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import OperatorExtension

__all__ = ["OperatorExtension"]


def __getattr__(name: str) -> Any:
    if name == "OperatorExtension":
        from .app import OperatorExtension

        return OperatorExtension
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
