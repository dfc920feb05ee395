"""Convert a temperature: ``python3 cli.py c2f 21.5``."""

import sys

from units import c_to_f, f_to_c

CONVERSIONS = {
    "c2f": c_to_f,
    "f2c": f_to_c,
}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in CONVERSIONS:
        print(f"usage: cli.py {'|'.join(CONVERSIONS)} VALUE", file=sys.stderr)
        return 2
    print(f"{CONVERSIONS[argv[0]](float(argv[1])):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
