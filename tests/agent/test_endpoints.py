"""The store of named endpoints: owner-only files out of every workspace, links and loose
permissions refused, and a typed key that no model's command can read."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from jupyter_operator.agent.endpoints import Endpoint, EndpointError, EndpointStore, build_model
from jupyter_operator.engine import Operator

KEY = "sk-kept-out-of-reach-0451"


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home" / ".local" / "share" / "jupyter"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(folder))
    return folder


def test_keys_and_list_are_owner_only_in_a_0700_folder(data: Path) -> None:
    store = EndpointStore(use_keyring=False)
    store.add(Endpoint("local", "http://127.0.0.1:9/v1", "m"), KEY)
    assert store.folder == data / "jupyter_operator" / "models"
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    for path in (store.keys_file, store.list_file):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert KEY not in store.list_file.read_text()
    assert KEY not in repr(store.saved()) and KEY not in str(store.saved()[0].public())
    assert store.key("local") == KEY


def test_a_workspace_around_the_data_folder_cannot_read_the_keys(data: Path) -> None:
    """The home folder as the workspace (``jupyter lab`` started there): the stored key is one
    read away unless Jupyter's data folder is out of reach by its real location."""
    store = EndpointStore(use_keyring=False)
    store.add(Endpoint("local", "http://127.0.0.1:9/v1", "m"), KEY)
    home = data.parents[2]
    inside = store.keys_file.relative_to(home).as_posix()
    (home / "link").symlink_to(store.folder)
    with Operator(home, journal_dir=home.parent / "journal") as op:
        for path in (inside, "link/keys.json", ".local/share/jupyter/jupyter_operator/models"):
            for action in ("fs.read", "fs.list", "fs.stat"):
                run = op.run(f"OPERATOR_CMD\nid: r\naction: {action}\npath: {path}\n"
                             "END_OPERATOR_CMD\n")  # fmt: skip
                assert KEY not in run.results_text
                assert run.items[0].status != "done", (action, path, run.results_text)


def test_a_linked_or_loose_store_file_is_refused(data: Path, tmp_path: Path) -> None:
    store = EndpointStore(use_keyring=False)
    store.add(Endpoint("local", "http://127.0.0.1:9/v1", "m"), KEY)
    os.chmod(store.keys_file, 0o644)
    with pytest.raises(EndpointError, match="open to other users"):
        store.key("local")
    os.chmod(store.keys_file, 0o600)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text('{"local": "sk-planted"}')
    os.chmod(elsewhere, 0o600)
    store.keys_file.unlink()
    store.keys_file.symlink_to(elsewhere)
    with pytest.raises(EndpointError, match="a link is refused"):
        store.key("local")


def test_a_refused_key_is_never_quoted(data: Path) -> None:
    """The endpoint's 401 quotes the key it got; the sentence the person reads does not."""
    import asyncio

    from support.fake_openai import FakeOpenAI

    from jupyter_operator.agent import ModelError

    store = EndpointStore(use_keyring=False)
    with FakeOpenAI() as fake:
        endpoint = store.add(Endpoint("wrong", fake.url, "fake-model"), KEY)
        model = build_model(endpoint, store)
        assert KEY not in repr(model) and KEY not in str(vars(model))

        async def ask() -> None:
            async for _ in model.stream([{"role": "user", "content": "hi"}]):
                pass

        with pytest.raises(ModelError) as caught:
            asyncio.run(ask())
    assert caught.value.kind == "auth" and KEY not in caught.value.message


def test_two_adds_at_once_both_stay(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server and the command line may add endpoints at the same moment: each read,
    change and write holds the store's lock, so the later write keeps the earlier's entry."""
    import threading
    import time

    read = EndpointStore.saved

    def slow_read(self: EndpointStore) -> list[Endpoint]:
        found = read(self)
        time.sleep(0.2)  # widen the gap between reading the list and writing it back
        return found

    monkeypatch.setattr(EndpointStore, "saved", slow_read)

    def add(name: str) -> None:
        EndpointStore(use_keyring=False).add(Endpoint(name, "http://127.0.0.1:9/v1", "m"),
                                             f"{KEY}-{name}")  # fmt: skip

    adds = [threading.Thread(target=add, args=(name,)) for name in ("one", "two")]
    for add in adds:
        add.start()
    for add in adds:
        add.join()
    monkeypatch.setattr(EndpointStore, "saved", read)
    store = EndpointStore(use_keyring=False)
    assert sorted(e.name for e in store.saved()) == ["one", "two"]
    assert store.key("one") == f"{KEY}-one" and store.key("two") == f"{KEY}-two"
    assert stat.S_IMODE((store.folder / ".lock").stat().st_mode) == 0o600
