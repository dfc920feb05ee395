"""The setup scripts and what the README says about them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_setup_links_the_extension_without_the_deprecated_command() -> None:
    text = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    links = [line.strip() for line in text.splitlines() if "develop --overwrite" in line]
    # jupyter-builder first; `jupyter labextension develop` (deprecated since JupyterLab 4.5, a
    # warning on every run of scripts/lab.sh) only where jupyter-builder is not installed.
    assert links[0] == ".venv/bin/jupyter-builder develop --overwrite . >/dev/null"
    assert "if [ -x .venv/bin/jupyter-builder ]; then" in text
    assert all("labextension develop" not in line for line in links[:1])


def test_readme_says_what_setup_installs_as_root() -> None:
    head = "\n".join((ROOT / "README.md").read_text(encoding="utf-8").splitlines()[:12])
    setup = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    for package in ("chromium", "bubblewrap"):
        assert f"missing+=({package})" in setup
        assert package in head, f"the README's first lines do not say setup installs {package}"
