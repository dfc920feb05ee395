"""utils/strng.py is now utils/strings.py (same content) and app.py imports it from there."""

import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

CONTENT = '''"""String helpers."""


def title_case(text: str) -> str:
    """Capitalise each word: ``"ada lovelace"`` -> ``"Ada Lovelace"``."""
    return " ".join(word.capitalize() for word in text.split())
'''


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


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
env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
done = subprocess.run(
    [sys.executable, "app.py", "ada lovelace"], capture_output=True, text=True, timeout=60, env=env
)
if done.returncode != 0 or done.stdout != "Hello, Ada Lovelace!\n":
    fail(f"python3 app.py 'ada lovelace' gave {done.stdout!r} {done.stderr.strip()[-200:]!r}")
print("OK: the module is utils/strings.py and app.py uses it")
