"""``python -m jupyter_operator``: the command line."""

from .cli import main

raise SystemExit(main())
