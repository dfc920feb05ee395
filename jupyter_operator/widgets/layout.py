"""Layout and style models shared by the ipywidgets of one view (the agent's turns, string
command replies): ipywidgets gives every widget its own ``Layout`` and style model unless one
is passed, so a view of many parts would create hundreds of identical models."""

from __future__ import annotations

from typing import Any

import ipywidgets as w


class Shared:
    """Models shared by the widgets of one view; never changed after creation."""

    def __init__(self) -> None:
        from ipywidgets.widgets.widget_string import HTMLStyle

        self.layout = w.Layout()
        self.auto_width = w.Layout(width="auto")
        self.full_width = w.Layout(width="100%")
        self.html = HTMLStyle()
        self.button = w.ButtonStyle()

    def html_widget(self, value: str = "", *, full_width: bool = False) -> w.HTML:
        layout = self.full_width if full_width else self.layout
        return w.HTML(value=value, layout=layout, style=self.html)

    def button_widget(self, description: str, *, wide: bool = False, **kwargs: Any) -> w.Button:
        layout = self.auto_width if wide else self.layout
        return w.Button(description=description, layout=layout, style=self.button, **kwargs)
