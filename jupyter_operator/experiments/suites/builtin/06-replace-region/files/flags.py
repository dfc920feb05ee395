"""Feature flags of the web app, read once at start-up."""

import os

# OPERATOR_BEGIN feature-flags
FEATURE_FLAGS = {
    "dark_mode": False,
    "legacy_ui": True,
    "new_checkout": True,
}
# OPERATOR_END feature-flags


def enabled(name: str) -> bool:
    """True when the flag is on; ``FLAG_<NAME>=1`` in the environment turns it on too."""
    return FEATURE_FLAGS.get(name, False) or os.environ.get(f"FLAG_{name.upper()}") == "1"
