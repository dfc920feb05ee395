"""Named model endpoints: the list the panel's model picker, ``%operator model`` and
``jupyter-operator agent --endpoint`` share.

An endpoint is a name, an OpenAI-compatible base URL, a model name and where its key comes from:
an environment variable named by the endpoint (the key itself stays in the environment), or a
key the person typed once, which is stored (never shown again). The list a person adds to lives
in ``<jupyter data dir>/jupyter_operator/models/``: Jupyter's data folder is out of every
workspace's reach by its real location (``workspace.out_of_reach``), so no model can read it.
``endpoints.json`` holds the list without any key; a typed key goes to the system keyring when
one is installed and usable, else to ``keys.json`` beside it, owner-only (0600, in a 0700
folder), written whole under a temporary name and renamed into place. Keys are read back only to
build a model client: nothing here returns, logs or prints one.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import secrets
import stat
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .models import ModelError

#: The folder of the list, in the package's folder of Jupyter's data folder.
FOLDER_NAME = "models"
LIST_NAME = "endpoints.json"
KEYS_NAME = "keys.json"
LOCK_NAME = ".lock"
#: The keyring service the typed keys are saved under (when a keyring is usable).
KEYRING_SERVICE = "jupyter-operator"
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
#: Longest key accepted (real keys are a few hundred characters at most).
MAX_KEY = 4096


class EndpointError(ValueError):
    """An endpoint that cannot be added, used or removed: ``code`` and one sentence (never a
    key)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Endpoint:
    """One named endpoint. ``key_env``: the environment variable holding its key (empty: the
    stored key, else ``$OPENAI_API_KEY``, else none for a local server); ``key_stored``: a
    typed key is stored for it; ``source``: ``config`` (the server's settings, read-only here)
    or ``saved`` (added by a person)."""

    name: str
    base_url: str
    model: str
    key_env: str = ""
    key_stored: bool = False
    source: str = "saved"

    @property
    def endpoint(self) -> str:
        """``host[:port]`` of the base URL (what people and transcripts see)."""
        from .openai_chat import endpoint_name

        return endpoint_name(self.base_url)

    def public(self) -> dict[str, Any]:
        """What a browser or a terminal may see: no key, only whether one is known."""
        from .models import model_label

        return {"name": self.name, "base_url": self.base_url, "model": self.model,
                "endpoint": self.endpoint, "label": model_label(self.model, self.endpoint),
                "key": self.key_source(), "source": self.source}  # fmt: skip

    def key_source(self) -> str:
        """Where the key comes from, as a person reads it (``$MY_KEY``, ``stored``, ``none``)."""
        if self.key_env:
            return f"${self.key_env}"
        return "stored" if self.key_stored else "none"


def check_endpoint(name: str, base_url: str, model: str, key_env: str = "") -> None:
    """Refuse a malformed endpoint with an ``EndpointError`` naming the field."""
    if not _NAME.fullmatch(name):
        raise EndpointError("bad_request", "name: 1-64 letters, digits, '.', '_' or '-', "
                            "starting with a letter or digit")  # fmt: skip
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError("bad_request", "base_url: an http:// or https:// address")
    if parts.username or parts.password or parts.query or parts.fragment:
        # A credential in the address would be listed to every browser: keys go in the key.
        raise EndpointError("bad_request", "base_url: no user, password, query or fragment "
                            "(give the key as the key)")  # fmt: skip
    if len(base_url) > 2048 or any(c.isspace() or ord(c) < 32 for c in base_url):
        raise EndpointError("bad_request", "base_url: not a plain address")
    if not model or len(model) > 256 or any(ord(c) < 32 for c in model):
        raise EndpointError("bad_request", "model: the model's name at the endpoint")
    if key_env and not _ENV_NAME.fullmatch(key_env):
        raise EndpointError("bad_request", "key_env: an environment variable's name")


