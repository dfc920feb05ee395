"""The command-line application."""
