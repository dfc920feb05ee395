"""No module under src/ calls time.clock(); Timer works on Python 3.8+; docs/ is unchanged.

Timer runs in a child process (taskcheck.run_python), around a sleep of a length drawn for this
run; the time it measured is judged here.
"""

import hashlib
import random
from pathlib import Path

from taskcheck import fail, run_python

UNCHANGED = {
    "docs/history.md": "5f528bb786e51cd0b58ac73e238d242b3f5b1cca20ee8ae14c53ea68c5d3f19a",
    "src/app/main.py": "a0a49a231b1a986146554877633b7940dc4511cc12ce2ff05c5c4b3deee3516e",
}
CALL = '''
import time


def main(seconds):
    with load("src/metrics/timer.py").Timer() as timer:
        time.sleep(seconds)
    return timer.elapsed
'''


for path in sorted(Path("src").rglob("*.py")):
    if "time.clock(" in path.read_text(encoding="utf-8"):
        fail(f"{path.as_posix()} still calls time.clock()")
for name, digest in UNCHANGED.items():
    path = Path(name)
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
        fail(f"{name} was changed or removed; it must stay as it is")
timer_path = Path("src/metrics/timer.py")
if not timer_path.is_file():
    fail("src/metrics/timer.py is missing")
if "perf_counter" not in timer_path.read_text(encoding="utf-8"):
    fail("src/metrics/timer.py does not use time.perf_counter()")
seconds = random.SystemRandom().randrange(20, 200) / 1000
elapsed = run_python(CALL, seconds, what="src/metrics/timer.py")
if not isinstance(elapsed, float) or not seconds * 0.9 <= elapsed < seconds + 2:
    fail(f"Timer measured {elapsed!r} s for a sleep of {seconds} s")
print("OK: Timer uses time.perf_counter()")
