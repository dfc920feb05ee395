"""``Results.show()``: the results viewer of ``jupyter-operator view`` as one notebook widget.

The grid goes to the page with the widget's state; a run's transcript is sent when the person
opens it (a ``view`` request), so a 1,000-run grid does not cross the comm whole. The cards
are the notebook cards' module, asked of the kernel once per page and shared with the card
widgets (``widgets/module.py``).
"""

from __future__ import annotations

import json
from typing import Any

import anywidget
import traitlets

from ..widgets import module
from .viewpage import viewer_module, viewer_stylesheet

#: The widget's own entry: the view asks for a run's transcript by its id.
_ESM_TAIL = """
function viewFromKernel(model) {
  let next = 1;
  const waiting = new Map();
  model.on('msg:custom', message => {
    if (message && message.kind === 'view' && waiting.has(message.request)) {
      waiting.get(message.request)(message.view || null);
      waiting.delete(message.request);
    }
  });
  return id => new Promise(resolve => {
    const request = next++;
    waiting.set(request, resolve);
    model.send({ kind: 'view', request, id });
  });
}
function renderWidget({ model, el }) {
  const root = document.createElement('div');
  el.append(root);
  const view = viewFromKernel(model);
  const draw = () => {
    const data = JSON.parse(model.get('data_json'));
    data.view = view;
    const key = `__jupyterOperatorCards_${model.get('cards_digest')}`;
    mount(root, data, cardsFromKernel(model, key));
  };
  model.on('change:data_json', draw);
  draw();
  return () => model.off('change:data_json', draw);
}
export default { render: renderWidget };
"""


class ResultsView(module.DeclaredTraits, anywidget.AnyWidget):
    """The viewer of ``view`` (``viewdata.build_view``'s dict): the grid with intervals and
    filters, a run's transcript on a click, two runs side by side."""

    _esm = traitlets.Unicode(viewer_module() + _ESM_TAIL).tag(sync=True)
    _css = traitlets.Unicode(module.stylesheet() + viewer_stylesheet()).tag(sync=True)
    _anywidget_id = traitlets.Unicode("jupyter_operator.experiments.ResultsView").tag(sync=True)
    #: The grid as JSON text (``build_view`` without the transcripts).
    data_json = traitlets.Unicode("{}").tag(sync=True)
    #: The cards' module digest: the page keeps the module under it, shared with the cards.
    cards_digest = traitlets.Unicode(module.digest()).tag(sync=True)

    def __init__(self, view: dict[str, Any]) -> None:
        self._views = [run.get("view") for run in view["runs"]]
        grid = {key: value for key, value in view.items() if key != "runs"}
        grid["runs"] = [{k: v for k, v in run.items() if k != "view"} for run in view["runs"]]
        super().__init__(data_json=json.dumps(grid, separators=(",", ":")))
        self.on_msg(self._on_message)

    def transcript(self, run_id: Any) -> dict[str, Any] | None:
        """The turns of run ``run_id`` (its place in the grid's runs), None for no such run."""
        if isinstance(run_id, bool) or not isinstance(run_id, int):
            return None
        return self._views[run_id] if 0 <= run_id < len(self._views) else None

    def _on_message(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, dict) and content.get("kind") == "view":
            request = content.get("request")
            if isinstance(request, int):
                self.send({"kind": "view", "request": request,
                           "view": self.transcript(content.get("id"))})  # fmt: skip
            return
        module.numbered_request(self, content)  # the cards' module, asked for once per page
