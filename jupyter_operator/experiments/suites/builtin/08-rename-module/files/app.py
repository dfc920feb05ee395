"""Print a greeting for each name given on the command line."""

import sys

from utils.strng import title_case


def main(argv: list[str]) -> None:
    for name in argv:
        print(f"Hello, {title_case(name)}!")


if __name__ == "__main__":
    main(sys.argv[1:])
