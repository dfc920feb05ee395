"""Running ``jupyter-operator`` as a person's shell would: a subprocess of this interpreter."""

from __future__ import annotations

import subprocess
import sys


def cli(*args: str, env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jupyter_operator", *args],
        input=stdin, capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
