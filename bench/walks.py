"""Where control goes: the stays of a reply's walk and of a cell run's walk through the package.

A *walk* is everything the package does for one request, traced with ``sys.setprofile``:

(a) **reply**: a plain ``OPERATOR_CMD`` reply with an ``fs.write`` and an ``fs.read``, planned
    through ``engine.plan`` and the write approved through ``Run.approve``;
(b) **cell run**: one ``nb.runCell`` planned through ``engine.plan`` and approved through
    ``Run.approve``, in the session's own headless kernel (as the engine's tests run one).

Counting, precisely:

- A frame's *module* is its ``__name__`` global. Python frames of the standard library and of
  third parties are transparent: calls into them, and returns out of them, do not change where
  control is. So are the layers beneath the engine (``protocol``, ``dialects``, ``notebooks``,
  ``sequences``, ``workspace``, ``shell``, ``execution``): they are the engine's libraries,
  import nothing above them (``tests/test_layers.py``) and never hold its state. That is the
  one rule; every module of ``jupyter_operator.engine`` (and any front above it) counts,
  however small (a dataclass's constructor, a property, a one-line helper).
- Control is *in* a counted module from a ``call`` event of one of its frames, or a ``return``
  event whose caller (``f_back``) is one of its frames, until such an event of another counted
  module. Returns count as calls do: ``A`` calling ``B`` and getting the answer back is
  ``A, B, A``.
- A *stay* is a maximal stretch of events in one counted module; an *entry* into a module is the
  start of a stay there. So a module's entries are its stays, the first one included.
- The walk is traced after the same walk has run once untraced (imports and first-use caches
  are not part of it).

Two readings are printed. The target (at most two per module) is held on the second:

- *stays* (strict): every return to the caller starts a new stay in it, so a coordinator that
  calls three helpers in turn is entered four times. It is printed to show the bouncing that
  is left; ``tests/engine/test_walks.py`` holds a ceiling on it, and an expected failure says
  it is above two.
- *calls in*: the calls into a module from code of another counted module (the nearest counted
  frame below it); a return to the caller is not a call in. It is what a reader following the
  walk opens a file for, and what the target counts: each walk calls into no engine module
  more than twice (``tests/engine/test_walks.py`` asserts it).

Run: ``.venv/bin/python bench/walks.py`` prints each walk's stays in order and the entries per
module. ``tests/engine/test_walks.py`` runs the same walks and asserts at most two calls in per
module.
"""

from __future__ import annotations

import base64
import sys
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PACKAGE = "jupyter_operator"
#: The layers beneath the engine: transparent, like the standard library (the one rule).
LIBRARIES = tuple(f"{PACKAGE}.{name}" for name in (
    "protocol", "dialects", "notebooks", "sequences", "workspace", "shell", "execution",
))  # fmt: skip
LIMIT = 2


def counted(module: str) -> str | None:
    """The name a module is counted under (``engine/operator.py``), or None if transparent."""
    if module != PACKAGE and not module.startswith(PACKAGE + "."):
        return None
    if any(module == lib or module.startswith(lib + ".") for lib in LIBRARIES):
        return None
    return module.removeprefix(PACKAGE + ".").replace(".", "/") + ".py"


@dataclass
class Walk:
    """The stays of one walk, in order, as ``(module, events)``."""

    name: str
    stays: list[tuple[str, int]]
    #: The calls into each counted module from another one, in order, as
    #: ``(caller module, module, function)`` (the looser reading of the docstring).
    calls_in: list[tuple[str | None, str, str]] = field(default_factory=list)

    @property
    def calls_in_per_module(self) -> Counter[str]:
        """Calls into each counted module from another one."""
        return Counter(module for _, module, _ in self.calls_in)

    @property
    def entries(self) -> Counter[str]:
        """Entries into each counted module (the number of its stays)."""
        return Counter(module for module, _ in self.stays)

    @property
    def over(self) -> dict[str, int]:
        """The modules entered more than ``LIMIT`` times, and how often."""
        return {module: n for module, n in self.entries.items() if n > LIMIT}

    def table(self) -> str:
        """The stays in order and the entries per module, as text."""
        lines = [f"{self.name}: {len(self.stays)} stays in {len(self.entries)} modules",
                 "  " + " -> ".join(module.removesuffix(".py") for module, _ in self.stays),
                 "  entries:"]  # fmt: skip
        for module, n in self.entries.most_common():
            lines.append(f"    {n:3d}  {module}")
        lines.append(f"  calls in ({len(self.calls_in)}):")
        for module, n in self.calls_in_per_module.most_common():
            lines.append(f"    {n:3d}  {module}")
        return "\n".join(lines)


