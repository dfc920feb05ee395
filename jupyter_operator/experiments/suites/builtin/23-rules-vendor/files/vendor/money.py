"""money 1.2 (vendored copy): formatting of amounts. Not edited here; updated upstream."""


def format_amount(value: float, places: int = 3) -> str:
    """``1234.5`` -> ``1,234.500`` (``places`` decimals, thousands separated by commas)."""
    return f"{value:,.{places}f}"
