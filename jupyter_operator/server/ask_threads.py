"""The Ask view's threads: one conversation per notebook (one per folder for other files).

A follow-up in the same thread continues the conversation the model last saw (compacted as
the agent compacts it, ``agent/compaction.py``), and a page reload shows it again. Each thread
is one JSON file in ``threads/`` beside the run transcripts, a folder every run's workspace
reserves (no model reads or writes it). The file is named by a digest of the workspace and the
thread's key, so a key (a path the page sends) never becomes a path on the disk. "New thread"
moves the file aside under a new name: the conversation starts afresh, nothing is deleted.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from .errors import ApiError

#: Characters of a thread's key (``notebook:<path>`` or ``folder:<path>``).
MAX_KEY_CHARS = 4200
_ROLES = ("user", "assistant")


def _checked(data: Any, workspace: str, key: str) -> list[dict[str, str]]:
    """The messages of a stored thread; ApiError when the file is not one of ours."""
    ok = (isinstance(data, dict) and data.get("workspace") == workspace
          and data.get("key") == key and isinstance(data.get("messages"), list)
          and all(isinstance(m, dict) and m.get("role") in _ROLES
                  and isinstance(m.get("content"), str) for m in data["messages"]))  # fmt: skip
    if not ok:
        raise ApiError(500, "thread_unreadable",
                       "This thread's file cannot be read; start a new thread")  # fmt: skip
    return [{"role": m["role"], "content": m["content"]} for m in data["messages"]]


class ThreadStore:
    """The threads of the Ask view in ``folder`` (``threads/`` beside the transcripts)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @staticmethod
    def check_key(key: str) -> str:
        """``key`` when it names a notebook or a folder thread; ApiError otherwise."""
        if not (key.startswith(("notebook:", "folder:")) and 0 < len(key) <= MAX_KEY_CHARS):
            raise ApiError(400, "bad_request", "thread: not a notebook: or folder: key")
        return key

    def _file(self, workspace: str, key: str) -> Path:
        digest = hashlib.sha256(json.dumps([workspace, key]).encode()).hexdigest()[:40]
        return self.folder / f"{digest}.json"

    def load(self, workspace: str, key: str) -> list[dict[str, str]]:
        """The thread's conversation (empty when it has none yet)."""
        path = self._file(workspace, self.check_key(key))
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except OSError:
            raise ApiError(500, "thread_unreadable", "This thread's file cannot be read") from None
        try:
            return _checked(json.loads(text), workspace, key)
        except ValueError:
            return _checked(None, workspace, key)

    def save(self, workspace: str, key: str, messages: list[dict[str, str]]) -> None:
        """Replace the thread's conversation (written whole, then moved into place)."""
        path = self._file(workspace, self.check_key(key))
        self.folder.mkdir(parents=True, exist_ok=True)
        data = {"workspace": workspace, "key": key, "updated": time.time(),
                "messages": [m for m in messages if m.get("role") in _ROLES]}  # fmt: skip
        temporary = path.with_suffix(".json.tmp")
        temporary.write_text(json.dumps(data), encoding="utf-8")
        os.replace(temporary, path)

    def restart(self, workspace: str, key: str) -> None:
        """Start the thread afresh: its file is kept aside under another name."""
        path = self._file(workspace, self.check_key(key))
        if path.exists():
            os.replace(path, path.with_name(f"{path.stem}-{time.time_ns()}.json.old"))
