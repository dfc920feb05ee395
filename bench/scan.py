"""Benchmark: ``scan`` on a realistic 200,000-character reply, against ``str.split`` of it.

The reply is prose paragraphs with about 40 ``fs.write`` blocks whose ``content_b64`` payloads
are small source files, the shape of a model's reply that writes a project. Both timings are
the best of many alternating runs in this process. The ratio to a split is context only: a
split is C code and the reference app's scanner is JavaScript, so the targets are on the side by
side ratios below. Two reference timings show the floor: one ``str.find`` pass over the text
and the base64 decoding of the payloads, both of which any validating scanner must do.
Peak memory of one scan is measured with tracemalloc.

Side by side (``--peer``, the default when it can run): our ``scan`` against the reference
desktop app's ``scanForCommands`` (``../shared/research/peer-scanner``, run with node) on the
same texts: ordinary replies (40 writes with ~2 KB payloads in short prose, six seeds), long
prose, many small blocks, and four hostile shapes. In each round each side takes the best of
150 runs after warm-up (the peer's own ``time_peer.js``); the rounds alternate the two sides so
both see the same machine load, and the table shows the median of the rounds (``--rounds N``,
default 7). The ratio is ours / peer; targets: at most 0.9 on the ordinary and prose-heavy
replies, at most 1.5 on the many-small-blocks text and the hostile shapes. Skipped with a note
when the folder or node is missing (``JUPYTER_OPERATOR_SHARED`` overrides where ``shared/``
is).

Run: ``.venv/bin/python bench/scan.py [--peer | --no-peer] [--rounds N]``
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jupyter_operator.protocol import Command, scan

TARGET_CHARS = 200_000
BLOCKS = 40
_SENTENCE = (
    "the scanner reads each reply and finds command blocks so that a person can review every "
    "change before it is written to the workspace while reads run at once and results go back "
    "to the model in order with clear error codes for anything that is not valid"
)
WORDS = _SENTENCE.split()


def _source_file(rnd: random.Random, index: int) -> str:
    """A plausible small Python module (about 1-2 KB)."""
    lines = [f'"""Module {index}: helpers for the example project."""', "", "import os", ""]
    for f in range(rnd.randint(4, 8)):
        lines.append(f"def helper_{index}_{f}(path, limit={rnd.randint(1, 500)}):")
        lines.append(f'    """Return the first {{limit}} lines of path (variant {f})."""')
        lines.append("    with open(os.fspath(path), encoding='utf-8') as handle:")
        lines.append("        return [line.rstrip() for _, line in zip(range(limit), handle)]")
        lines.append("")
    return "\n".join(lines) + "\n"


def _paragraph(rnd: random.Random) -> str:
    words = [rnd.choice(WORDS) for _ in range(rnd.randint(40, 90))]
    return " ".join(words).capitalize() + "."


def build_reply(seed: int = 7) -> str:
    """Prose paragraphs and BLOCKS fs.write blocks, about TARGET_CHARS characters."""
    rnd = random.Random(seed)
    blocks = []
    for i in range(BLOCKS):
        payload = base64.b64encode(_source_file(rnd, i).encode()).decode()
        blocks.append(
            "OPERATOR_CMD\nversion: 1\n"
            f"id: write-{i:03d}\naction: fs.write\npath: src/module_{i}.py\n"
            f"content_b64: {payload}\nEND_OPERATOR_CMD"
        )
    block_chars = sum(len(b) + 2 for b in blocks)
    per_gap = (TARGET_CHARS - block_chars) // (BLOCKS + 1)
    parts: list[str] = []
    for i in range(BLOCKS):
        gap = [_paragraph(rnd)]
        while sum(len(p) + 2 for p in gap) + 300 < per_gap:
            gap.append(_paragraph(rnd))
        parts += ["\n\n".join(gap), blocks[i]]
    body = "\n\n".join(parts) + "\n\n"
    tail = ""
    while len(body) + len(tail) < TARGET_CHARS:
        tail += _paragraph(rnd) + "\n\n"
    # Cut the closing prose (never a block) to land on about TARGET_CHARS characters.
    return body + tail[: TARGET_CHARS - len(body) - 1] + "\n"


def interleaved_best(
    fns: dict[str, Callable[[], object]], rounds: int, number: int
) -> dict[str, float]:
    """Best mean seconds per call of each function, measured in alternating rounds.

    Alternating keeps the baseline and the scan under the same machine load, so the ratio
    holds even when other work shares the cores.
    """
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            start = time.perf_counter()
            for _ in range(number):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / number)
    return best


def main() -> None:
    text = build_reply()
    result = scan(text)
    commands = [i for i in result.items if isinstance(i, Command)]
    assert len(commands) == BLOCKS == len(result.items), "every block must scan to a command"
    payloads = [c.fields["content_b64"] for c in commands]

    def decode_only() -> None:
        for payload in payloads:
            binascii.a2b_base64(payload)

    times = interleaved_best(
        {
            "split": lambda: text.split("\n"),
            "scan": lambda: scan(text),
            "decode": decode_only,
            "find": lambda: text.find("NOT IN THE TEXT"),
        },
        rounds=25,
        number=10,
    )
    split = times["split"]

    tracemalloc.start()
    scan(text)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    def row(label: str, seconds: float) -> str:
        return f"  {label:<32}{seconds * 1e6:9.1f} us  {seconds / split:6.2f}"

    lines = text.count("\n") + 1
    print(f"reply: {len(text):,} chars, {lines:,} lines, {BLOCKS} fs.write blocks")
    print(f"       {sum(map(len, payloads)):,} chars of content_b64")
    print("best of 25 alternating rounds of 10 calls each (time per call, ratio to split):")
    print(row("text.split('\\n') (baseline)", split))
    print(row("scan(text)", times["scan"]))
    print("  for reference, work no validating scanner can skip:")
    print(row("  one str.find over the text", times["find"]))
    print(row("  base64-decoding the payloads", times["decode"]))
    print(f"ratio scan/split: {times['scan'] / split:.2f} (context; the targets are side by side"
          " with the reference app's scanner)")
    print(f"peak memory of one scan (tracemalloc): {peak / 1024:,.0f} KiB")
    hostile_inputs()


def hostile_inputs() -> None:
    """Replies built to be slow: each must stay linear (ratio to its own split, best of 5)."""
    small = "OPERATOR_CMD\nversion: 1\nid: i{}\naction: fs.read\npath: a.txt\nEND_OPERATOR_CMD\n"
    cases = {
        "token mentioned 13k times, one line": "x OPERATOR_CMD " * 13_400,
        "15k nested START markers": "OPERATOR_CMD\n" * 15_400,
        "13k markers not alone": "OPERATOR_CMD x\n" * 13_400,
        "2.7k small valid blocks": "".join(small.format(i) for i in range(2_800)),
        "one 200-line block, CRLF": "OPERATOR_CMD\r\n" + "k: v\r\n" * 199 + "END_OPERATOR_CMD",
    }
    print("hostile inputs (200,000 chars each; time per call, ratio to split):")
    for name, text in cases.items():
        text = text[:TARGET_CHARS]
        times = interleaved_best(
            {"split": lambda t=text: t.split("\n"), "scan": lambda t=text: scan(t)},
            rounds=5,
            number=1,
        )
        print(f"  {name:<38}{times['scan'] * 1e3:8.1f} ms  {times['scan'] / times['split']:7.1f}")


PEER = (
    Path(os.environ.get("JUPYTER_OPERATOR_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    / "research"
    / "peer-scanner"
)


def _write_block(i: int, payload_chars: int, rnd: random.Random) -> str:
    body = ""
    while len(body) < payload_chars * 3 // 4:
        body += _source_file(rnd, i)
    payload = base64.b64encode(body[: payload_chars * 3 // 4].encode()).decode()
    return (
        f"OPERATOR_CMD\nversion: 1\nid: w{i}\naction: fs.write\npath: src/m{i}.py\n"
        f"content_b64: {payload}\nEND_OPERATOR_CMD"
    )


def _reply_with_prose(seed: int, sentences: tuple[int, int]) -> str:
    """40 writes (~2 KB payloads); between them paragraphs of ``sentences`` sentences."""
    rnd = random.Random(seed)
    parts: list[str] = []
    for i in range(BLOCKS):
        parts.append(" ".join(_paragraph(rnd) for _ in range(rnd.randint(*sentences))))
        parts.append(_write_block(i, 2_000, rnd))
    text = "\n\n".join(parts)
    while len(text) < TARGET_CHARS:
        text += "\n\n" + " ".join(_paragraph(rnd) for _ in range(rnd.randint(*sentences)))
    return text[:TARGET_CHARS]


def peer_texts() -> dict[str, str]:
    """The texts of the side-by-side table (each about 200,000 characters)."""
    small = "OPERATOR_CMD\nversion: 1\nid: i{}\naction: fs.read\npath: a.txt\nEND_OPERATOR_CMD\n"
    texts = {f"40 writes, short prose, seed {s}": _reply_with_prose(s, (1, 2)) for s in range(6)}
    texts["40 writes, long prose paragraphs"] = _reply_with_prose(11, (12, 20))
    texts["bench/scan.py's reply"] = build_reply()
    texts["2,800 small valid fs.read blocks"] = "".join(small.format(i) for i in range(2_800))
    texts["hostile: marker mentioned 13,400x on one line"] = "x OPERATOR_CMD " * 13_400
    texts["hostile: 15,400 bare START markers"] = "OPERATOR_CMD\n" * 15_400
    texts["hostile: 13,400 markers not alone"] = "OPERATOR_CMD x\n" * 13_400
    texts["hostile: one 200-line block, CRLF"] = (
        "OPERATOR_CMD\r\n" + "k: v\r\n" * 199 + "END_OPERATOR_CMD"
    )
    return {name: text[:TARGET_CHARS] for name, text in texts.items()}


def _ours_best(text: str, runs: int = 150) -> float:
    for _ in range(30):
        scan(text)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        scan(text)
        best = min(best, time.perf_counter() - start)
    return best * 1e3


def side_by_side(rounds: int = 7) -> None:
    """Our scan against the peer's scanForCommands: best of 150 each per round, median of rounds."""
    node = shutil.which("node")
    if node is None or not (PEER / "time_peer.js").exists():
        print(f"side by side: skipped (needs node and {PEER}/time_peer.js)")
        return
    texts = peer_texts()
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for n, (name, text) in enumerate(texts.items()):
            files[name] = Path(tmp) / f"text{n}.txt"
            files[name].write_text(text, encoding="utf-8", newline="")
        ours_rounds: dict[str, list[float]] = {name: [] for name in texts}
        peer_rounds: dict[str, list[float]] = {name: [] for name in texts}
        for _ in range(rounds):
            for name, text in texts.items():
                ours_rounds[name].append(_ours_best(text))
                out = subprocess.run(
                    [node, "time_peer.js", str(files[name])],
                    cwd=PEER, capture_output=True, text=True, check=True,
                )  # fmt: skip
                peer_rounds[name].append(json.loads(out.stdout)["ms"])
    ours = {name: statistics.median(times) for name, times in ours_rounds.items()}
    peer = {name: statistics.median(times) for name, times in peer_rounds.items()}
    print(
        "side by side with the reference app's scanner "
        f"(best of 150 per round, median of {rounds} rounds, ms):"
    )
    print(f"  {'text (200,000 chars)':<48}{'peer':>9}{'ours':>9}{'ours/peer':>11}  target")
    for name in texts:
        target = 1.5 if name.startswith(("hostile", "2,800")) else 0.9
        ratio = ours[name] / peer[name]
        mark = "met" if ratio <= target else "MISSED"
        print(
            f"  {name:<48}{peer[name]:9.3f}{ours[name]:9.3f}{ratio:11.2f}  <= {target} {mark}"
        )


if __name__ == "__main__":
    if "--peer" not in sys.argv:
        main()
    if "--no-peer" not in sys.argv:
        given = sys.argv.index("--rounds") + 1 if "--rounds" in sys.argv else 0
        side_by_side(int(sys.argv[given]) if given else 7)
