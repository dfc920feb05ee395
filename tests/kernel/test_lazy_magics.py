"""The magics typed before ``%load_ext``: the README's profile line makes them load themselves."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from traitlets.config import Config

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_profile_line() -> str:
    """The ``c.MagicsManager.lazy_magics`` line the README gives for the IPython profile."""
    match = re.search(r"^c\.MagicsManager\.lazy_magics = .+$", README.read_text(), re.MULTILINE)
    assert match, "the README no longer says how to have the magics without %load_ext"
    return match.group(0)


@pytest.fixture
def bare_shell(fresh_session: Any) -> Iterator[Any]:
    """The shared test shell without the extension, its lazy magics restored afterwards."""
    from IPython.testing import globalipapp

    globalipapp.start_ipython()
    shell = globalipapp.get_ipython()
    if "jupyter_operator" in shell.extension_manager.loaded:
        shell.run_line_magic("unload_ext", "jupyter_operator")
    before = dict(shell.magics_manager.lazy_magics)
    yield shell
    shell.magics_manager.lazy_magics = before
    for kind in ("line", "cell"):  # the lazy placeholders, if the magic never ran
        for name in ("operator", "op", "operator_agent"):
            shell.magics_manager.magics[kind].pop(name, None)
    if "jupyter_operator" in shell.extension_manager.loaded:
        shell.run_line_magic("unload_ext", "jupyter_operator")


def test_without_the_profile_line_the_magic_is_not_found(bare_shell: Any) -> None:
    result = bare_shell.run_cell("%operator spec")
    assert not result.success  # IPython's own "Line magic function not found"
    assert "jupyter_operator" not in bare_shell.extension_manager.loaded


def test_the_readme_profile_line_loads_every_magic_on_first_use(
    bare_shell: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Config()
    exec(readme_profile_line(), {"c": config})  # the line as the profile would run it
    bare_shell.magics_manager.update_config(config)
    result = bare_shell.run_cell("%operator spec")
    assert result.success, "%operator without %load_ext does not load the extension"
    assert "jupyter_operator" in bare_shell.extension_manager.loaded
    assert "Operator Interface Specification" in capsys.readouterr().out
    # Every magic the extension registers is declared, so each can be the first one typed.
    declared = set(config.MagicsManager.lazy_magics)
    registered = {name for kind in ("line", "cell")
                  for name, fn in bare_shell.magics_manager.magics[kind].items()
                  if getattr(fn, "__module__", "").startswith("jupyter_operator")}  # fmt: skip
    missing = registered - declared
    assert not missing, f"magics the README line does not declare: {missing}"
