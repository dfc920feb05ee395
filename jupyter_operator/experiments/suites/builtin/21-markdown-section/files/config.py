"""Settings read from the environment at start-up."""

import os

# Where the ledger is stored (any SQLAlchemy URL).
DATABASE_URL = os.environ.get("LEDGER_DATABASE_URL", "sqlite:///ledger.db")
# Worker processes serving requests.
WORKERS = int(os.environ.get("LEDGER_WORKERS", "4"))
# debug, info, warning or error.
LOG_LEVEL = os.environ.get("LEDGER_LOG_LEVEL", "info")
