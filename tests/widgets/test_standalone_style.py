"""The cards' own colours outside JupyterLab (VS Code, Colab, a plain page): the dark values
for a dark system theme and for VS Code's dark themes are the same, and cover every colour a
card draws text or a banner with."""

from __future__ import annotations

import re
from pathlib import Path

CSS = (Path(__file__).resolve().parents[2] / "labextension" / "style" / "widget.css").read_text()
SYSTEM_DARK = "@media (prefers-color-scheme: dark) {\n  .jp-Operator-standalone {"
VSCODE_DARK = "body.vscode-high-contrast .jp-Operator-standalone {"
LIGHT = "\n.jp-Operator-standalone {"


def _properties(opening: str) -> dict[str, str]:
    start = CSS.index(opening) + len(opening)
    block = CSS[start : CSS.index("}", start)]
    return {m[1]: m[2].strip() for m in re.finditer(r"(--[\w-]+)\s*:\s*([^;]+);", block)}


def test_vscode_dark_has_the_system_dark_values() -> None:
    system = _properties(SYSTEM_DARK)
    assert len(system) > 10
    assert _properties(VSCODE_DARK) == system


def test_every_text_and_banner_colour_has_a_dark_value() -> None:
    light, dark = _properties(LIGHT), _properties(VSCODE_DARK)
    for name in ("--jp-ui-font-color1", "--jp-ui-font-color3", "--jp-layout-color1",
                 "--jp-warn-color3"):  # fmt: skip
        assert name in light and dark.get(name) not in (None, light[name]), name
