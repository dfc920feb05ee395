"""Split a list of items into pages."""


def page_count(total_items: int, per_page: int) -> int:
    """How many pages ``total_items`` items fill, ``per_page`` to a page."""
    if per_page <= 0:
        raise ValueError("per_page must be positive")
    return total_items // per_page


def page(items: list, number: int, per_page: int) -> list:
    """The items on page ``number`` (1-based)."""
    start = (number - 1) * per_page
    return items[start : start + per_page]
