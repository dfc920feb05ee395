"""Fixtures for cell runs: a workspace with a notebook, and a session that runs its cells."""

from support.notebook_fixtures import op, ws  # noqa: F401 (fixtures)
