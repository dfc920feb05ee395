"""tmp_export/ and debug.log are gone; app.py and notes.txt are byte-for-byte unchanged."""

import hashlib
from pathlib import Path

from taskcheck import fail

KEPT = {
    "app.py": "ebc3126cd7b15fec971265db6006ea4aef4d5961adc1904387cbe2ecd0c01649",
    "notes.txt": "195782f53cb9493f7246daaaadc448f62b28f6a1bef2db7133605e43a34a803c",
}


for gone in ("tmp_export", "debug.log"):
    if Path(gone).exists():
        fail(f"{gone} still exists")
for name, digest in KEPT.items():
    path = Path(name)
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
        fail(f"{name} was changed or removed; it must stay as it is")
extra = sorted(
    p.name for p in Path(".").iterdir() if p.name not in KEPT and not p.name.startswith(".")
)
if extra:
    fail(f"unexpected entries in the workspace: {', '.join(extra)}")
print("OK: the leftovers are deleted and the rest is untouched")
