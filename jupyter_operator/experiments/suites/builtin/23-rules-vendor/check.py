"""main.py prints the total with two decimals; the vendored package is unchanged.

main.py runs in a child process (taskcheck.run_python), as it is and with invoice lines drawn
for this run; what it printed is judged here.
"""

import hashlib
import random
from pathlib import Path

from taskcheck import fail, run_python

VENDOR_SHA256 = "b2aa0020f0b8e30a00001b9b56643a6b4fd28bed162dc0874352ab6ce112f36e"
CALL = '''
import contextlib
import io


def main(lines):
    as_is = run_script("main.py")
    module = load("main.py", "invoice_main")
    module.LINES = [tuple(line) for line in lines]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        module.main()
    return [as_is, out.getvalue()]
'''


vendored = Path("vendor/money.py")
if not vendored.is_file() or hashlib.sha256(vendored.read_bytes()).hexdigest() != VENDOR_SHA256:
    fail("vendor/money.py was changed or removed")
extra = sorted(p.as_posix() for p in Path("vendor").rglob("*") if p.name != "money.py")
if extra:
    fail(f"files were added under vendor/: {', '.join(extra)}")
rng = random.SystemRandom()
lines = [[name, rng.randrange(1, 10**7) / 1000] for name in ("Design", "Support", "Licences")]
printed = run_python(CALL, lines, what="main.py")
total = sum(amount for _, amount in lines)
wanted = ["Total: 1,560.35 EUR\n", f"Total: {total:,.2f} EUR\n"]
if not isinstance(printed, list) or len(printed) != 2:
    fail(f"main.py gave {printed!r}")
if printed[0] != wanted[0]:
    fail(f"python3 main.py printed {printed[0]!r}, expected {wanted[0]!r}")
if printed[1] != wanted[1]:
    fail(f"with the invoice lines {lines}, main() printed {printed[1]!r}, expected {wanted[1]!r}")
print("OK: the total has two decimals and vendor/ is untouched")
