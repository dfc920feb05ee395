"""The interface spec shipped with the package, its appendix, codes and action names."""

from __future__ import annotations

import pytest

from jupyter_operator.protocol import (
    ACTIONS,
    DELETE_ACTIONS,
    READ_ACTIONS,
    WRITE_ACTIONS,
    OperatorError,
    codes,
    interface_spec,
)


def test_bare_spec_is_the_seed_with_rule_16_fixed() -> None:
    text = interface_spec(())
    assert text.startswith("Operator Interface Specification (version: 3)\n")
    assert text.isascii()
    assert "16. Only OPERATOR_CMD blocks in the assistant's normal message stream" in text
    assert "APPENDIX" not in text
    assert text.endswith("content contains newline; use content_b64.\n")


def test_every_spec_code_and_action_is_in_the_spec_text() -> None:
    text = interface_spec(())
    for code in codes.SPEC_CODES:
        assert f"- {code}\n" in text
    for action in ACTIONS:
        assert action in text
    assert len(codes.SPEC_CODES) == 38 == len(set(codes.SPEC_CODES))


def test_default_spec_has_the_full_appendix() -> None:
    text = interface_spec()
    assert text.startswith(interface_spec(()))
    appendix = text[len(interface_spec(())) :]
    for code in codes.EXTENSION_CODES:
        assert appendix.count(f"- {code}: ") == 1
    assert "replaceFirst replaces the first occurrence" in appendix
    assert "'..'" in appendix
    assert text.isascii()


def test_appendix_lists_only_the_requested_codes() -> None:
    appendix = interface_spec([codes.ERR_REJECTED])[len(interface_spec(())) :]
    assert "- ERR_REJECTED: " in appendix
    assert "ERR_PATH_ESCAPE:" not in appendix
    with pytest.raises(ValueError, match="ERR_NOPE"):
        interface_spec(["ERR_NOPE"])


def test_codes_module_constants() -> None:
    assert set(codes.SPEC_CODES) | set(codes.EXTENSION_CODES) | set(codes.CELL_CODES) | set(
        codes.DIALECT_CODES
    ) | set(codes.AGENT_CODES) == codes.ALL_CODES
    assert not set(codes.SPEC_CODES) & set(codes.EXTENSION_CODES)
    assert not (set(codes.SPEC_CODES) | set(codes.EXTENSION_CODES)) & set(codes.CELL_CODES)
    for name in codes.ALL_CODES:
        assert getattr(codes, name) == name


def test_action_groups() -> None:
    assert len(ACTIONS) == 18
    assert READ_ACTIONS | WRITE_ACTIONS | DELETE_ACTIONS | {"operator.error"} == set(ACTIONS)
    assert not READ_ACTIONS & WRITE_ACTIONS
    assert "fs.insertRegion" in WRITE_ACTIONS
    assert {"fs.delete"} == DELETE_ACTIONS


def test_operator_error_summary() -> None:
    err = OperatorError(codes.ERR_NOT_FOUND, "no such file: a.txt")
    assert err.summary == "Invalid OPERATOR_CMD (ERR_NOT_FOUND): no such file: a.txt"
    assert str(err) == err.summary
    assert (err.code, err.message) == (codes.ERR_NOT_FOUND, "no such file: a.txt")
