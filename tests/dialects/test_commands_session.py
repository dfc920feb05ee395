# ruff: noqa: E501  (tables of exact responses read best one row a line)
"""A string-command session: request ids, variables, the back stack, approvals in order, the
policy, undo, registered actions, and the jail attack table through the commands."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from jupyter_operator.engine.commands import CommandSession


def bodies(session: CommandSession, script: str) -> list[str]:
    return [reply.body for reply in session.execute(script).replies]


# -- request ids --------------------------------------------------------------------------------
def test_request_ids_count_up_and_a_given_id_is_echoed(session: CommandSession) -> None:
    batch = session.execute("/help\n[ab12] /ls\n/info")
    assert [r.request_id for r in batch.replies] == ["001qm", "ab12", "003qm"]
    assert batch.replies[1].text.startswith("re: [ab12] /ls\nListing ./\n---\n")
    assert session.command("/help").request_id == "004qm"


def test_each_session_gets_its_own_tag(make_session: Callable[..., CommandSession]) -> None:
    from jupyter_operator.engine.commands import CommandSession as Session

    op = make_session().operator
    tags = {Session(op).tag for _ in range(30)}
    assert len(tags) > 1 and all(len(t) == 2 and t.isalpha() for t in tags)


def test_the_echo_is_one_visible_line(session: CommandSession) -> None:
    reply = session.command("/open a\u202eb.md")
    assert reply.text.split("\n")[0] == "re: [001qm] /open a\\u202eb.md"


# -- errors -------------------------------------------------------------------------------------
ERRORS = [
    ("/frobnicate", "ERROR(UNKNOWN_COMMAND): /frobnicate is not a command; /help lists them."),
    ("/back", "ERROR(NO_HISTORY): no earlier document to go back to."),
    ("/refresh", "ERROR(NO_DOCUMENT): no document is open; /open one before /refresh."),
    ("/close", "ERROR(NO_DOCUMENT): no document is open; /open one before /close."),
    ("/verify notes.md", "ERROR(USAGE): /verify needs a block: /verify path#block."),
    ("/open notes.md#", "ERROR(USAGE): a # must be followed by a heading: path#Heading."),
    ("/open docs", "ERROR(NOT_A_FILE): docs is a directory"),
    ("/ls notes.md", "ERROR(NOT_A_DIRECTORY): notes.md is not a directory"),
    ("/write new.md", "ERROR(USAGE): /write needs a body: the lines after it, up to /end."),
    ("/write notes.md#setup\nx\n/end", "ERROR(USAGE): /write takes a file, not a #block (use /edit path#block)."),
    ("/edit nothing.md\nx\n/end", "ERROR(NOT_FOUND): File not found: nothing.md (use /write to create it)."),
    ("/set = 1", 'ERROR(USAGE): write /set {name} = "value", or /set alone to list.'),
    ("/set {a} = \"open", "ERROR(USAGE): the quoted value is not closed or has a bad escape."),
    ("/help me", "ERROR(USAGE): /help takes no topic or 'bash'."),
    ("/nav missing", "ERROR(NOT_FOUND): no menu 'missing'; /nav lists them."),
    ("/act.missing", "ERROR(NOT_FOUND): no action 'missing'; /act lists them."),
    ("/undo", "ERROR(NOT_FOUND): nothing to undo in this workspace."),
    ("/open docs/guide.md#nope", "ERROR(NOT_FOUND): no heading 'nope' in docs/guide.md (headings: #guide)."),
    ("/open notes.md#Install", "ERROR(AMBIGUOUS): 2 headings match 'Install' in notes.md; use one of #install, #install-1."),
    ("/write a.md <<EOF\nnever closed", "ERROR(USAGE): EOF never closes the body"),
    ("/end", "ERROR(USAGE): /end only closes the body of /write, /append or /edit."),
    ("/usage x", "ERROR(UNKNOWN_COMMAND): /usage is not a command; /help lists them."),
]  # fmt: skip


@pytest.mark.parametrize(("script", "expected"), ERRORS, ids=lambda v: v[:20])
def test_errors_have_a_code_and_no_separator(session: CommandSession, script: str,
                                            expected: str) -> None:  # fmt: skip
    reply = session.execute(script).replies[-1]
    assert reply.body == expected
    assert reply.status == "error" and reply.content is None and "\n" not in reply.body


def test_open_a_block_of_a_file_that_is_not_markdown(session: CommandSession, root: Path) -> None:
    (root / "a.py").write_text("# comment\nx = 1\n", encoding="utf-8")
    reply = session.command("/open a.py#comment")
    assert reply.body == "ERROR(NOT_MARKDOWN): a.py is not Markdown; #blocks are headings."


# -- variables and the back stack ---------------------------------------------------------------
def test_variables_are_expanded_in_later_commands(session: CommandSession) -> None:
    script = '/set {doc} = "notes.md"\n/set section = setup\n/open {doc}#{section}\n/open {nope}'
    out = bodies(session, script)
    assert out[:2] == ['{doc} = "notes.md"', '{section} = "setup"']
    assert out[2].startswith("Opened notes.md#setup\n---\n## Setup")
    assert out[3] == "ERROR(NOT_FOUND): File not found: {nope}"
    assert session.command("/set").body == 'Variables\n---\n{doc} = "notes.md"\n{section} = "setup"'


def test_variables_are_not_expanded_in_bodies(auto: CommandSession, root: Path) -> None:
    auto.execute('/set {x} = "1"\n/write t.txt\nvalue {x}\n/end')
    assert (root / "t.txt").read_text(encoding="utf-8") == "value {x}\n"


def test_the_back_stack(session: CommandSession) -> None:
    out = bodies(session, "/open notes.md\n/open notes.md#setup\n/open docs/guide.md\n"
                          "/back\n/back\n/back")  # fmt: skip
    assert [b.split("\n")[0] for b in out[3:]] == [
        "Back to notes.md#setup", "Back to notes.md", "ERROR(NO_HISTORY): no earlier document to go back to.",
    ]  # fmt: skip
    assert session.document == ("notes.md", None) and session.back == []


def test_ls_shows_at_most_500_entries(session: CommandSession, root: Path) -> None:
    (root / "many").mkdir()
    for n in range(503):
        (root / "many" / f"f{n:03d}").write_text("", encoding="utf-8")
    content = session.command("/ls many/").content
    assert content is not None
    assert content.split("\n")[-2:] == ["f499  (0 bytes)", "... and 3 more"]


def test_refresh_reads_the_disk_again(session: CommandSession, root: Path) -> None:
    session.command("/open docs/guide.md")
    (root / "docs/guide.md").write_text("# Guide\nChanged.\n", encoding="utf-8")
    assert session.command("/refresh").body == "Refreshed docs/guide.md\n---\n# Guide\nChanged."


# -- changes are proposals ----------------------------------------------------------------------
def test_a_write_waits_and_later_commands_wait_for_it(session: CommandSession, root: Path) -> None:
    batch = session.execute("/write new.md\nhello\n/open new.md")
    assert [r.status for r in batch.replies] == ["pending"]
    assert (
        batch.replies[0].body
        == "Proposed: write new.md (new file, +1 -0 lines); waiting for approval"
    )
    assert [q.echo for q in batch.queued] == ["/open new.md"]
    assert not (root / "new.md").exists()
    item = batch.replies[0].run.items[0]
    assert "+hello" in item.diff and item.line == 1 and item.id == "001qm"
    assert session.execute("\n/write b.md\nx").replies[0].run.items[0].line == 2
    batch.approve()
    assert batch.done
    assert [r.body for r in batch.replies] == [
        "Written: new.md (6 bytes, 1 line)", "Opened new.md\n---\nhello",
    ]  # fmt: skip


def test_a_rejected_change_writes_nothing_and_says_why(session: CommandSession, root: Path) -> None:
    batch = session.execute("/append notes.md\nmore\n/end\n/ls docs")
    before = (root / "notes.md").read_bytes()
    batch.reject("not now")
    assert batch.replies[0].body == "ERROR(REJECTED): nothing was changed. Reason: not now"
    assert batch.replies[1].body.startswith("Listing docs/")
    assert (root / "notes.md").read_bytes() == before


def test_a_change_to_a_file_edited_since_the_preview_is_stale(session: CommandSession,
                                                              root: Path) -> None:  # fmt: skip
    batch = session.execute("/edit docs/guide.md\nnew\n/end")
    (root / "docs/guide.md").write_text("changed meanwhile\n", encoding="utf-8")
    batch.approve()
    assert batch.replies[0].body.startswith("ERROR(STALE): ")
    assert (root / "docs/guide.md").read_text(encoding="utf-8") == "changed meanwhile\n"


def test_the_policy_decides_what_runs_without_asking(make_session: Callable[..., CommandSession],
                                                     root: Path) -> None:  # fmt: skip
    denied = make_session("deny=fs.write")
    # A rule that refuses the action on every path is named, like a path's rule.
    assert denied.command("/write x.md\nx\n/end").body == (
        "ERROR(DENIED): fs.write is not allowed in this workspace (rule 1: deny fs.write **)."
    )
    no_reads = make_session("deny=fs.read")
    assert no_reads.command("/open notes.md").body.startswith("ERROR(DENIED): fs.read")
    assert no_reads.command("/edit notes.md").body.startswith("ERROR(DENIED): fs.read")
    assert no_reads.command("/ls").body.startswith("Listing ./")
    assert no_reads.command("/help").body.startswith("String Commands")
    assert no_reads.command("/write y.md\ny\n/end").status == "pending"
    assert make_session("deny=fs.list").command("/ls").body == (
        "ERROR(DENIED): fs.list is not allowed in this workspace (rule 1: deny fs.list **)."
    )
    assert not (root / "x.md").exists()


def test_undo_after_write_append_and_edit(auto: CommandSession, root: Path) -> None:
    original = (root / "notes.md").read_bytes()
    out = bodies(auto, "/write notes.md\nreplaced\n/end\n/undo\n"
                       "/append notes.md\nextra\n/end\n/undo\n"
                       "/edit notes.md#setup\n## Setup\nshort\n/end\n/undo")  # fmt: skip
    assert [b.split(" (")[0] for b in out] == [
        "Written: notes.md", "Undo: reverted notes.md", "Appended to: notes.md",
        "Undo: reverted notes.md", "Edited notes.md#setup", "Undo: reverted notes.md",
    ]  # fmt: skip
    assert (root / "notes.md").read_bytes() == original
    # Each /undo of a reply is a change of its own in the history (a person can undo it).
    assert [e.action for e in auto.operator.history()] == ["fs.write"] * 6


def test_a_long_script_of_automatic_changes(auto: CommandSession, root: Path) -> None:
    script = "".join(f"/append log.txt\nline {n}\n/end\n" for n in range(400))
    batch = auto.execute(script + "/ls")
    assert batch.done and len(batch.replies) == 401
    assert (
        batch.replies[-2].body
        == f"Appended to: log.txt (now {len(chr(10).join(f'line {n}' for n in range(400))) + 1} bytes)"
    )
    assert (root / "log.txt").read_text(encoding="utf-8").count("\n") == 400


def test_undo_of_a_created_file_removes_it(make_session: Callable[..., CommandSession],
                                           root: Path) -> None:  # fmt: skip
    auto = make_session("auto=reads,writes,deletes")  # a reply's undo of a new file deletes it
    auto.execute("/write made.md\nx\n/end")
    assert auto.command("/undo").body == "Undo: reverted made.md (1 line)"
    assert not (root / "made.md").exists()


def test_block_edit_keeps_crlf_and_the_rest(auto: CommandSession, root: Path) -> None:
    (root / "w.md").write_bytes(b"# A\r\none\r\n# B\r\ntwo\r\n")
    auto.execute("/edit w.md#a\n# A\nuno\n/end")
    assert (root / "w.md").read_bytes() == b"# A\r\nuno\r\n# B\r\ntwo\r\n"
    auto.execute("/append w.md\nthree\n/end")
    assert (root / "w.md").read_bytes() == b"# A\r\nuno\r\n# B\r\ntwo\r\nthree\r\n"


# -- actions and menus --------------------------------------------------------------------------
def test_registered_action_flags_are_checked(session: CommandSession, root: Path) -> None:
    seen: list[dict[str, object]] = []

    def grade(file: str, points: int = 10) -> str:
        """Grade answers."""
        seen.append({"file": file, "points": points})
        return f"graded {file} out of {points}"

    session.register_action("grade", grade, schema={
        "file": {"type": "path", "required": True}, "points": {"type": "int", "default": 10}})  # fmt: skip
    (root / "answers.md").write_text("x\n", encoding="utf-8")
    out = bodies(session, "/act.grade --file answers.md\n/act.grade --file answers.md --points 5\n"
                          "/act.grade --points 5\n/act.grade --file answers.md --points many\n"
                          "/act.grade --file ../x.md\n/act.grade --file docs\n/act.grade --file a.md --x 1")  # fmt: skip
    assert out == [
        "graded answers.md out of 10",
        "graded answers.md out of 5",
        "ERROR(USAGE): /act.grade needs --file.",
        "ERROR(USAGE): --points must be int.",
        "ERROR(PATH_ESCAPE): invalid path: '..' components are not allowed",
        "ERROR(NOT_A_FILE): docs is not a file.",
        "ERROR(USAGE): /act.grade has no flag --x; /act.grade --help lists them.",
    ]
    assert len(seen) == 2
    assert session.command("/act").body == "Actions\n---\ngrade  Grade answers."


def test_an_action_that_raises_gives_no_traceback(session: CommandSession) -> None:
    def broken() -> str:
        raise RuntimeError("/home/secret/path exploded")

    session.register_action("broken", broken)
    assert session.command("/act.broken").body == (
        "ERROR(ACTION_FAILED): the action broken failed on the host."
    )


def test_registration_refuses_bad_names(session: CommandSession) -> None:
    with pytest.raises(ValueError, match="action name"):
        session.register_action("a b", lambda: "x")
    with pytest.raises(ValueError, match="type must be"):
        session.register_action("a", lambda: "x", schema={"f": {"type": "file"}})
    with pytest.raises(ValueError, match="reserved"):
        session.register_menu("scaffold", [])
    with pytest.raises(ValueError, match="must start with /"):
        session.register_menu("m", [("x", "rm -rf /")])


# -- bash lines: cd without a runner ------------------------------------------------------------
def test_cd_moves_inside_the_workspace_only(session: CommandSession) -> None:
    out = bodies(session, "cd docs\ncd ..\ncd ..\ncd notes.md\ncd /etc\n$ cd docs\ncd")
    assert out == [
        "exit: 0 | cwd: docs", "exit: 0 | cwd: .",
        "ERROR(PATH_ESCAPE): invalid path: '..' components are not allowed",
        "ERROR(NOT_A_DIRECTORY): notes.md is not a folder.",
        "ERROR(PATH_ESCAPE): invalid path: absolute paths are not allowed; use a path relative "
        "to the workspace",
        "exit: 0 | cwd: docs", "exit: 0 | cwd: .",
    ]  # fmt: skip


# -- the jail attack table through the commands -------------------------------------------------
@pytest.fixture
def outside(root: Path) -> Path:
    folder = root.parent / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("TOP SECRET\n", encoding="utf-8")
    os.symlink(folder / "secret.txt", root / "link.md")
    os.symlink(folder, root / "linkdir")
    return folder


ATTACKS = [
    "../outside/secret.txt", "docs/../../outside/secret.txt", "/etc/passwd", "~/.bashrc",
    "C:\\Windows\\win.ini", "\\\\host\\share\\x", "link.md", "linkdir/secret.txt", "linkdir",
    ".git/config", ".GIT/config", "a\u202etxt.md", "docs/\u200b.md",
]  # fmt: skip


@pytest.mark.parametrize("path", ATTACKS)
@pytest.mark.parametrize("template", ["/open {p}", "/write {p}\nx\n/end", "/ls {p}",
                                      "/append {p}\nx\n/end", "/edit {p}", "cd {p}"])  # fmt: skip
def test_jail_attacks_are_refused(auto: CommandSession, root: Path, outside: Path,
                                  template: str, path: str) -> None:  # fmt: skip
    before = sorted(p.name for p in outside.iterdir())
    reply = auto.execute(template.replace("{p}", path)).replies[-1]
    assert reply.status == "error", reply.body
    code = reply.code
    assert code in {"PATH_ESCAPE", "PROTECTED_PATH", "NOT_FOUND", "NOT_A_DIRECTORY"}, reply.body
    if code == "NOT_FOUND":  # only a missing path inside the workspace may say so
        assert path.startswith(".git") or "\u200b" not in path
    text = reply.text
    assert "TOP SECRET" not in text and str(root) not in text and str(outside) not in text
    assert sorted(p.name for p in outside.iterdir()) == before
    assert (outside / "secret.txt").read_text(encoding="utf-8") == "TOP SECRET\n"


def test_a_settled_reply_does_not_change_again(session: CommandSession) -> None:
    batch = session.execute("/write a.md\nx\n/end")
    batch.approve()
    run = batch.replies[0].run
    item = run.items[0]
    item.move_to("undone")  # what subscribers hear when the journal undoes the change later
    run._notify(item)
    assert batch.replies[0].body == "Written: a.md (2 bytes, 1 line)"


def test_the_reads_of_a_script_share_one_output_budget(session: CommandSession,
                                                       root: Path) -> None:  # fmt: skip
    """Like every dialect's reads: 60 /open of a 190 KB file stop at the reply's 8 MiB."""
    (root / "big.md").write_text(("x" * 99 + "\n") * 1900)
    batch = session.execute("/open big.md\n" * 60)
    bodies = [reply.body for reply in batch.replies]
    opened = [b for b in bodies if b.startswith("Opened big.md")]
    refused = [b for b in bodies if b.startswith("ERROR(OUTPUT_BUDGET)")]
    assert len(opened) == 8 * 1024 * 1024 // 190_000 and len(refused) == 60 - len(opened)
    assert session.execute("/open big.md").replies[0].body.startswith("Opened")  # a new script
