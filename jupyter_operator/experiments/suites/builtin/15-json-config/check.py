"""config/app.json has the three changes, is valid JSON, and keeps its 2-space layout."""

import json
from pathlib import Path

from taskcheck import fail

WANTED = {
    "name": "inventory",
    "http": {"port": 8080, "timeout_s": 10, "retries": 3},
    "logging": {"level": "debug", "file": "logs/app.log"},
    "features": ["search", "export", "audit"],
}


path = Path("config/app.json")
try:
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
except (OSError, ValueError) as exc:
    fail(f"config/app.json is missing or not valid JSON: {exc}")
if data != WANTED:
    fail(f"config/app.json holds {json.dumps(data, sort_keys=True)}")
if list(data) != list(WANTED):
    fail(f"the top-level keys were reordered: {list(data)}")
lines = text.splitlines()
if '  "name": "inventory",' not in lines or "\t" in text:
    fail("config/app.json lost its 2-space indentation")
print("OK: config/app.json has the new settings")
