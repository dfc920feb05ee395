"""Format measurements for people."""


def report(name: str, seconds: float) -> str:
    """``job: 12.3 ms``."""
    return f"{name}: {seconds * 1000:.1f} ms"
