"""Save decided cards as static output, so a notebook reopened without a kernel reads them.

A card in a notebook is an ipywidget: its saved output holds the widget's view bundle
(``application/vnd.jupyter.widget-view+json``) beside a ``text/html`` and ``text/plain``
fallback that the kernel keeps truthful as decisions arrive (widgets/saved_output.py). A
reopened notebook has no widget models (they lived in the kernel), yet JupyterLab's widget
renderer outranks the fallback in a trusted notebook and shows "Error displaying widget: model
not found" instead of the final state.

This pre-save hook removes the widget view from outputs the kernel marked final (output
metadata ``{"jupyter_operator": {"final": true}}``: every item of the run is decided), so the
saved file holds only the static fallback. Only the saved file changes: the open notebook keeps
its live cards. A run still waiting for a decision keeps its widget, so reopening the notebook
while its kernel still runs shows live buttons again.
"""

from __future__ import annotations

from typing import Any

#: The output metadata key the kernel writes (widgets/panel.py) and this hook reads.
OUTPUT_KEY = "jupyter_operator"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def is_final(output: dict[str, Any]) -> bool:
    """Whether an output is a card display the kernel marked final (with a static fallback)."""
    metadata = output.get("metadata")
    mark = metadata.get(OUTPUT_KEY) if isinstance(metadata, dict) else None
    data = output.get("data")
    return (
        isinstance(mark, dict)
        and mark.get("final") is True
        and isinstance(data, dict)
        and WIDGET_VIEW in data
        and "text/html" in data  # never leave an output with nothing to show
    )


def strip_final_widgets(notebook: dict[str, Any]) -> int:
    """Drop the widget view of every final card output, in place; how many were dropped."""
    dropped = 0
    cells = notebook.get("cells")
    for cell in cells if isinstance(cells, list) else ():
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        for output in outputs if isinstance(outputs, list) else ():
            if isinstance(output, dict) and is_final(output):
                del output["data"][WIDGET_VIEW]
                dropped += 1
    return dropped


def pre_save_hook(model: dict[str, Any], path: str, **_kwargs: Any) -> None:
    """A contents-manager pre-save hook: static final cards in every saved notebook."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        strip_final_widgets(model["content"])


def register(contents_manager: Any) -> bool:
    """Register the hook on a jupyter-server contents manager (False if it has no hooks)."""
    add = getattr(contents_manager, "register_pre_save_hook", None)
    if add is None:
        return False
    add(pre_save_hook)
    return True
