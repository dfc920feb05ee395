"""No module under src/ calls time.clock(); Timer works on Python 3.8+; docs/ is unchanged."""

import hashlib
import importlib.util
import sys
import time
from pathlib import Path
from typing import NoReturn

sys.dont_write_bytecode = True

UNCHANGED = {
    "docs/history.md": "5f528bb786e51cd0b58ac73e238d242b3f5b1cca20ee8ae14c53ea68c5d3f19a",
    "src/app/main.py": "a0a49a231b1a986146554877633b7940dc4511cc12ce2ff05c5c4b3deee3516e",
}


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


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
spec = importlib.util.spec_from_file_location("timer", timer_path)
module = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(module)
    with module.Timer() as timer:
        time.sleep(0.01)
except Exception as exc:
    fail(f"using Timer raised {type(exc).__name__}: {exc}")
if not 0.005 < timer.elapsed < 5:
    fail(f"Timer measured {timer.elapsed!r} s for a 10 ms sleep")
print("OK: Timer uses time.perf_counter()")
