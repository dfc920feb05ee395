"""Print the invoice total."""

from vendor.money import format_amount

LINES = [("Consulting", 1200.0), ("Travel", 310.45), ("Hosting", 49.9)]


def main() -> None:
    total = sum(amount for _, amount in LINES)
    print(f"Total: {format_amount(total)} EUR")


if __name__ == "__main__":
    main()
