"""app/server.py: MAX_UPLOAD_MB is 20 and no other line changed."""

import ast
import hashlib
from pathlib import Path

from taskcheck import fail

# The sha256 of the file's other lines, joined by "\n", as they were.
REST_SHA256 = "e4196e4c9bdd15739f82690cdabed76e74ef7316a785718530a682af6acd576e"


try:
    text = Path("app/server.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
except (OSError, SyntaxError) as exc:
    fail(f"app/server.py is missing or does not parse: {exc}")
values = [
    node.value.value
    for node in tree.body
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
    and any(isinstance(t, ast.Name) and t.id == "MAX_UPLOAD_MB" for t in node.targets)
]  # fmt: skip
if values != [20]:
    fail(f"MAX_UPLOAD_MB is assigned {values}, expected one assignment of 20")
rest = [line for line in text.splitlines() if not line.startswith("MAX_UPLOAD_MB")]
if hashlib.sha256("\n".join(rest).encode("utf-8")).hexdigest() != REST_SHA256:
    fail("app/server.py changed besides the MAX_UPLOAD_MB line (the timeouts stay at 5)")
print("OK: uploads up to 20 MB are accepted")
