"""A read-only text box with a Copy button, for results and the interface spec.

Copying is the one thing stock ipywidgets cannot do: the clipboard lives in the browser and
the button's click handler runs in the kernel. Our choice, which works wherever a widget
manager renders outputs (JupyterLab, Notebook 7, VS Code):

* the text sits in a ``Textarea`` the person can always select and copy by hand (edits are
  undone at once, so it behaves as read-only while staying selectable, unlike a disabled one);
* the Copy button's handler displays a tiny ``application/javascript`` output in a hidden
  ``Output`` widget that calls ``navigator.clipboard.writeText`` where the browser offers it.
  The snippet only acts within a minute of the click, so reopening a saved notebook never
  writes to anyone's clipboard, and the text is embedded as JSON with ``<``, ``>`` and ``&``
  escaped so it cannot end the script element.

No custom widget JavaScript is needed (that would need a CDN in VS Code and Colab).
"""

from __future__ import annotations

import json
import time

import ipywidgets as w

_COPY_JS = """(function () {{
  if (Date.now() - {clicked_ms} > 60000) return;
  var text = {payload};
  if (navigator.clipboard && navigator.clipboard.writeText) {{
    navigator.clipboard.writeText(text).catch(function () {{}});
  }}
}})();"""


def copy_script(text: str, *, clicked_ms: int) -> str:
    """The JavaScript that copies ``text``; safe to embed in HTML and in saved notebooks."""
    payload = (
        json.dumps(text, ensure_ascii=True)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )
    return _COPY_JS.format(clicked_ms=int(clicked_ms), payload=payload)


def _fit_rows(text: str) -> int:
    return max(3, min(16, text.count("\n") + 1))


class CopyBox(w.VBox):
    """A titled, selectable, read-only ``Textarea`` and a Copy button."""

    def __init__(self, title: str, text: str = "", *, rows: int | None = None) -> None:
        self.heading = w.Label(value=title)
        self.heading.add_class("jpo-results-title")
        self.text = w.Textarea(
            value=text,
            rows=rows or _fit_rows(text),
            layout=w.Layout(width="calc(100% - 8px)"),
        )
        self.text.observe(self._keep_value, names="value")
        self._value = text
        self.copy_button = w.Button(
            description="Copy", icon="copy", tooltip="Copy the text to the clipboard"
        )
        self.copy_button.on_click(self._copy)
        self.status = w.Label(value="")
        # The JavaScript output goes here; it is never visible.
        self._sink = w.Output(layout=w.Layout(display="none"))
        super().__init__(
            [self.heading, self.text, w.HBox([self.copy_button, self.status]), self._sink]
        )
        self.add_class("jpo-copybox")

    @property
    def value(self) -> str:
        """The text shown (and copied)."""
        return self._value

    @value.setter
    def value(self, text: str) -> None:
        self._value = text
        self.text.value = text
        self.text.rows = _fit_rows(text)

    def _keep_value(self, change: dict[str, object]) -> None:
        # Undo typing in the box: it shows exactly what the model will get.
        if change["new"] != self._value:
            self.text.value = self._value

    def _copy(self, _button: w.Button | None = None) -> None:
        # The output is set directly (not through IPython's display formatter, which may have
        # JavaScript switched off, e.g. in a terminal shell) and replaces the previous one.
        script = copy_script(self._value, clicked_ms=int(time.time() * 1000))
        self._sink.outputs = (
            {
                "output_type": "display_data",
                "data": {"application/javascript": script, "text/plain": ""},
                "metadata": {},
            },
        )
        self.status.value = (
            "Copied. If your browser blocked it, click in the box, press Ctrl+A, then Ctrl+C."
        )

    def __repr__(self) -> str:
        return f"CopyBox({self.heading.value!r}, {len(self._value)} characters)"
