"""A home-folder workspace: Jupyter's secrets and the credential stores are out of reach.

``jupyter lab`` started in the home folder makes the home folder the workspace. The server's
token (``runtime/jpserver-<pid>.json``), the cookie secret and the usual credential stores must
then be refused by every action, reads included, and never show up in a search.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.replies import b64, block, reply

from jupyter_operator.engine import Operator
from jupyter_operator.protocol import OperatorError, codes
from jupyter_operator.workspace import Workspace
from jupyter_operator.workspace.out_of_reach import describe, host_secret_locations

TOKEN = "tok-5f3a9c1e"

SECRETS = {
    ".local/share/jupyter/runtime/jpserver-4242.json": f'{{"token": "{TOKEN}"}}',
    ".local/share/jupyter/jupyter_cookie_secret": f"cookie {TOKEN}",
    ".jupyter/jupyter_server_config.json": f'{{"token": "{TOKEN}"}}',
    ".ssh/id_ed25519": f"key {TOKEN}",
    ".aws/credentials": f"aws {TOKEN}",
    ".netrc": f"machine x password {TOKEN}",
    ".git-credentials": f"https://u:{TOKEN}@host",
    ".config/gcloud/credentials.db": f"gcloud {TOKEN}",
    ".docker/config.json": f'{{"auth": "{TOKEN}"}}',
    # The default transcript folder: a model listed it, read a run and overwrote it with {}.
    ".local/share/jupyter/jupyter_operator/runs/run-1.jsonl": f'{{"token": "{TOKEN}"}}',
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder laid out as on a machine where ``jupyter lab`` runs, and set as $HOME
    with no Jupyter folder configured (the defaults below the home folder apply)."""
    home = tmp_path / "home"
    for rel, text in SECRETS.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    (home / "project").mkdir()
    (home / "project" / "notes.txt").write_text("plain notes\n")
    monkeypatch.setenv("HOME", str(home))
    for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR",
                 "XDG_DATA_HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "JUPYTER_PLATFORM_DIRS",
                 "JUPYTER_OPERATOR_JOURNAL_DIR"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def ws(home: Path, tmp_path: Path):  # type: ignore[no-untyped-def]
    with Workspace(home, journal_dir=tmp_path / "journal") as workspace:
        yield workspace


@pytest.mark.parametrize("rel", sorted(SECRETS))
def test_every_secret_is_refused_for_reading(ws: Workspace, rel: str) -> None:
    with pytest.raises(OperatorError) as err:
        ws.read_bytes(rel, limit=1 << 20)
    assert err.value.code == codes.ERR_PROTECTED_PATH
    with pytest.raises(OperatorError):
        ws.snapshot(rel, limit=1 << 20)
    with pytest.raises(OperatorError) as err:
        ws.stat(rel)
    assert err.value.code == codes.ERR_PROTECTED_PATH


@pytest.mark.parametrize("folder", [".local/share/jupyter", ".local/share/jupyter/runtime",
                                    ".ssh", ".config/gcloud", ".jupyter"])  # fmt: skip
def test_the_folders_cannot_be_listed(ws: Workspace, folder: str) -> None:
    with pytest.raises(OperatorError) as err:
        ws.list_dir(folder)
    assert err.value.code == codes.ERR_PROTECTED_PATH


def test_a_search_of_the_home_folder_finds_no_secret(ws: Workspace) -> None:
    found = ws.search_tree(".", TOKEN)
    assert found.matches == []
    assert ws.search_tree(".", "plain notes").matches == [("project/notes.txt", 1, "plain notes")]


@pytest.mark.parametrize("folder", [".local", ".local/share", ".config", ".docker"])
def test_a_folder_holding_a_secret_cannot_be_deleted_or_moved(ws: Workspace, folder: str) -> None:
    snap = ws.snapshot(folder, limit=1 << 20)
    with pytest.raises(OperatorError) as err:
        ws.move_out(folder, ws.root.parent, expect=snap)
    assert err.value.code == codes.ERR_PROTECTED_PATH


def test_a_secret_cannot_be_overwritten(ws: Workspace, home: Path) -> None:
    snap_error = None
    try:
        ws.snapshot(".netrc", limit=1 << 20)
    except OperatorError as exc:
        snap_error = exc.code
    assert snap_error == codes.ERR_PROTECTED_PATH
    assert (home / ".netrc").read_text().startswith("machine")


