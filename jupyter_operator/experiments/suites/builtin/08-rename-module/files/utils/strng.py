"""String helpers."""


def title_case(text: str) -> str:
    """Capitalise each word: ``"ada lovelace"`` -> ``"Ada Lovelace"``."""
    return " ".join(word.capitalize() for word in text.split())
