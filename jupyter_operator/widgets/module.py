"""The cards' front end, sent to a page once instead of with every widget.

anywidget sends a widget's ``_esm`` with its state, so a 600 KB module would cross the comm
on every run displayed (an agent's 50 turns: 30 MB). The widgets' ``_esm`` is therefore a
small loader: the first widget of a page asks its kernel for the module (a ``module``
message), imports it from a blob URL and keeps it on ``globalThis`` under the module's
digest, so a newer package in the same page loads its own; every later widget reuses it.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parent.parent / "static"

#: What the view shows when the package was built without its front end.
_MISSING = (
    "export default { render({ el }) { el.textContent = 'jupyter-operator: the cards\\' "
    "front end is missing from this installation (build it with jlpm build in labextension/).';"
    " } };"
)

_LOADER = """const KEY = '__jupyterOperatorCards_%(digest)s';
function load(model) {
  if (!globalThis[KEY]) {
    globalThis[KEY] = new Promise((resolve, reject) => {
      const onMessage = message => {
        if (!message || message.kind !== 'module') return;
        model.off('msg:custom', onMessage);
        const url = URL.createObjectURL(new Blob([message.source], { type: 'text/javascript' }));
        import(url).then(m => resolve(m.default), reject).finally(() => URL.revokeObjectURL(url));
      };
      model.on('msg:custom', onMessage);
      model.send({ kind: 'module' });
    }).catch(error => { delete globalThis[KEY]; throw error; });
  }
  return globalThis[KEY];
}
export default {
  async render(context) {
    const cards = await load(context.model);
    return cards.render(context);
  }
};
"""


@cache
def source() -> str:
    """The bundled module (``static/widget.js``), or one that says it is missing."""
    path = STATIC / "widget.js"
    return path.read_text(encoding="utf-8") if path.is_file() else _MISSING


@cache
def digest() -> str:
    """The module's digest: a page keeps the module it imported under it (``__jupyterOperator
    Cards_<digest>`` on ``globalThis``), so every view of the same package shares one."""
    return hashlib.sha256(source().encode("utf-8")).hexdigest()[:16]


@cache
def loader() -> str:
    """The ``_esm`` of every widget: a loader keyed by the module's digest."""
    return _LOADER % {"digest": digest()}


@cache
def stylesheet() -> str:
    """The cards' stylesheet (``static/widget.css``), or nothing."""
    path = STATIC / "widget.css"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def numbered_request(widget: Any, content: object) -> dict[str, Any] | None:
    """A view's message as a request to answer, or None.

    A request for the module is answered here (the loader's first message); anything else
    without a request number is not a request and is ignored.
    """
    if isinstance(content, dict) and content.get("kind") == "module":
        widget.send({"kind": "module", "source": source()})
        return None
    if not isinstance(content, dict) or not isinstance(content.get("request"), int):
        return None
    return content


class DeclaredTraits:
    """Mixin for an ``AnyWidget`` that declares ``_esm``, ``_css`` and ``_anywidget_id`` as
    class traits: anywidget adds its id trait to every instance, and ``add_traits`` makes a
    new class each time (half of a widget's construction); a trait the class has is kept."""

    def add_traits(self, **traits: Any) -> None:
        has_trait = self.has_trait  # type: ignore[attr-defined]
        missing = {name: trait for name, trait in traits.items() if not has_trait(name)}
        if missing:
            super().add_traits(**missing)  # type: ignore[misc]



_LAYOUT: Any = None


def shared_layout() -> Any:
    """One ``Layout`` model for every card widget of the kernel (ipywidgets would open one per
    widget otherwise: a second model, and its comm, for every run); made again once closed."""
    global _LAYOUT
    if _LAYOUT is None or getattr(_LAYOUT, "comm", None) is None:
        import ipywidgets

        _LAYOUT = ipywidgets.Layout()
    return _LAYOUT
