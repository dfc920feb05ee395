"""textstats.py exists in the workspace root and its two functions count words and lines.

The functions run in a child process (taskcheck.run_python) on fixed cases and on random texts
made for this run; their results are compared here.
"""

import random
from pathlib import Path

from taskcheck import fail, run_python, same

CASES = [
    ("word_count", "", 0),
    ("word_count", "one", 1),
    ("word_count", "  two   words\n", 2),
    ("word_count", "tabs\tand\nnew lines count too", 6),
    ("line_count", "", 0),
    ("line_count", "one", 1),
    ("line_count", "a\nb\n", 2),
    ("line_count", "a\nb", 2),
    ("line_count", "a\n\nc\n", 3),
]
CALL = '''
def main(cases):
    module = load("textstats.py")
    return [getattr(module, name)(text) for name, text in cases]
'''


def random_text(rng: random.Random) -> str:
    lines = [" ".join(rng.choice(["ab", "cd", "e", "fgh"]) for _ in range(rng.randrange(0, 6)))
             for _ in range(rng.randrange(0, 6))]  # fmt: skip
    return "\n".join(lines) + rng.choice(["", "\n"])


if not Path("textstats.py").is_file():
    fail("textstats.py is missing from the workspace root")
rng = random.SystemRandom()
cases = list(CASES)
for _ in range(4):
    text = random_text(rng)
    cases += [("word_count", text, len(text.split())), ("line_count", text, len(text.splitlines()))]
got = run_python(CALL, [[name, text] for name, text, _ in cases], what="textstats.py")
if not isinstance(got, list) or len(got) != len(cases):
    fail(f"textstats.py gave {got!r} instead of one result per call")
for (name, text, expected), value in zip(cases, got, strict=True):
    if not same(value, expected):
        fail(f"{name}({text!r}) returned {value!r}, expected {expected!r}")
print("OK: textstats.word_count and textstats.line_count work")
