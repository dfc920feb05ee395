"""What a notebook cell action costs to plan, as a ratio against fs.write in the same run.

A 500-cell, about 5 MB notebook (each code cell with a text output and a PNG-sized output).
Planning ``nb.replaceCell`` of one cell (read, parse, change, write with nbformat, validate,
diff) is compared with planning ``fs.write`` of exactly the bytes it produces (read, validate,
diff): the difference is what the cell action adds to any notebook change.

    .venv/bin/python bench/cell_actions.py [--repeat N]
"""

from __future__ import annotations

import argparse
import base64
import statistics
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.replies import block

from jupyter_operator.engine import Operator, mutations
from jupyter_operator.protocol import Command, Write


def big_notebook() -> str:
    png = base64.b64encode(b"\x89PNG" + bytes(7_000)).decode()
    cells = [
        new_code_cell(
            f"value_{i} = {i}\nprint(value_{i} * 2)\n" + "# comment line\n" * 5,
            id=f"cell{i:04d}",
            outputs=[
                new_output("stream", name="stdout", text=f"{i * 2}\n"),
                new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"}),
            ],
        )
        for i in range(500)
    ]
    return nbformat.writes(new_notebook(cells=cells)) + "\n"


def timed(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        root.mkdir()
        (root / "big.ipynb").write_text(big_notebook())
        size = (root / "big.ipynb").stat().st_size
        op = Operator(root, journal_dir=Path(tmp) / "journal", extensions=("nb",))
        counter = iter(range(10**6))

        def cell_change() -> bytes:
            text = block(f"c{next(counter)}", "nb.replaceCell", notebook="big.ipynb",
                         cell_id="cell0250", content="value_250 = -1")  # fmt: skip
            [item] = op.run(text).items
            assert item.status == "pending", item.summary
            return item.proposal.new_bytes

        new_text = cell_change().decode("utf-8")
        # A reply cannot carry 5 MB (the scan window is 200,000 characters): plan the write
        # the engine would plan for it directly.
        write_cmd = Command(id="w1", action="fs.write", path="big.ipynb", line=1, fields={},
                            params=Write(path="big.ipynb", content=new_text))  # fmt: skip

        def plain_write() -> None:
            assert mutations.plan(op.workspace, write_cmd).new_bytes != b""

        cells = timed(cell_change, args.repeat)
        write = timed(plain_write, args.repeat)
        print(f"notebook: 500 cells, {size / 1e6:.1f} MB")
        print(f"plan nb.replaceCell: {cells * 1000:.0f} ms")
        print(f"plan fs.write of the same bytes (baseline): {write * 1000:.0f} ms")
        print(f"ratio: {cells / write:.2f}")


if __name__ == "__main__":
    main()
