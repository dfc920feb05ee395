"""The unit tests in test_slug.py pass, unchanged, and slugify handles cases they do not cover.

test_slug.py must keep its bytes (the fix belongs in slug.py). Its cases, as the task shipped
them, are kept here, outside the model's reach: slugify runs in a child process
(taskcheck.run_python) on their titles and on titles drawn for this run, and what it returns is
compared here. No test runner of the workspace's (a conftest.py, a patched unittest) is asked.
"""

import hashlib
import random
import re
from pathlib import Path

from taskcheck import fail, run_python, same

TESTS_SHA256 = "c483a33777bf7fc1c9a721be0af8b928579c6336b15fab09ce9d06c4a86e5ceb"
#: The assertions of test_slug.py as shipped: (test, title, expected slug).
ORIGINAL_TESTS = [
    ("test_simple", "Hello World", "hello-world"),
    ("test_punctuation_is_dropped", "Hello, World!", "hello-world"),
    ("test_extra_spaces", "  many   spaces  ", "many-spaces"),
    ("test_digits_are_kept", "Top 10 tips", "top-10-tips"),
]
#: Cases the tests do not cover.
MORE = [("Rock & Roll", "rock-roll"), ("Why? Because.", "why-because")]
CALL = '''
def main(titles):
    slugify = load("slug.py").slugify
    return [slugify(title) for title in titles]
'''


def drawn_title(rng: random.Random) -> str:
    words = ["Alpha", "beta", "GAMMA", "x2", "42", "delta"]
    seps = [" ", ", ", " - ", "! ", "  ", "/", " & "]
    parts = [rng.choice(words) for _ in range(rng.randrange(1, 5))]
    return rng.choice(["", " ", "¿"]) + "".join(p + rng.choice(seps) for p in parts).rstrip()


tests = Path("test_slug.py")
if not tests.is_file() or hashlib.sha256(tests.read_bytes()).hexdigest() != TESTS_SHA256:
    fail("test_slug.py was changed or removed; the fix belongs in slug.py")
if not Path("slug.py").is_file():
    fail("slug.py is missing")
rng = random.SystemRandom()
cases = [(title, slug) for _, title, slug in ORIGINAL_TESTS] + MORE
for _ in range(4):
    title = drawn_title(rng)
    cases.append((title, "-".join(re.findall(r"[a-z0-9]+", title.lower()))))
got = run_python(CALL, [title for title, _ in cases], what="slug.slugify")
if not isinstance(got, list) or len(got) != len(cases):
    fail(f"slug.slugify gave {got!r} instead of one slug per title")
names = {title: name for name, title, _ in ORIGINAL_TESTS}
for (title, expected), slug in zip(cases, got, strict=True):
    if not same(slug, expected):
        test = f" (test_slug.{names[title]} fails)" if title in names else ""
        fail(f"slugify({title!r}) is {slug!r}, expected {expected!r}{test}")
print("OK: the tests pass")