def test_a_symlinked_home_reaches_nothing_more(home: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(home)
    with Workspace(alias, journal_dir=tmp_path / "journal") as ws, pytest.raises(OperatorError):
        ws.read_bytes(".local/share/jupyter/runtime/jpserver-4242.json", limit=1 << 20)


def test_secrets_behind_links_are_held_where_they_really_are(home: Path, tmp_path: Path) -> None:
    """``~/.jupyter`` and ``~/.netrc`` as links into another folder: that folder's copies, and
    every folder above them up to it, are out of reach there too."""
    data = tmp_path / "data"
    (data / "dotfiles" / "deep").mkdir(parents=True)
    (data / "secrets").mkdir()
    (home / ".jupyter").rename(data / "dotfiles" / "deep" / "jupyter")
    (home / ".jupyter").symlink_to(data / "dotfiles" / "deep" / "jupyter")
    (home / ".netrc").rename(data / "secrets" / "netrc")
    (home / ".netrc").symlink_to(data / "secrets" / "netrc")
    (data / "secrets" / "plain.txt").write_text("plain\n")
    with Workspace(data, journal_dir=tmp_path / "journal") as ws:
        for rel in ("dotfiles/deep/jupyter/jupyter_server_config.json", "secrets/netrc"):
            with pytest.raises(OperatorError) as err:
                ws.read_bytes(rel, limit=1 << 20)
            assert err.value.code == codes.ERR_PROTECTED_PATH, rel
        for folder in ("dotfiles", "dotfiles/deep", "secrets"):
            snap = ws.snapshot(folder, limit=1 << 20)
            with pytest.raises(OperatorError) as err:
                ws.move_out(folder, tmp_path, expect=snap)
            assert err.value.code == codes.ERR_PROTECTED_PATH, folder
        assert ws.read_bytes("secrets/plain.txt", limit=1 << 20) == b"plain\n"
    assert (data / "secrets" / "netrc").read_text().startswith("machine")


def test_a_workspace_inside_the_runtime_folder_is_refused(home: Path, tmp_path: Path) -> None:
    with pytest.raises(OperatorError) as err:
        Workspace(home / ".local/share/jupyter/runtime", journal_dir=tmp_path / "journal")
    assert err.value.code == codes.ERR_PROTECTED_PATH


def test_a_reply_never_receives_the_token(home: Path, tmp_path: Path) -> None:
    """The repro: reads run at once, so a reply used to get the server's token back."""
    text = reply(
        block("t1", "fs.read", path=".local/share/jupyter/runtime/jpserver-4242.json"),
        block("t2", "fs.read", path=".local/share/jupyter/jupyter_cookie_secret"),
        block("t3", "fs.searchTree", path=".", query=TOKEN),
        block("t4", "fs.readSlice", path=".ssh/id_ed25519", start="1"),
        block("t5", "fs.write", path=".netrc", content_b64=b64("x")),
    )
    op = Operator(home, journal_dir=tmp_path / "journal")
    run = op.run(text)
    results = run.results_text
    assert TOKEN not in results
    codes_seen = [item.error_code for item in run.items]
    assert codes_seen[:2] == [codes.ERR_PROTECTED_PATH] * 2
    assert codes_seen[3:] == [codes.ERR_PROTECTED_PATH] * 2
    assert (home / ".netrc").read_text().startswith("machine")


def test_the_list_is_shown_home_relative(home: Path) -> None:
    shown = describe()
    assert "~/.local/share/jupyter/runtime" in shown and "~/.ssh" in shown
    assert all(not p.startswith(str(home)) for p in shown)
    assert Path(os.environ["HOME"], ".netrc") in host_secret_locations()


def test_transcripts_cannot_be_listed_or_overwritten(ws: Workspace, home: Path) -> None:
    runs = ".local/share/jupyter/jupyter_operator/runs"
    with pytest.raises(OperatorError):
        ws.list_dir(runs)
    with pytest.raises(OperatorError) as err:
        ws.snapshot(f"{runs}/run-1.jsonl", limit=1 << 20)
    assert err.value.code == codes.ERR_PROTECTED_PATH
    assert TOKEN in (home / runs / "run-1.jsonl").read_text()