def default_folder() -> Path:
    """``<jupyter data dir>/jupyter_operator/models`` (``$JUPYTER_DATA_DIR`` moves it)."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "jupyter_operator" / FOLDER_NAME


def _keyring() -> Any:
    """The system keyring when one is installed and usable, else None (the 0600 file)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # a broken keyring installation is no keyring
        return None
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 0) < 1:
        return None
    return keyring


def _read_private(path: Path) -> dict[str, Any]:
    """A JSON object from ``path`` (empty when missing); refused unless a plain file of this
    user's that nobody else can read or write."""
    try:
        fd = os.open(path, os.O_RDONLY | O_NOFOLLOW)
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise EndpointError("store", f"{path.name} cannot be opened "
                            f"({os.strerror(exc.errno or 5)}; a link is refused)") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise EndpointError("store", f"{path.name} is not a plain file")
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            raise EndpointError("store", f"{path.name} belongs to another user")
        if info.st_mode & 0o077:
            raise EndpointError("store", f"{path.name} is open to other users (it must be "
                                "0600: chmod 600 it)")  # fmt: skip
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    finally:
        os.close(fd)
    try:
        data = json.loads(b"".join(chunks) or b"{}")
    except ValueError:
        raise EndpointError("store", f"{path.name} is not valid JSON") from None
    if not isinstance(data, dict):
        raise EndpointError("store", f"{path.name} is not a JSON object")
    return data


