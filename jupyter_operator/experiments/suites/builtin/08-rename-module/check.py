"""utils/strng.py is now utils/strings.py (same content) and app.py imports it from there.

app.py runs in a child process (taskcheck.run_python) on names drawn for this run; what it
printed is judged here.
"""

import random
from pathlib import Path

from taskcheck import fail, run_python

CONTENT = '''"""String helpers."""


def title_case(text: str) -> str:
    """Capitalise each word: ``"ada lovelace"`` -> ``"Ada Lovelace"``."""
    return " ".join(word.capitalize() for word in text.split())
'''
CALL = '''
def main(names):
    return run_script("app.py", names)
'''


if Path("utils/strng.py").exists():
    fail("utils/strng.py still exists; the module must only be at utils/strings.py")
new = Path("utils/strings.py")
if not new.is_file():
    fail("utils/strings.py is missing")
if new.read_text(encoding="utf-8").splitlines() != CONTENT.splitlines():
    fail("utils/strings.py does not have the module's content unchanged")
for path in sorted(Path(".").rglob("*.py")):
    if "strng" in path.read_text(encoding="utf-8"):
        fail(f"{path.as_posix()} still mentions strng")
if "from utils.strings import title_case" not in Path("app.py").read_text(encoding="utf-8"):
    fail("app.py does not import title_case from utils.strings")
rng = random.SystemRandom()
names = ["ada lovelace", " ".join(rng.choice(["grace", "alan", "edsger", "barbara", "hopper",
                                                "turing", "liskov", "dijkstra"])
                                     for _ in range(rng.randrange(1, 4)))]  # fmt: skip
printed = run_python(CALL, names, what=f"python3 app.py {' '.join(map(repr, names))}")
wanted = "".join(f"Hello, {name.title()}!\n" for name in names)
if printed != wanted:
    fail(f"python3 app.py {' '.join(map(repr, names))} printed {printed!r}, expected {wanted!r}")
print("OK: the module is utils/strings.py and app.py uses it")
