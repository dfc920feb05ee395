"""What the approval display costs, as ratios against baselines measured in the same run.

1. A reply of 20 commands (10 fs.read, 10 fs.applyEdits on 2,000-line files): planning it and
   building the whole display, against planning it with no display.
   Target: (plan + display) / plan <= 1.5. To show what limits it, the display is also built
   with the diffs uncoloured (pygments' lexing is then left out), and the widget models alone
   are counted and timed (the same number of HTML widgets sharing one layout and style).
2. One card for a 10,000-line diff against one for a 500-line diff. Target: about 1 (the
   preview renders a fixed number of lines; "Show all" renders the rest on request).

Timings are the best of several runs (the machine is shared and noisy). Widgets are built
outside a kernel, so comm traffic (JSON encoding, zmq) is not included.

    .venv/bin/python bench/display.py [--repeat N]
"""

from __future__ import annotations

import argparse
import base64
import gc
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def best_of(repeat: int, fn: Callable[[], object], after: Callable[[], object]) -> float:
    """The fastest of ``repeat`` timed calls, in seconds; ``after`` runs untimed after each."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
        after()
    return best


def count_models(root: object) -> int:
    """The distinct widget models reachable from ``root`` (children, layouts, styles)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        widget = stack.pop()
        if widget is None or id(widget) in seen:
            continue
        seen.add(id(widget))
        stack.extend(getattr(widget, "children", ()))
        stack.extend(getattr(widget, name, None) for name in ("layout", "style"))
    return len(seen)


def bare_models(count: int) -> list[object]:
    """``count`` widget models: HTML widgets sharing one layout and one style."""
    from ipywidgets import HTML, Layout
    from ipywidgets.widgets.widget_string import HTMLStyle

    layout, style = Layout(), HTMLStyle()
    return [HTML(value="x", layout=layout, style=style) for _ in range(count - 2)]


def block(id: str, action: str, path: str, **fields: str) -> str:
    lines = ["OPERATOR_CMD", "version: 1", f"id: {id}", f"action: {action}", f"path: {path}"]
    lines += [f"{k}: {v}" for k, v in fields.items()] + ["END_OPERATOR_CMD"]
    return "\n".join(lines)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def make_reply(root: Path) -> str:
    """10 reads and 10 applyEdits over ten 2,000-line files (written into ``root``)."""
    blocks = []
    for n in range(10):
        name = f"module_{n}.py"
        lines = [f"def function_{i}(x):  # line {i}\n    return x + {i}\n" for i in range(1000)]
        (root / name).write_text("".join(lines))
        blocks.append(block(f"read-{n}", "fs.read", name))
        edits = {
            "version": 1,
            "edits": [
                {"op": "replaceFirst", "find": "return x + 500", "text": "return x * 500"},
                {"op": "insertAfter", "anchor": "# line 999", "text": "\n    # checked"},
            ],
        }
        blocks.append(block(f"edit-{n}", "fs.applyEdits", name, edits_b64=b64(json.dumps(edits))))
    return "Here are my changes.\n\n" + "\n\n".join(blocks) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs per measurement (best kept)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["JUPYTER_OPERATOR_JOURNAL_DIR"] = str(Path(tmp) / "journal")
        root = Path(tmp) / "ws"
        root.mkdir()

        from ipywidgets import Widget

        from jupyter_operator.engine import Operator
        from jupyter_operator.widgets import RunView, diff_html
        from jupyter_operator.widgets.cards import ItemCard
        from jupyter_operator.widgets.render import escape

        text = make_reply(root)

        def plan() -> object:
            # A fresh session each time: one session would skip the ids as duplicates.
            return Operator(root).run(text)

        first = plan()
        assert len(first.items) == 20 and len(first.pending) == 10, "unexpected plan"
        RunView(first)  # warm-up: imports, pygments lexer tables

        # Interleaved, so both sides see the same machine load; best of each. The widgets of
        # each round are closed afterwards (ipywidgets keeps every open widget alive, and a
        # growing heap would charge ever longer garbage collections to the later rounds).
        t_plan = t_display = float("inf")
        for _ in range(args.repeat):
            gc.collect()
            start = time.perf_counter()
            run = plan()
            middle = time.perf_counter()
            RunView(run)
            end = time.perf_counter()
            t_plan, t_display = min(t_plan, middle - start), min(t_display, end - middle)
            Widget.close_all()
        print("reply of 20 commands (10 fs.read, 10 fs.applyEdits on 2,000-line files)")
        print(f"  plan only              {t_plan * 1000:8.1f} ms")
        print(f"  display only           {t_display * 1000:8.1f} ms")
        print(f"  display/plan           {t_display / t_plan:8.2f}x")
        print(f"  (plan + display)/plan  {(t_plan + t_display) / t_plan:8.2f}x   target <= 1.5x")
        # What limits it: colouring the diffs (pygments) and building the widget models (every
        # model, layouts and styles included, costs about as much as an HTML widget; a
        # proposal needs a card box, its HTML and three buttons).
        models = count_models(RunView(plan()))
        Widget.close_all()
        t_plain = float("inf")
        coloured = diff_html.highlight_lines
        diff_html.highlight_lines = lambda lines, path: [escape(line) for line in lines]
        try:
            for _ in range(args.repeat):
                run = plan()
                gc.collect()
                start = time.perf_counter()
                RunView(run)
                t_plain = min(t_plain, time.perf_counter() - start)
                Widget.close_all()
        finally:
            diff_html.highlight_lines = coloured
        t_models = best_of(args.repeat, lambda: bare_models(models), Widget.close_all)
        print(f"  display, uncoloured    {t_plain * 1000:8.1f} ms   (colouring: "
              f"{(t_display - t_plain) * 1000:.1f} ms)")  # fmt: skip
        print(f"  widget models          {models:8d}      {t_models * 1000:.1f} ms to build as "
              f"many bare HTML widgets")  # fmt: skip

        def card_for(changed: int) -> Callable[[], object]:
            # Every line of the file changes, so the diff has 2 * changed + 3 lines; the
            # command itself stays small (a whole 10,000-line file would not fit in a reply).
            name = f"big_{changed}.txt"
            (root / name).write_text("".join(f"value_{i} = {i}\n" for i in range(changed)))
            edits = {"version": 1, "edits": [{"op": "replaceAll", "find": "value_", "text": "v_"}]}
            reply = block(f"big-{changed}", "fs.applyEdits", name, edits_b64=b64(json.dumps(edits)))
            item = Operator(root).run(reply).items[0]
            assert item.diff is not None, item.summary
            return lambda: ItemCard(item)

        small, large = card_for(250), card_for(5_000)  # diffs of 503 and 10,003 lines
        small_lines = small().item.diff.count("\n")  # type: ignore[attr-defined]
        large_lines = large().item.diff.count("\n")  # type: ignore[attr-defined]
        t_small = best_of(args.repeat * 3, small, Widget.close_all)
        t_large = best_of(args.repeat * 3, large, Widget.close_all)
        print("one card")
        print(f"  {small_lines:,}-line diff {t_small * 1000:12.2f} ms")
        print(f"  {large_lines:,}-line diff {t_large * 1000:10.2f} ms")
        print(f"  10,000 / 500           {t_large / t_small:8.2f}x   target: no more (about 1x)")


if __name__ == "__main__":
    main()
