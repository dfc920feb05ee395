"""Policy rules: the grammar, first match wins, defaults, parse errors with line numbers,
the older form, rules files and where they may live."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_operator.engine import Policy
from jupyter_operator.engine.policy import RulesFileInWorkspace
from jupyter_operator.engine.rules import (
    GROUPS,
    KNOWN_ACTIONS,
    RUN_GROUPS,
    RulesError,
    Verdict,
    parse_line,
    rule_note,
)
from jupyter_operator.protocol import RUN_ACTIONS

RULES = """\
# notes are mine to let the model write
deny fs.delete **
auto fs.write notes/**      # but see rule 3 for notebooks? no: first match wins
ask **/*.ipynb
auto writes drafts/*
"""


def test_first_matching_rule_wins_in_order() -> None:
    policy = Policy.parse(RULES)
    assert policy.verdict("fs.delete", "notes/a.md") == Verdict(
        "deny", 1, "rule 1: deny fs.delete **"
    )
    assert policy.verdict("fs.write", "notes/a.md") == Verdict(
        "auto", 2, "rule 2: auto fs.write notes/**"
    )
    # Rule 2 comes first, so a notebook under notes/ is written without asking...
    assert policy.verdict("fs.write", "notes/a.ipynb").index == 2
    # ...and elsewhere rule 3 asks even though rule 4 would allow it.
    assert policy.verdict("fs.patch", "drafts/a.ipynb") == Verdict(
        "ask", 3, "rule 3: ask **/*.ipynb"
    )
    assert policy.verdict("fs.patch", "drafts/a.txt").text == "rule 4: auto writes drafts/*"
    # Reordering changes the answer.
    swapped = Policy(["ask **/*.ipynb", "auto fs.write notes/**"])
    assert swapped.verdict("fs.write", "notes/a.ipynb").verdict == "ask"


def test_defaults_run_reads_and_ask_for_changes() -> None:
    policy = Policy.parse(RULES)
    assert policy.verdict("fs.read", "a.txt") == Verdict("auto", None, "default: auto reads")
    assert policy.verdict("fs.write", "a.txt") == Verdict("ask", None, "default: ask")
    assert Policy().verdict("fs.delete", "a.txt").text == "default: ask"
    assert Policy().verdict("nb.insertCell", "a.ipynb").verdict == "ask"
    assert Policy().verdict("nb.readCells", "a.ipynb").verdict == "auto"


def test_rules_can_ask_for_or_refuse_reads_too() -> None:
    policy = Policy(["deny reads secrets/**", "ask fs.read **/*.csv"])
    assert policy.verdict("fs.search", "secrets").verdict == "deny"
    assert policy.verdict("fs.read", "data/x.csv").verdict == "ask"
    assert policy.verdict("fs.read", "data/x.txt").verdict == "auto"


def test_a_path_outside_the_workspace_never_runs_without_asking() -> None:
    policy = Policy(["auto * **", "auto fs.write notes/**"])
    for path in ("../x", "notes/../../x", "/etc/passwd", "~/.bashrc", "a\u202e/b"):
        assert policy.verdict("fs.write", path) == Verdict("ask", None, "default: ask")
        assert policy.verdict("fs.read", path).verdict == "ask"  # not even a read
    # A deny over every path still refuses it.
    assert Policy(["deny fs.delete **"]).verdict("fs.delete", "../x").verdict == "deny"
    assert Policy(["deny fs.delete notes/**"]).verdict("fs.delete", "../x").verdict == "ask"


def test_dot_files_need_the_dot_or_double_star() -> None:
    policy = Policy(["auto fs.write *", "auto fs.write config/**"])
    assert policy.verdict("fs.write", "README.md").verdict == "auto"
    assert policy.verdict("fs.write", ".bashrc").verdict == "ask"
    assert policy.verdict("fs.write", "config/.env").verdict == "auto"
    assert Policy(["auto fs.write .env"]).verdict("fs.write", ".env").verdict == "auto"


def test_matching_is_case_sensitive() -> None:
    policy = Policy(["auto fs.write notes/**"])
    assert policy.verdict("fs.write", "Notes/a.md").verdict == "ask"
    assert policy.verdict("fs.write", "notes/A.md").verdict == "auto"


