"""``jupyter-operator view OUT [-o FILE]``: an output folder of ``eval`` as one HTML file.

    jupyter-operator view OUT [-o FILE] [--price MODEL=IN[,OUT]] [--no-verify] [--plain-cards]

The file holds everything (the grid, every transcript, the cards' module): no server, no
network, a person can send it. Exit status 0 when it was written, 2 when it could not be (no
results in the folder, a file that cannot be written, a bad price).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

#: The file written in the folder when ``-o`` is not given.
DEFAULT_NAME = "results.html"


def add_parser(sub: Any) -> None:
    """The ``view`` subcommand's arguments (each help says its default)."""
    view = sub.add_parser("view", help="write an eval output folder as one HTML file",
                          description="Write the results of `jupyter-operator eval` (the grid "
                                      "with intervals, every run's transcript, runs side by "
                                      "side) as one self-contained HTML file.")  # fmt: skip
    view.add_argument("out", metavar="OUT", help="an eval output folder (results.jsonl)")
    view.add_argument("-o", "--output", default=None, metavar="FILE",
                      help=f"the HTML file to write (default: OUT/{DEFAULT_NAME})")
    view.add_argument("--price", action="append", default=[], metavar="MODEL=IN[,OUT]",
                      help="USD per million prompt (and completion) tokens: costs per run, "
                           "cell and turn (default: none)")  # fmt: skip
    view.add_argument("--no-verify", action="store_true",
                      help="read rows whose signature this machine cannot check (results "
                           "brought from elsewhere; default: only rows that verify)")
    view.add_argument("--plain-cards", action="store_true",
                      help="leave the cards' module out (a smaller file; plain cards)")


def run(args: Any) -> int:
    """Write the page: 0 when written, 2 when it could not be."""
    from .command import _prices
    from .viewdata import load_view
    from .viewpage import page_html

    target = Path(args.output) if args.output else Path(args.out) / DEFAULT_NAME
    try:
        data = load_view(args.out, prices=_prices(args.price), verify=not args.no_verify)
        html = page_html(data, cards=not args.plain_cards)
        target.write_text(html, encoding="utf-8")
    except (ValueError, OSError) as exc:  # a key that cannot be used is a ValueError too
        print(f"jupyter-operator view: {exc}", file=sys.stderr)
        return 2
    for line in data["refused"]:
        print(f"jupyter-operator view: results.jsonl line {line['line']}: refused, "
              f"{line['reason']}", file=sys.stderr)  # fmt: skip
    runs = len(data["runs"])
    print(f"jupyter-operator view: {runs} run{'s' * (runs != 1)} written to {target}",
          file=sys.stderr)  # fmt: skip
    print(target)
    return 0
