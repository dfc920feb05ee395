"""main.py prints the total with two decimals; the vendored package is unchanged."""

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

VENDOR_SHA256 = "b2aa0020f0b8e30a00001b9b56643a6b4fd28bed162dc0874352ab6ce112f36e"


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


vendored = Path("vendor/money.py")
if not vendored.is_file() or hashlib.sha256(vendored.read_bytes()).hexdigest() != VENDOR_SHA256:
    fail("vendor/money.py was changed or removed")
extra = sorted(p.as_posix() for p in Path("vendor").rglob("*") if p.name != "money.py")
if extra:
    fail(f"files were added under vendor/: {', '.join(extra)}")
env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
done = subprocess.run([sys.executable, "main.py"], capture_output=True, text=True,
                      timeout=60, env=env)  # fmt: skip
if done.returncode != 0 or done.stdout != "Total: 1,560.35 EUR\n":
    fail(f"python3 main.py printed {done.stdout!r} {done.stderr.strip()[-200:]!r}")
print("OK: the total has two decimals and vendor/ is untouched")