@pytest.mark.parametrize(
    ("line", "action", "glob"),
    [
        ("auto fs.write notes/**", "fs.write", "notes/**"),
        ("deny fs.delete", "fs.delete", "**"),  # PATHGLOB left out: **
        ("ask **/*.ipynb", "*", "**/*.ipynb"),  # ACTION left out: a glob character
        ("auto notes/", "*", "notes/**"),  # a / says it is a path
        ("deny *", "*", "**"),  # * alone is the ACTION
        ("auto writes", "writes", "**"),
        ("ask * README.md", "*", "README.md"),
        ('auto fs.write "my notes/**"', "fs.write", "my notes/**"),
        ("deny mutations **  # nothing changes", "mutations", "**"),
    ],
)
def test_grammar(line: str, action: str, glob: str) -> None:
    rule = parse_line(line)
    assert rule is not None and (rule.action, rule.glob.text) == (action, glob)


def test_one_text_of_rules_is_not_a_list_of_characters() -> None:
    policy = Policy("deny fs.delete **\nask **/*.ipynb")
    assert policy.texts == ("deny fs.delete **", "ask **/*.ipynb")


def test_rule_text_is_what_the_person_wrote() -> None:
    assert Policy(["ask   **/*.ipynb   # notebooks"]).texts == ("ask **/*.ipynb",)
    assert Policy(['auto fs.write "my notes/**"']).texts == ("auto fs.write 'my notes/**'",)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("allow fs.write **", "expected auto, ask or deny, got 'allow'"),
        ("auto", "'auto' needs an action, a path glob, or both"),
        ("auto fs.wirte", "'fs.wirte' is not an action or a group"),
        ("auto notes.md", "to match a path, write 'auto * notes.md'"),
        ("auto fs.wirte notes/**", "unknown action or group 'fs.wirte'"),
        ("auto fs.write ../x/**", "'..' would leave the workspace"),
        ("auto fs.write /etc/**", "relative to the workspace"),
        ("auto fs.write a** b", "too many words"),
        ("auto fs.write notes**", "whole path part"),
        ('auto fs.write "notes/**', "cannot split the line"),
    ],
)
def test_parse_errors_say_what_is_wrong(line: str, message: str) -> None:
    with pytest.raises(ValueError, match=r"^line 1: ") as info:
        Policy.parse(line)
    assert message in str(info.value)


def test_parse_errors_name_every_bad_line_by_number() -> None:
    text = "# rules\ndeny fs.delete **\n\nalow fs.write **\nauto fs.write notes/**\nauto x.y\n"
    with pytest.raises(RulesError) as info:
        Policy.parse(text, source="rules.txt")
    assert [line for line, _ in info.value.errors] == [4, 6]
    assert str(info.value).startswith("rules.txt line 4: expected auto, ask or deny")
    assert "rules.txt line 6: 'x.y' is not an action" in str(info.value)


def test_the_older_form_keeps_working() -> None:
    policy = Policy(auto=frozenset({"reads", "fs.write"}), deny=frozenset({"fs.delete"}))
    assert policy.texts == ("deny fs.delete **", "auto fs.write **", "auto reads **")
    assert policy.verdict("fs.write", "any/where.txt").text == "rule 2: auto fs.write **"
    assert policy.verdict("fs.delete", "x").verdict == "deny"
    assert policy.auto == {"reads", "fs.write"} and policy.deny == {"fs.delete"}
    # Reads not listed in auto= ask, as they always did.
    assert Policy(auto=frozenset()).verdict("fs.read", "a").verdict == "ask"
    older = Policy.parse("auto=reads,writes deny=deletes")
    assert older.verdict("fs.patch", "a").verdict == "auto"
    with pytest.raises(ValueError, match=r"unknown action or group 'fs\.wrte'"):
        Policy(auto={"fs.wrte"})


def test_only_denials_keeps_the_refusals() -> None:
    dry = Policy.parse(RULES).only_denials()
    assert dry.texts == ("deny fs.delete **",)


