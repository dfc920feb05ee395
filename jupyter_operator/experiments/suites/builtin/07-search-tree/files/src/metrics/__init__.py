"""Timing and reporting."""
