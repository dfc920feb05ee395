"""jupyter-operator: run the file operations a language model proposes, safely, from Jupyter.

A model writes plain-text ``OPERATOR_CMD`` blocks; this package scans them, validates them,
runs reads at once, shows every mutation as a diff for approval, applies only what was
approved inside one workspace folder, and returns ``OPERATOR_RESULT`` blocks.

Importing this package is cheap on purpose (jupyter-server times extension imports): the
heavy modules load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .engine import DecideFirst, Decision, EngineError, Operator, Policy, Run, UnknownItem

__all__ = [
    "DecideFirst",
    "Decision",
    "EngineError",
    "Operator",
    "Policy",
    "Run",
    "UnknownItem",
    "__version__",
    "last_run",
    "load_ipython_extension",
]
# Loaded from the engine on first use (importing the package stays cheap).
_ENGINE_NAMES = frozenset(__all__[:7])


def __getattr__(name: str) -> Any:
    if name in _ENGINE_NAMES:
        from . import engine

        return getattr(engine, name)
    raise AttributeError(f"module 'jupyter_operator' has no attribute {name!r}")


def last_run() -> Run | None:
    """The run object of the most recent ``%%operator`` cell in this kernel, or None."""
    from .kernel.magics import last_run as _last_run

    return _last_run()


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext jupyter_operator``: register the ``%operator`` and ``%%operator`` magics."""
    from .kernel.magics import load_ipython_extension as _load

    _load(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext jupyter_operator``."""
    from .kernel.magics import unload_ipython_extension as _unload

    _unload(ipython)


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    """The jupyter-server extension (imported only when a server asks for it)."""
    from .server.app import OperatorExtension

    return [{"module": "jupyter_operator", "app": OperatorExtension}]


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    return [{"src": "labextension", "dest": "jupyter-operator"}]
