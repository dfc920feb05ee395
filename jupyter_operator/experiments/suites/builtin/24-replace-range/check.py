"""The test matrix in .gitlab-ci.yml is 3.10, 3.11 and 3.12; nothing else changed."""

from pathlib import Path

from taskcheck import fail

EXPECTED = """stages:
  - lint
  - test

lint:
  stage: lint
  image: python:3.12
  script:
    - pip install ruff
    - ruff check .

test:
  stage: test
  image: python:${PYTHON_VERSION}
  parallel:
    matrix:
      - PYTHON_VERSION:
          - "3.10"
          - "3.11"
          - "3.12"
  script:
    - pip install -e .[test]
    - pytest -q
"""


try:
    lines = [line.rstrip() for line in Path(".gitlab-ci.yml").read_text("utf-8").splitlines()]
except OSError as exc:
    fail(f".gitlab-ci.yml cannot be read: {exc}")
versions = [line.strip() for line in lines if line.strip().startswith('- "3.')]
if versions != ['- "3.10"', '- "3.11"', '- "3.12"']:
    fail(f"the matrix lists {versions}, expected 3.10, 3.11 and 3.12, one quoted line each")
if lines != EXPECTED.splitlines():
    fail(".gitlab-ci.yml changed besides the matrix (indentation or other lines)")
print("OK: the matrix tests 3.10, 3.11 and 3.12")
