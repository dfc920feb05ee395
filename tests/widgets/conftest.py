"""Shared IPython and widget fixtures (a real shell, recorded comms, a fresh session)."""

from support.ipython_fixtures import *  # noqa: F403
