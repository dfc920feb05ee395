"""Notebook writes must leave a notebook nbformat validates."""

# ruff: noqa: E501  (case tables read best one case a line)

from __future__ import annotations

import json

import nbformat
import pytest

from jupyter_operator.protocol import OperatorError
from jupyter_operator.workspace import ERR_INVALID_NOTEBOOK, validate_notebook


def test_valid_notebook_passes() -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("print(1)")])
    validate_notebook(nbformat.writes(nb).encode())


@pytest.mark.parametrize(
    "data,hint",
    [
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b"[]", "nbformat"),
        (json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [{"cell_type": "bogus"}]}).encode(), "does not validate"),
        (json.dumps({"nbformat": 99, "nbformat_minor": 0, "cells": []}).encode(), "does not validate"),
    ],
)  # fmt: skip
@pytest.mark.filterwarnings("ignore::nbformat.warnings.MissingIDFieldWarning")
def test_invalid_notebooks(data: bytes, hint: str) -> None:
    with pytest.raises(OperatorError) as info:
        validate_notebook(data)
    assert info.value.code == ERR_INVALID_NOTEBOOK
    assert hint in info.value.message
    assert "Traceback" not in info.value.message and "Error" not in info.value.message
