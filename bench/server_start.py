"""What loading the server extension adds to a server's start, against jupyter-server's own import.

Each sample is a fresh Python process that:

1. imports ``jupyter_server.serverapp`` (the baseline: every server pays it, timed);
2. builds and initializes a ``ServerApp`` without any extension (untimed: its web app and
   handlers exist before extensions load, as in a real start);
3. imports ``jupyter_operator.server.app`` and calls
   ``OperatorExtension._load_jupyter_server_extension(serverapp)`` (timed: this is the
   extension's own cost, the figure with the target of at most 0.1 s).

It prints the best and the median of the samples for both, the ratio extension / baseline, and
which heavy modules the load pulled in (pydantic and the protocol should load on the first
request, not at start). Absolute timings depend on the machine; the ratio is the figure to
compare across machines.

    .venv/bin/python bench/server_start.py [--samples 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

#: Modules the extension should not need until a request arrives.
HEAVY = ("pydantic", "jupyter_operator.protocol", "jupyter_operator.engine", "ipywidgets")

_CHILD = r"""
import json, sys, time
start = time.perf_counter()
import jupyter_server.serverapp
from jupyter_server.serverapp import ServerApp
baseline = time.perf_counter() - start

app = ServerApp(root_dir=sys.argv[1], jpserver_extensions={}, open_browser=False)
app.initialize(argv=[], find_extensions=False, new_httpserver=False)
heavy = json.loads(sys.argv[2])
before = {name for name in heavy if name in sys.modules}

start = time.perf_counter()
from jupyter_operator.server.app import OperatorExtension
OperatorExtension._load_jupyter_server_extension(app)
load = time.perf_counter() - start

def ours(rules):
    for rule in rules:
        yield from ours(getattr(rule.target, "rules", ()))
        if getattr(rule.target, "__module__", "").startswith("jupyter_operator"):
            yield rule.target
routes = len(list(ours(app.web_app.default_router.rules + app.web_app.wildcard_router.rules)))
loaded = sorted(name for name in heavy if name in sys.modules and name not in before)
print(json.dumps({"baseline": baseline, "load": load, "loaded": loaded, "routes": routes}))
"""


def sample(work: Path) -> dict[str, object]:
    """One fresh process; an isolated Jupyter config so no installed extension loads."""
    root = work / "root"
    root.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(
        JUPYTER_CONFIG_DIR=str(work / "config"),
        JUPYTER_CONFIG_PATH=str(work / "config"),
        JUPYTER_DATA_DIR=str(work / "data"),
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
        JUPYTER_OPERATOR_JOURNAL_DIR=str(work / "journal"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")])),
    )
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), json.dumps(HEAVY)],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"the child process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=7, help="fresh processes to time")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        sample(Path(tmp))  # warm-up: bytecode caches, the disk cache
        results = [sample(Path(tmp)) for _ in range(args.samples)]
    base = [float(r["baseline"]) for r in results]  # type: ignore[arg-type]
    load = [float(r["load"]) for r in results]  # type: ignore[arg-type]
    ratios = [lo / b for lo, b in zip(load, base, strict=True)]
    print(f"server start, {args.samples} fresh processes")
    print(f"  import jupyter_server.serverapp (baseline)   best {min(base) * 1000:7.1f} ms"
          f"   median {statistics.median(base) * 1000:7.1f} ms")  # fmt: skip
    print(f"  import + load of the extension               best {min(load) * 1000:7.1f} ms"
          f"   median {statistics.median(load) * 1000:7.1f} ms   target <= 100 ms")  # fmt: skip
    print(f"  extension / baseline                         best {min(ratios):7.3f}x"
          f"   median {statistics.median(ratios):7.3f}x")  # fmt: skip
    print(f"  routes registered                            {results[-1]['routes']}")
    loaded = results[-1]["loaded"]
    print(f"  heavy modules loaded at start                {', '.join(loaded) or 'none'}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
