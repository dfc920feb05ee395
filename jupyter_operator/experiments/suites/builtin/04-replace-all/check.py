"""Every staging host in scripts/deploy.sh is the new one; the production host is unchanged."""

import hashlib
from pathlib import Path

from taskcheck import fail

EXPECTED = """#!/bin/sh
# Deploy the built site to the staging server.
set -eu

rsync -az --delete public/ "deploy@staging.example.net:/srv/site/"
ssh deploy@staging.example.net "systemctl reload nginx"
curl -fsS "https://staging.example.net/health" > /dev/null
echo "Deployed to staging.example.net"
# Production (prod.old-example.org) is deployed by CI only, never from here.
"""
README_SHA256 = "47bd2241f754d6cd020acbb8f5abf58e578c4a2bc481ec2984140b4dec6aef06"


path = Path("scripts/deploy.sh")
if not path.is_file():
    fail("scripts/deploy.sh is missing")
text = path.read_text(encoding="utf-8")
if "staging.old-example.org" in text:
    fail("scripts/deploy.sh still mentions staging.old-example.org")
if "prod.old-example.org" not in text:
    fail("the production host prod.old-example.org was changed; it must stay")
if text.splitlines() != EXPECTED.splitlines():
    fail("scripts/deploy.sh differs from the expected result beyond the host name")
readme = Path("README.md")
if not readme.is_file() or hashlib.sha256(readme.read_bytes()).hexdigest() != README_SHA256:
    fail("README.md was changed; only scripts/deploy.sh should be")
print("OK: the four staging mentions point to staging.example.net")
