"""Shared IPython and widget fixtures (a real shell, recorded comms, a fresh session)."""

from ipython_fixtures import *  # noqa: F403
