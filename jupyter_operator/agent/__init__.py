"""A model in the loop: ask a model, run its commands through the engine, feed results back.

``Agent`` runs a task against a workspace with any ``Model``: ``OpenAIChat`` (an
OpenAI-compatible endpoint through the official ``openai`` SDK, the ``agent`` extra) or
``ReplayModel`` (scripted replies, no network). Every run is saved as a JSONL transcript;
``load_runs`` compares runs. Nothing here imports IPython or a web server: the fronts
(``%%operator_agent``, the panel's Ask mode, ``jupyter-operator agent``) build on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .loop import Agent, AgentResult, reject_translations
    from .models import Model, ModelError, ReplayModel, Usage
    from .openai_chat import OpenAIChat
    from .transcript import Transcript, load_runs

__all__ = [
    "Agent",
    "AgentResult",
    "Model",
    "ModelError",
    "OpenAIChat",
    "ReplayModel",
    "Transcript",
    "Usage",
    "load_runs",
    "reject_translations",
]

_HOMES = {
    "Agent": "loop",
    "AgentResult": "loop",
    "Model": "models",
    "ModelError": "models",
    "ReplayModel": "models",
    "Usage": "models",
    "OpenAIChat": "openai_chat",
    "Transcript": "transcript",
    "load_runs": "transcript",
    "reject_translations": "loop",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'jupyter_operator.agent' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{home}", __name__), name)
