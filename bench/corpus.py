"""The corpus of model replies: the share that ends with the intended change applied (or the
expected stop) after at most one corrective turn, against the loop as it was before (a reply
without OPERATOR_CMD blocks ended the run as done), in the same run.

The corpus is ``tests/data/model_replies/replies.jsonl`` (each family's leaked tool call, each
unexpected stop, near misses, and replies that are fine). Turn 2 is what a model that follows
the loop's answer sends (``tests/support/model_corpus.py``). The baseline is the same replies
with the loop's answers switched off: a reply without blocks ends the run and calls in a model's
own format are not looked for; nothing else changes. A third figure is the loop with a person who
approves the translated calls on their cards (the change is then applied in the first turn).

Usage: ``python bench/corpus.py``
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from support.model_corpus import approve_translations, run_all

from jupyter_operator.agent import stops
from jupyter_operator.engine import foreign_calls


def baseline_end(self, turn, reply, finish, corrected):
    """The loop before: a reply without blocks ends the run as done."""
    return "done", f"The model finished after {turn} turns."


def share(outcomes) -> tuple[int, int, Counter, Counter]:
    by_kind, handled_by_kind = Counter(), Counter()
    for outcome in outcomes:
        group = outcome.kind.split(":")[0]
        by_kind[group] += 1
        handled_by_kind[group] += outcome.handled
    return sum(o.handled for o in outcomes), len(outcomes), handled_by_kind, by_kind


def main() -> None:
    started = time.perf_counter()
    now = share(run_all())
    approving = share(run_all(approve_translations))
    with mock.patch.object(stops.TurnEnd, "without_blocks", baseline_end), \
            mock.patch.object(foreign_calls, "entries", lambda text, taken, extensions: []):
        before = share(run_all())
    for label, (handled, total, by, of) in (("loop now", now), ("loop before", before),
                                            ("now, translations approved", approving)):
        groups = ", ".join(f"{group} {by[group]}/{of[group]}" for group in sorted(of))
        print(f"{label}: {handled}/{total} = {handled / total:.1%} handled ({groups})")
    print(f"ratio now/before: {now[0] / max(before[0], 1):.2f} "
          f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