def trace(name: str, walk: Callable[[], Any]) -> Walk:
    """Run ``walk()`` under ``sys.setprofile`` and return its stays."""
    stays: list[tuple[str, int]] = []
    names: dict[Any, str | None] = {}  # code object -> counted module (or None)

    def where(frame: FrameType | None) -> str | None:
        if frame is None:
            return None
        code = frame.f_code
        if code not in names:
            names[code] = counted(frame.f_globals.get("__name__", ""))
        return names[code]

    calls_in: list[tuple[str | None, str, str]] = []

    def caller(frame: FrameType) -> str | None:
        back = frame.f_back
        while back is not None and where(back) is None:
            back = back.f_back
        return where(back)

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if event == "call":
            module = where(frame)
            if module is not None and caller(frame) != module:
                calls_in.append((caller(frame), module, frame.f_code.co_name))
        elif event == "return":
            module = where(frame.f_back)
        else:  # c_call, c_return, c_exception: C code is transparent
            return
        if module is None:
            return
        if stays and stays[-1][0] == module:
            stays[-1] = (module, stays[-1][1] + 1)
        else:
            stays.append((module, 1))

    sys.setprofile(profile)
    try:
        walk()
    finally:
        sys.setprofile(None)
    return Walk(name, stays, calls_in)


# --- the two walks ---------------------------------------------------------------------------
def _block(id: str, action: str, **fields: str) -> str:
    lines = ["OPERATOR_CMD", "version: 1", f"id: {id}", f"action: {action}"]
    lines += [f"{key}: {value}" for key, value in fields.items()]
    return "\n".join([*lines, "END_OPERATOR_CMD"]) + "\n"


REPLY = ("I add a greeting module and read the notes.\n"
         + _block("w1", "fs.write", path="src/hello.py",
                  content_b64=base64.b64encode(b"def hello():\n    return 'hello'\n").decode())
         + _block("r1", "fs.read", path="notes.md"))  # fmt: skip
NOTEBOOK = ('{"cells": [{"cell_type": "code", "execution_count": null, "id": "c1", '
            '"metadata": {}, "outputs": [], "source": "x = 41\\nprint(x + 1)"}], '
            '"metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", '
            '"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}\n')  # fmt: skip
CELL_RUN = _block("c1", "nb.runCell", notebook="nb.ipynb", cell_id="c1")


@dataclass
class Ready:
    """One walk ready to go: ``walk()`` is traced; ``check(*walk())`` and ``close()`` are not."""

    walk: Callable[[], tuple[Any, Any]]
    check: Callable[[Any, Any], None]
    close: Callable[[], None]


def reply_walk(root: Path) -> Ready:
    """Walk (a) in a fresh workspace under ``root``: plan the reply, approve the write."""
    from jupyter_operator.engine import Operator, plan

    (root / "src").mkdir(parents=True)
    (root / "notes.md").write_text("# Notes\nhello\n", encoding="utf-8")
    operator = Operator(root, journal_dir=root.parent / f"{root.name}-journal")

    def walk() -> tuple[Any, Any]:
        run = plan(operator, REPLY)
        return run, run.approve("w1")

    def check(run: Any, decision: Any) -> None:
        assert decision.outcome == "applied" and run.done, run.results_text
        assert (root / "src" / "hello.py").is_file() and run.items[1].status == "done"

    return Ready(walk, check, operator.close)


def cell_run_walk(root: Path) -> Ready:
    """Walk (b) in a fresh workspace under ``root``: plan one cell run, approve it."""
    from jupyter_operator.engine import Operator, plan

    root.mkdir(parents=True)
    (root / "nb.ipynb").write_text(NOTEBOOK, encoding="utf-8")
    operator = Operator(root, extensions=("nb",), journal_dir=root.parent / f"{root.name}-j")
    operator.runner.kernel("nb.ipynb", "python3")  # the runner exists; no kernel starts

    def walk() -> tuple[Any, Any]:
        run = plan(operator, CELL_RUN)
        return run, run.approve("c1")

    def check(run: Any, decision: Any) -> None:
        assert decision.outcome == "applied" and run.done, run.results_text
        assert run.items[0].status == "done" and "42" in run.results_text, run.results_text

    return Ready(walk, check, operator.close)


WALKS: dict[str, Callable[[Path], Ready]] = {
    "reply": reply_walk,
    "cell run": cell_run_walk,
}


def measure(name: str, folder: Path) -> Walk:
    """Walk ``name`` once untraced (warm-up), then traced in a fresh workspace."""
    make = WALKS[name]
    found = None
    for round in range(2):
        ready = make(folder / f"{name.replace(' ', '-')}-{round}")
        try:
            outcome: list[tuple[Any, Any]] = []
            if round:
                found = trace(name, lambda: outcome.append(ready.walk()))  # noqa: B023
            else:
                outcome.append(ready.walk())
            ready.check(*outcome[0])
        finally:
            ready.close()
    assert found is not None
    return found


def main() -> int:
    worst = loose = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in WALKS:
            walk = measure(name, Path(tmp))
            print(walk.table(), end="\n\n")
            worst = max(worst, *walk.entries.values())
            loose = max(loose, *walk.calls_in_per_module.values())
    print(f"most stays in one module (strict reading): {worst}")
    print(f"most calls into one module from another: {loose} (target at most {LIMIT})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
