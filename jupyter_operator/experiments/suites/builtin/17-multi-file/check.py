"""c2k works end to end: units.c_to_k, the cli.py command, and a README table row."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

sys.dont_write_bytecode = True


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


spec = importlib.util.spec_from_file_location("units", "units.py")
units = importlib.util.module_from_spec(spec)
try:
    spec.loader.exec_module(units)
    kelvin = units.c_to_k(0)
    fahrenheit = units.c_to_f(100)
except Exception as exc:
    fail(f"units.py: {type(exc).__name__}: {exc}")
if abs(kelvin - 273.15) > 1e-9 or abs(fahrenheit - 212) > 1e-9:
    fail(f"c_to_k(0) is {kelvin!r} and c_to_f(100) is {fahrenheit!r}")
env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
for args, expected in [(["c2k", "21.5"], "294.65\n"), (["c2f", "21.5"], "70.70\n"),
                       (["f2c", "212"], "100.00\n")]:  # fmt: skip
    done = subprocess.run([sys.executable, "cli.py", *args], capture_output=True, text=True,
                          timeout=60, env=env)  # fmt: skip
    if done.returncode != 0 or done.stdout != expected:
        fail(f"python3 cli.py {' '.join(args)} printed {done.stdout!r}, expected {expected!r}")
lines = Path("README.md").read_text(encoding="utf-8").splitlines()
rows = [line for line in lines if line.startswith("|")]
wanted = ["| command | converts |", "| --- | --- |", "| `c2f` | Celsius to Fahrenheit |",
          "| `f2c` | Fahrenheit to Celsius |", "| `c2k` | Celsius to Kelvin |"]  # fmt: skip
if [" ".join(row.split()).lower() for row in rows] != [row.lower() for row in wanted]:
    fail(f"the README's table is {rows}, expected a last row '| `c2k` | Celsius to Kelvin |'")
first = lines.index(rows[0])
if lines[first : first + len(rows)] != rows:
    fail("the README's table is split in two")
print("OK: c2k is in units.py, cli.py and the README")
