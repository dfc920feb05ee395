"""pyproject.toml: version 0.5.0, Python >= 3.10, requests added; the rest unchanged."""

import ast
from pathlib import Path

from taskcheck import fail

try:
    import tomllib
except ImportError:  # Python 3.10: the small subset of TOML this file uses
    tomllib = None


def parse_simple_toml(text: str) -> dict:
    """Tables, ``key = value`` with strings or arrays of strings (arrays may span lines)."""
    data: dict = {}
    current = data
    lines = iter(text.splitlines())
    for raw in lines:
        line = raw.split("#")[0].strip()
        if not line:
            continue
        if line.startswith("["):
            current = data
            for part in line.strip("[]").split("."):
                current = current.setdefault(part.strip(), {})
            continue
        key, equals, value = line.partition("=")
        if not equals:
            raise ValueError(f"not a key = value line: {raw!r}")
        value = value.strip()
        while value.startswith("[") and not value.endswith("]"):
            value += next(lines).split("#")[0].strip()
        current[key.strip()] = ast.literal_eval(value)
    return data


try:
    text = Path("pyproject.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text) if tomllib else parse_simple_toml(text)
except (OSError, ValueError, SyntaxError, StopIteration) as exc:
    fail(f"pyproject.toml is missing or not valid TOML: {exc}")
project = data.get("project", {})
checks = [
    ("project.version", project.get("version"), "0.5.0"),
    ("project.requires-python", project.get("requires-python"), ">=3.10"),
    ("project.dependencies", sorted(project.get("dependencies", [])),
     ["matplotlib>=3.7", "requests>=2.31"]),
    ("project.name", project.get("name"), "weatherline"),
    ("project.description", project.get("description"),
     "Plot weather station data from CSV files."),
    ("project.scripts", project.get("scripts"), {"weatherline": "weatherline.cli:main"}),
    ("build-system", data.get("build-system"),
     {"requires": ["setuptools>=68"], "build-backend": "setuptools.build_meta"}),
]  # fmt: skip
for name, got, wanted in checks:
    if got != wanted:
        fail(f"{name} is {got!r}, expected {wanted!r}")
if set(data) != {"build-system", "project"} or len(project) != 6:
    fail("pyproject.toml gained or lost tables or keys")
print("OK: pyproject.toml has the new version, Python floor and dependency")