def _write_private(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` whole, 0600: a temporary file, then renamed over it."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = path.parent / f".{path.name}.{secrets.token_hex(8)}"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_NOFOLLOW, 0o600)
    try:
        os.write(fd, json.dumps(data, indent=1, sort_keys=True).encode("utf-8"))
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        temporary.unlink()
        raise
    os.close(fd)
    os.replace(temporary, path)


@contextlib.contextmanager
def _changing(folder: Path) -> Iterator[None]:
    """Hold the store's lock while its files are read, changed and written back: the server
    and ``jupyter-operator models`` may both add or remove at once, and without the lock the
    later write would drop the other's change. An ``flock`` on its own open file, so threads of
    one process exclude each other as well as processes."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(folder / LOCK_NAME, os.O_RDWR | os.O_CREAT | O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


class EndpointStore:
    """The saved endpoints of this user (``folder``: default :func:`default_folder`).

    ``use_keyring``: None picks the system keyring when one is usable; False always uses the
    0600 file.
    """

    def __init__(self, folder: str | os.PathLike[str] | None = None, *,
                 use_keyring: bool | None = None) -> None:  # fmt: skip
        self.folder = Path(folder) if folder is not None else default_folder()
        self._keyring = None if use_keyring is False else _keyring()

    @property
    def list_file(self) -> Path:
        return self.folder / LIST_NAME

    @property
    def keys_file(self) -> Path:
        return self.folder / KEYS_NAME

    def saved(self) -> list[Endpoint]:
        """The endpoints a person added, in the order they were added."""
        entries = _read_private(self.list_file).get("endpoints", [])
        found = []
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict):
                continue
            try:
                check_endpoint(entry.get("name", ""), entry.get("base_url", ""),
                               entry.get("model", ""), entry.get("key_env", ""))  # fmt: skip
            except (EndpointError, TypeError):
                continue  # a hand-edited entry that does not fit is left out
            found.append(Endpoint(entry["name"], entry["base_url"], entry["model"],
                                  entry.get("key_env", ""), bool(entry.get("key_stored")),
                                  "saved"))  # fmt: skip
        return found

    def add(self, endpoint: Endpoint, key: str | None = None, *,
            taken: Iterable[str] = ()) -> Endpoint:  # fmt: skip
        """Save ``endpoint`` (its typed ``key``, if any, stored apart); ``taken``: names of
        endpoints configured elsewhere, which a saved one may not shadow."""
        check_endpoint(endpoint.name, endpoint.base_url, endpoint.model, endpoint.key_env)
        with _changing(self.folder):
            return self._add(endpoint, key, taken)

    def _add(self, endpoint: Endpoint, key: str | None, taken: Iterable[str]) -> Endpoint:
        saved = self.saved()
        if endpoint.name in taken or any(e.name == endpoint.name for e in saved):
            raise EndpointError("endpoint_exists", f"An endpoint named {endpoint.name!r} exists "
                                "already: remove it first, or pick another name")  # fmt: skip
        if key is not None and (not key.strip() or len(key) > MAX_KEY
                                or any(ord(c) < 32 for c in key)):  # fmt: skip
            raise EndpointError("bad_request", "api_key: not a key (empty, too long, or with "
                                "control characters)")  # fmt: skip
        if key is not None and endpoint.key_env:
            raise EndpointError("bad_request", "give either api_key or key_env, not both")
        entry = Endpoint(endpoint.name, endpoint.base_url, endpoint.model, endpoint.key_env,
                         key is not None, "saved")  # fmt: skip
        if key is not None:
            self._store_key(entry.name, key)
        rows = [_row(e) for e in saved] + [_row(entry)]
        _write_private(self.list_file, {"endpoints": rows})
        return entry

    def remove(self, name: str) -> None:
        """Forget the saved endpoint ``name`` and its stored key."""
        with _changing(self.folder):
            saved = self.saved()
            if not any(e.name == name for e in saved):
                raise EndpointError("endpoint_not_found", "No saved endpoint with this name")
            rows = [_row(e) for e in saved if e.name != name]
            _write_private(self.list_file, {"endpoints": rows})
            self._forget_key(name)

    def key(self, name: str) -> str | None:
        """The stored key of ``name`` (only to build its client; never shown)."""
        if self._keyring is not None:
            with contextlib.suppress(Exception):
                found = self._keyring.get_password(KEYRING_SERVICE, name)
                if found:
                    return str(found)
        value = _read_private(self.keys_file).get(name)
        return value if isinstance(value, str) else None

    def _store_key(self, name: str, key: str) -> None:
        if self._keyring is not None:
            try:
                self._keyring.set_password(KEYRING_SERVICE, name, key)
                return
            except Exception:  # a locked or broken keyring: the 0600 file instead
                pass
        keys = _read_private(self.keys_file)
        keys[name] = key
        _write_private(self.keys_file, keys)

    def _forget_key(self, name: str) -> None:
        if self._keyring is not None:
            with contextlib.suppress(Exception):
                self._keyring.delete_password(KEYRING_SERVICE, name)
        keys = _read_private(self.keys_file)
        if name in keys:
            del keys[name]
            _write_private(self.keys_file, keys)


def _row(endpoint: Endpoint) -> dict[str, Any]:
    row = asdict(endpoint)
    del row["source"]
    return row


def build_model(endpoint: Endpoint, store: EndpointStore | None, *,
                hints: Any = None, **options: Any) -> Any:  # fmt: skip
    """An ``OpenAIChat`` for ``endpoint``: its key from ``$key_env``, else the stored key, else
    the SDK's ``$OPENAI_API_KEY`` (none needed for a local server). ``ModelError`` with one
    sentence when it cannot be made (a named variable that is not set says so)."""
    from .openai_chat import OpenAIChat, SettingHints

    key: str | None = None
    if endpoint.key_env:
        key = os.environ.get(endpoint.key_env)
        if not key:
            raise ModelError("config", f"The endpoint {endpoint.name!r} reads its key from "
                             f"${endpoint.key_env}, which is not set where the model is "
                             "called")  # fmt: skip
    elif endpoint.key_stored and store is not None:
        key = store.key(endpoint.name)
        if not key:
            raise ModelError("config", f"The stored key of the endpoint {endpoint.name!r} is "
                             "gone: remove the endpoint and add it again")  # fmt: skip
    hints = hints or SettingHints(api_key="or add the endpoint again with its key")
    return OpenAIChat(endpoint.model, base_url=endpoint.base_url, api_key=key, hints=hints,
                      **options)  # fmt: skip
