"""web/static/css/theme.css has the new primary colour; nothing else changed, no stray copy."""

import hashlib
from pathlib import Path

from taskcheck import fail

EXPECTED = """/* Colours of the site theme. */
:root {
  --color-primary: #0b5fff;
  --color-primary-dark: #23478f;
  --color-text: #222222;
  --color-background: #ffffff;
}

a {
  color: var(--color-primary);
}

a:hover {
  color: var(--color-primary-dark);
}
"""
BASE_SHA256 = "436bfc0a753a3b9f7300fb1d9251008528231fe148c6e852cb2458809cf72684"


path = Path("web/static/css/theme.css")
if not path.is_file():
    fail("web/static/css/theme.css is missing")
copies = sorted(p.as_posix() for p in Path(".").rglob("theme.css") if p != path)
if copies:
    fail(f"a second theme.css was written: {', '.join(copies)}")
text = path.read_text(encoding="utf-8")
if "#0b5fff" not in text.lower():
    fail("--color-primary is not #0b5fff")
if [line.rstrip() for line in text.lower().splitlines()] != EXPECTED.lower().splitlines():
    fail("theme.css differs from before in more than the --color-primary value")
base = Path("web/templates/base.html")
if not base.is_file() or hashlib.sha256(base.read_bytes()).hexdigest() != BASE_SHA256:
    fail("web/templates/base.html was changed")
print("OK: the primary colour is #0b5fff")
