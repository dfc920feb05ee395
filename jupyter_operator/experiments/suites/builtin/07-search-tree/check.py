"""No module under src/ calls time.clock(); Timer works on Python 3.8+; docs/ is unchanged.

Timer runs in a child process (taskcheck.run_python), around two sleeps of lengths drawn for
this run, at least half a second apart; the times it measured are judged here.
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


def main(sleeps):
    timer_class = load("src/metrics/timer.py").Timer
    measured = []
    for seconds in sleeps:
        with timer_class() as timer:
            time.sleep(seconds)
        measured.append(timer.elapsed)
    return measured
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
rng = random.SystemRandom()
short = rng.randrange(20, 60) / 1000
sleeps = [short, short + rng.randrange(500, 700) / 1000]
measured = run_python(CALL, sleeps, what="src/metrics/timer.py")
if not isinstance(measured, list) or len(measured) != 2:
    fail(f"src/metrics/timer.py gave {measured!r}")
for seconds, elapsed in zip(sleeps, measured, strict=True):
    if not isinstance(elapsed, float) or not seconds * 0.9 <= elapsed < seconds + 1:
        fail(f"Timer measured {elapsed!r} s for a sleep of {seconds} s")
if measured[1] - measured[0] < 0.3:
    fail(f"Timer measured {measured[0]} s and {measured[1]} s for sleeps of {sleeps} s")
print("OK: Timer uses time.perf_counter()")
