"""c2k works end to end: units.c_to_k, the cli.py command, and a README table row.

units.py and cli.py run in a child process (taskcheck.run_python), on temperatures drawn for
this run; the results are judged here.
"""

import random
from pathlib import Path

from taskcheck import fail, run_python

CALL = '''
def main(data):
    units = load("units.py")
    return {"c_to_k": units.c_to_k(data["celsius"]), "c_to_f": units.c_to_f(100),
            "cli": [run_script("cli.py", args) for args in data["commands"]]}
'''


# The files first: the model's code runs after, and may rewrite them.
lines = Path("README.md").read_text(encoding="utf-8").splitlines()
rows = [line for line in lines if line.startswith("|")]
wanted = ["| command | converts |", "| --- | --- |", "| `c2f` | Celsius to Fahrenheit |",
          "| `f2c` | Fahrenheit to Celsius |", "| `c2k` | Celsius to Kelvin |"]  # fmt: skip
if [" ".join(row.split()).lower() for row in rows] != [row.lower() for row in wanted]:
    fail(f"the README's table is {rows}, expected a last row '| `c2k` | Celsius to Kelvin |'")
first = lines.index(rows[0])
if lines[first : first + len(rows)] != rows:
    fail("the README's table is split in two")
rng = random.SystemRandom()
celsius = rng.randrange(-2000, 2000) / 10
commands = [["c2k", "21.5"], ["c2k", str(celsius)], ["c2f", "21.5"], ["f2c", "212"]]
got = run_python(CALL, {"celsius": celsius, "commands": commands}, what="units.py and cli.py")
if not isinstance(got, dict):
    fail(f"units.py and cli.py gave {got!r}")
kelvin, fahrenheit = got.get("c_to_k"), got.get("c_to_f")
if not isinstance(kelvin, float) or abs(kelvin - (celsius + 273.15)) > 1e-9:
    fail(f"c_to_k({celsius}) is {kelvin!r}, expected {celsius + 273.15!r}")
if not isinstance(fahrenheit, (int, float)) or abs(fahrenheit - 212) > 1e-9:
    fail(f"c_to_f(100) is {fahrenheit!r}, expected 212")
wanted = ["294.65\n", f"{celsius + 273.15:.2f}\n", "70.70\n", "100.00\n"]
for args, printed, expected in zip(commands, got.get("cli") or [], wanted, strict=False):
    if printed != expected:
        fail(f"python3 cli.py {' '.join(args)} printed {printed!r}, expected {expected!r}")
if len(got.get("cli") or []) != len(commands):
    fail(f"cli.py gave {got.get('cli')!r}, not one output per command")
print("OK: c2k is in units.py, cli.py and the README")
