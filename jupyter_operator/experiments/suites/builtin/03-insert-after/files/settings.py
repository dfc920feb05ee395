"""Settings of the shop service."""

INSTALLED_APPS = [
    "core",
    "accounts",
    "billing",
    "shipping",
]

CURRENCY = "EUR"
TIMEOUT_SECONDS = 30
