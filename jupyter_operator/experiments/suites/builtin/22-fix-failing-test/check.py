"""The unit tests in test_slug.py pass, unchanged, and slugify handles a case they do not cover."""

import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

sys.dont_write_bytecode = True
TESTS_SHA256 = "c483a33777bf7fc1c9a721be0af8b928579c6336b15fab09ce9d06c4a86e5ceb"


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


tests = Path("test_slug.py")
if not tests.is_file() or hashlib.sha256(tests.read_bytes()).hexdigest() != TESTS_SHA256:
    fail("test_slug.py was changed; the fix belongs in slug.py")
env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
done = subprocess.run([sys.executable, "-m", "unittest", "-q", "test_slug"],
                      capture_output=True, text=True, timeout=120, env=env)  # fmt: skip
if done.returncode != 0:
    last = (done.stderr.strip().splitlines() or ["no output"])[-1]
    fail(f"python3 -m unittest test_slug failed: {last}")
spec = importlib.util.spec_from_file_location("slug", "slug.py")
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
for title, expected in [("Rock & Roll", "rock-roll"), ("Why? Because.", "why-because")]:
    got = module.slugify(title)
    if got != expected:
        fail(f"slugify({title!r}) is {got!r}, expected {expected!r}")
print("OK: the tests pass")
