"""settings.py gained "reports" right after "billing", and nothing else changed."""

import sys
from pathlib import Path
from typing import NoReturn

EXPECTED = '''"""Settings of the shop service."""

INSTALLED_APPS = [
    "core",
    "accounts",
    "billing",
    "reports",
    "shipping",
]

CURRENCY = "EUR"
TIMEOUT_SECONDS = 30
'''


def fail(reason: str) -> NoReturn:
    print(f"FAIL: {reason}")
    sys.exit(1)


path = Path("settings.py")
if not path.is_file():
    fail("settings.py is missing")
namespace: dict = {}
try:
    exec(path.read_text(encoding="utf-8"), namespace)
except Exception as exc:
    fail(f"settings.py raised {type(exc).__name__}: {exc}")
apps = namespace.get("INSTALLED_APPS")
wanted = ["core", "accounts", "billing", "reports", "shipping"]
if apps != wanted:
    fail(f"INSTALLED_APPS is {apps!r}, expected {wanted!r}")
got = [line.rstrip() for line in path.read_text(encoding="utf-8").splitlines()]
if got != [line.rstrip() for line in EXPECTED.splitlines()]:
    fail("settings.py has other changes besides the new line (layout or other settings)")
print('OK: "reports" follows "billing" and nothing else changed')
