"""The typo is fixed in docs/index.md and docs/guide.md; the third-party license is untouched."""

import hashlib
from pathlib import Path

from taskcheck import fail

LICENSE = "docs/third_party/LICENSE-mailparse.txt"
LICENSE_SHA256 = "99faa5cd45396c399f161fdb69d0584218fff8289eb6e1b5834e1be50d25997c"
EXPECTED = {
    "docs/index.md": """# Mailbox

Mailbox lets a team receive and triage support mail in one place.

See the [guide](guide.md).
""",
    "docs/guide.md": """# Guide

## Getting mail

Point your domain's MX record at the server. You will receive a test message
within a minute.

## Filters

A filter runs on every message you receive, before it reaches the inbox.
""",
}


license_path = Path(LICENSE)
if not license_path.is_file():
    fail(f"{LICENSE} is missing")
if hashlib.sha256(license_path.read_bytes()).hexdigest() != LICENSE_SHA256:
    fail(f"{LICENSE} was changed; third-party license texts must stay byte for byte")
for name, expected in EXPECTED.items():
    path = Path(name)
    if not path.is_file():
        fail(f"{name} is missing")
    text = path.read_text(encoding="utf-8")
    if "recieve" in text.lower():
        fail(f"{name} still has the misspelling")
    if text.splitlines() != expected.splitlines():
        fail(f"{name} has changes besides the spelling fix")
print("OK: the docs are fixed and the license is untouched")
