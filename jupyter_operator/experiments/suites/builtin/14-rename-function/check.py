"""total() is now sum_values() in stats.py and report.py; other "total" names and output stay.

report.py and stats.py run in a child process (taskcheck.run_python): the report as it is and
with expenses drawn for this run, and sum_values and mean on them; the results are judged here.
"""

import ast
import random
from pathlib import Path

from taskcheck import fail, run_python

CALL = '''
import contextlib
import io


def main(expenses):
    as_is = run_script("report.py")
    stats = load("stats.py")
    report = load("report.py", "report")
    report.EXPENSES = expenses
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        report.main()
    return {"as_is": as_is, "drawn": out.getvalue(),
            "sum_values": stats.sum_values(expenses), "mean": stats.mean(expenses)}
'''


trees = {}
for name in ("stats.py", "report.py"):
    try:
        trees[name] = ast.parse(Path(name).read_text(encoding="utf-8"))
    except (OSError, SyntaxError) as exc:
        fail(f"{name} is missing or does not parse: {exc}")
functions = {n.name for n in ast.walk(trees["stats.py"]) if isinstance(n, ast.FunctionDef)}
if functions != {"sum_values", "mean"}:
    fail(f"stats.py defines {sorted(functions)}, expected mean and sum_values")
for name, tree in trees.items():
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == "total":
            fail(f"{name} line {node.lineno} still uses the name total")
        if isinstance(node, ast.alias) and "total" in (node.name, node.asname):
            fail(f"{name} still imports total")
names = {n.id for tree in trees.values() for n in ast.walk(tree) if isinstance(n, ast.Name)}
for kept in ("running_total", "grand_total"):
    if kept not in names:
        fail(f"the variable {kept} was renamed; only the function total should be")
rng = random.SystemRandom()
expenses = [rng.randrange(1, 20000) / 100 for _ in range(rng.randrange(2, 7))]
got = run_python(CALL, expenses, what="report.py and stats.py")
total = sum(expenses)
wanted = {"as_is": "total: 78.75\nmean: 19.69\n",
          "drawn": f"total: {total:.2f}\nmean: {total / len(expenses):.2f}\n"}  # fmt: skip
if not isinstance(got, dict):
    fail(f"report.py and stats.py gave {got!r}")
if got.get("as_is") != wanted["as_is"]:
    fail(f"python3 report.py printed {got.get('as_is')!r}, expected {wanted['as_is']!r}")
if got.get("drawn") != wanted["drawn"]:
    fail(f"with EXPENSES = {expenses}, report.main() printed {got.get('drawn')!r}, "
         f"expected {wanted['drawn']!r}")  # fmt: skip
for name, expected in [("sum_values", total), ("mean", total / len(expenses))]:
    value = got.get(name)
    if not isinstance(value, float) or abs(value - expected) > 1e-6:
        fail(f"stats.{name}({expenses}) returned {value!r}, expected {expected!r}")
print("OK: total is sum_values and the report is unchanged")
