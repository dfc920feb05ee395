"""Print a small report of the week's expenses."""

from stats import mean, total

EXPENSES = [12.5, 40.0, 7.25, 19.0]


def main() -> None:
    grand_total = total(EXPENSES)
    print(f"total: {grand_total:.2f}")
    print(f"mean: {mean(EXPENSES):.2f}")


if __name__ == "__main__":
    main()
