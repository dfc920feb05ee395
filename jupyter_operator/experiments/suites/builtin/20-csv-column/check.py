"""data/orders.csv has a last column total = qty * unit_price with two decimals."""

import csv
import io
from decimal import Decimal
from pathlib import Path

from taskcheck import fail

ORIGINAL = [
    ["1001", "pencil", "12", "0.35"],
    ["1002", "notebook", "3", "2.50"],
    ["1003", "stapler", "1", "7.99"],
    ["1004", "eraser", "10", "0.20"],
    ["1005", "marker", "4", "1.15"],
]


try:
    text = Path("data/orders.csv").read_text(encoding="utf-8")
except OSError as exc:
    fail(f"data/orders.csv cannot be read: {exc}")
rows = [row for row in csv.reader(io.StringIO(text)) if row]
if not rows or rows[0] != ["order_id", "item", "qty", "unit_price", "total"]:
    fail(f"the header is {rows[0] if rows else None}, expected ...,unit_price,total")
if len(rows) - 1 != len(ORIGINAL):
    fail(f"data/orders.csv has {len(rows) - 1} data rows, expected {len(ORIGINAL)}")
for row, original in zip(rows[1:], ORIGINAL, strict=True):
    if row[:4] != original or len(row) != 5:
        fail(f"row {row} should be {original} plus a total")
    wanted = f"{Decimal(original[2]) * Decimal(original[3]):.2f}"
    if row[4] != wanted:
        fail(f"order {original[0]}: total is {row[4]!r}, expected {wanted!r}")
print("OK: every order has its total")