def test_options_combine_in_order(tmp_path: Path) -> None:
    rules = tmp_path / "rules.txt"
    rules.write_text("deny fs.delete **\n")
    policy = Policy.from_options(file=rules, rules=["auto fs.write notes/**"],
                                 text="auto=reads deny=fs.patch")  # fmt: skip
    assert policy.texts == (
        "deny fs.delete **", "auto fs.write notes/**", "deny fs.patch **", "auto reads **",
    )  # fmt: skip
    assert policy.verdict("fs.write", "notes/a").text == "rule 2: auto fs.write notes/**"
    assert policy.sources == (str(rules.resolve()),)
    with pytest.raises(RulesError, match=r"^rule 2: expected auto, ask or deny"):
        Policy.from_options(rules=["deny fs.delete **", "alow fs.write **"])


def test_a_rules_file_names_the_file_in_its_errors(tmp_path: Path) -> None:
    rules = tmp_path / "team.rules"
    rules.write_text("deny fs.delete **\nauto fs.write\tnotes/**\nauto fs.writ **\n")
    with pytest.raises(RulesError, match=r"^team\.rules line 3: unknown action .* 'fs\.writ'"):
        Policy.load(rules)
    with pytest.raises(OSError):
        Policy.load(tmp_path / "missing.rules")
    with pytest.raises(OSError, match="not a regular file"):
        Policy.load(tmp_path)


