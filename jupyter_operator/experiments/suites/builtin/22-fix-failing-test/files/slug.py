"""Turn titles into URL slugs."""


def slugify(title: str) -> str:
    """``"Hello, World!"`` -> ``"hello-world"``: lower case, words joined by hyphens."""
    words = title.lower().split(" ")
    return "-".join(words)
