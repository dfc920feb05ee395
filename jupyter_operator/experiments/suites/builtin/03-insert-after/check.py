"""settings.py gained "reports" right after "billing", and nothing else changed.

The file is read, never run: INSTALLED_APPS is the literal list assigned to it.
"""

import ast
from pathlib import Path

from taskcheck import fail

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


def literal_assigned(text: str, name: str) -> object:
    """The literal value of the last top-level ``name = ...`` in ``text``, else None."""
    value = None
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in node.targets
        ):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                value = None
    return value


path = Path("settings.py")
if not path.is_file():
    fail("settings.py is missing")
text = path.read_text(encoding="utf-8")
try:
    apps = literal_assigned(text, "INSTALLED_APPS")
except SyntaxError as exc:
    fail(f"settings.py does not parse: {exc}")
wanted = ["core", "accounts", "billing", "reports", "shipping"]
if apps != wanted:
    fail(f"INSTALLED_APPS is {apps!r}, expected {wanted!r}")
got = [line.rstrip() for line in text.splitlines()]
if got != [line.rstrip() for line in EXPECTED.splitlines()]:
    fail("settings.py has other changes besides the new line (layout or other settings)")
print('OK: "reports" follows "billing" and nothing else changed')