def test_a_rules_file_inside_the_workspace_is_refused(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    inside = workspace / "sub" / "rules.txt"
    inside.write_text("auto * **\n")
    outside = tmp_path / "rules.txt"
    outside.write_text("auto * **\n")
    with pytest.raises(RulesFileInWorkspace, match=r"rules\.txt is inside the workspace"):
        Policy.load(inside).check_outside(workspace)
    # Spelt through a link to the workspace, it is still the same place.
    (tmp_path / "link").symlink_to(workspace)
    with pytest.raises(RulesFileInWorkspace):
        Policy.load(tmp_path / "link" / "sub" / "rules.txt").check_outside(workspace)
    Policy.load(outside).check_outside(workspace)  # fine


def test_rule_notes_say_which_rule_decided() -> None:
    assert rule_note("rule", "rule 2: auto fs.write notes/**", "applied") == (
        "auto-approved by rule 2: auto fs.write notes/**"
    )
    assert rule_note("rule", "rule 1: deny fs.delete **", "denied") == (
        "denied by rule 1: deny fs.delete **"
    )
    assert rule_note(None, "default: ask", "pending") == "asked by default: ask"
    assert rule_note("person", None, "applied") is None


# -- code runs only under a rule that names runs -------------------------------------------------
RUNS = sorted(RUN_ACTIONS)
# Every way an ``auto`` rule can be spelt without naming runs: bare paths, ``*`` (as the action,
# with or without a glob), ``**``, and each non-run action or group, with and without a glob.
UNNAMED = ["auto notes/**", "auto **/*.ipynb", "auto notes/*", "auto **", "auto *",
           "auto * notes/**", "auto * **", "auto * **/*.ipynb", "auto notes/", "auto ./notes//"]
UNNAMED += [f"auto {word}{glob}" for word in sorted(KNOWN_ACTIONS - RUN_ACTIONS)
            + sorted(set(GROUPS) - RUN_GROUPS) for glob in ("", " notes/**", " **")]  # fmt: skip
NAMED = [f"auto {word}{glob}" for word in [*RUNS, *sorted(RUN_GROUPS)]
         for glob in ("", " notes/**", " **/*.ipynb", " **")]  # fmt: skip


@pytest.mark.parametrize("line", UNNAMED)
def test_a_rule_that_names_no_run_approves_none(line: str) -> None:
    policy = Policy([line])
    for action in RUNS:  # the rule is skipped: the default asks
        assert policy.verdict(action, "notes/x.ipynb") == Verdict("ask", None, "default: ask")
        assert policy.verdict(action) == Verdict("ask", None, "default: ask")
    # A later rule that names runs decides instead.
    assert Policy([line, "auto runs"]).verdict("nb.runCell", "notes/x.ipynb").index == 2


@pytest.mark.parametrize("line", NAMED)
def test_a_rule_that_names_runs_approves_them(line: str) -> None:
    word = line.split()[1]
    for action in RUNS:
        named = word == action or word in RUN_GROUPS
        assert policy_says(line, action) == ("auto" if named else "ask")


def policy_says(line: str, action: str) -> str:
    return Policy.parse(line).verdict(action, "notes/x.ipynb").verdict


@pytest.mark.parametrize("word", ["*", *sorted(KNOWN_ACTIONS - RUN_ACTIONS), *sorted(GROUPS)])
def test_a_wildcard_still_approves_everything_else(word: str) -> None:
    """Only runs were taken out of ``*`` and bare paths: every other action they named stays."""
    covered = KNOWN_ACTIONS if word == "*" else GROUPS.get(word, frozenset({word}))
    for action in covered - RUN_ACTIONS:
        assert Policy([f"auto {word} notes/**"]).verdict(action, "notes/x.ipynb").verdict == "auto"
        if word == "*":
            assert Policy(["auto notes/**"]).verdict(action, "notes/x.ipynb").verdict == "auto"


@pytest.mark.parametrize("line", ["deny * notes/**", "deny notes/**", "deny **", "deny *"])
def test_ask_and_deny_wildcards_still_cover_runs(line: str) -> None:
    """Refusing or asking is always safe: only approval needs runs named."""
    for action in RUNS:
        assert policy_says(line, action) == "deny"
        assert policy_says(line.replace("deny", "ask", 1) + "\nauto runs", action) == "ask"


@pytest.mark.parametrize(
    "deny",
    ["deny writes src/**", "deny fs.delete **", "deny reads secrets/**", "deny * vendor/**",
     "deny mutations vendor/**", "deny nb.deleteCell **", "deny * .env"],
)  # fmt: skip
def test_a_deny_rule_on_files_makes_an_approved_run_ask(deny: str) -> None:
    """Code in a cell is bound by no file rule: while one refuses something, every run asks."""
    for auto in ("auto runs", "auto all", "auto nb.runCell notes/**"):
        found = Policy.parse(f"{deny}\n{auto}").verdict("nb.runCell", "notes/x.ipynb")
        assert found == Verdict(
            "ask", 2, f"rule 2: {auto}, but rule 1: {deny} binds files, not code that runs"
        )
        # Written after the approval, the deny still holds it back.
        assert Policy.parse(f"{auto}\n{deny}").verdict("nb.runCell", "notes/x.ipynb").verdict == (
            "ask"
        )  # fmt: skip


def test_a_deny_rule_on_runs_only_leaves_other_runs_approved() -> None:
    policy = Policy(["deny runs secret/**", "deny nb.restartKernel", "auto runs"])
    assert policy.verdict("nb.runCell", "notes/x.ipynb").text == "rule 3: auto runs"
    assert policy.verdict("nb.runCell", "secret/x.ipynb").verdict == "deny"
    assert policy.verdict("nb.restartKernel", "notes/x.ipynb").verdict == "deny"
    assert policy.unbound_by_code() is None


@pytest.mark.parametrize("glob", ["secrets#old/**", "'secrets#old/**'"])
def test_a_hash_inside_a_glob_is_part_of_it_not_a_comment(tmp_path: Path, glob: str) -> None:
    """``#`` starts a comment only at the start of a word: ``secrets#old/**`` is not cut to
    ``secrets`` (a deny rule silently narrowed to one name would let the read run)."""
    from jupyter_operator.engine import Operator

    policy = Policy.parse(f"deny reads {glob}   # the old keys")
    assert policy.texts == ("deny reads 'secrets#old/**'",)
    root = tmp_path / "ws"
    (root / "secrets#old").mkdir(parents=True)
    (root / "secrets#old" / "key.txt").write_text("KEY-123\n")
    block = ("OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: secrets#old/key.txt\n"
             "END_OPERATOR_CMD\n")  # fmt: skip
    with Operator(root, journal_dir=tmp_path / "journal", policy=policy) as op:
        run = op.run(block)
    (item,) = run.items
    assert item.status == "denied", (item.status, item.rule)
    assert "KEY-123" not in run.results_text
