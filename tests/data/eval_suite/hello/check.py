import pathlib
import sys

path = pathlib.Path("hello.txt")
if not path.is_file() or path.read_text().strip() != "hello":
    print("hello.txt does not hold the line hello")
    sys.exit(1)
