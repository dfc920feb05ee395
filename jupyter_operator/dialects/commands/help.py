"""The texts of ``/help``, ``/help bash`` and ``/nav scaffold``."""

from __future__ import annotations

HELP = """\
/open path[#block]        open a document (or one heading section of it)
/back                     go back to the document opened before
/refresh                  read the open document again
/close                    close the open document
/edit path[#block]        show the source with line numbers
/edit path[#block]        ...followed by a body: replace the whole file (or the block)
/write path               followed by a body: create or replace a file
/append path              followed by a body: add it to the end of a file
/ls [path]                list a folder (default: the workspace root)
/verify path#block        check that a block exists and preview it
/undo                     undo the last applied change
/set                      list the variables
/set {name} = "value"     set a variable; {name} is replaced in later commands
/nav [name|scaffold]      list the menus, show one, or a template for a new one
/act                      list the actions
/act.name --help          show an action's flags
/act.name --flag value    run an action
/info                     this session: open document, folder, variables
/help bash                how bash lines work

A body is the lines after the command, up to a line /end or the next command;
/write path <<EOF takes every line up to EOF literally.
#block is a Markdown heading: its slug (#getting-started, #install-1 for the second
"Install"), its title (#Getting Started), or a path of titles (#Linux/Install).
Paths are relative to the workspace root. Changes wait for approval unless the policy
allows them. Errors read ERROR(CODE): message."""

BASH_HELP = """\
A line that does not start with / is a bash line (a leading "$ " is dropped).
It is shown for approval (the command and its folder) unless the shell rules allow it,
then runs in the session's folder inside the sandbox (only the workspace is writable,
no network), with a time limit; the response is "exit: N | cwd: path" followed by
its output. A rejected line never runs.
cd PATH changes the session's folder (never outside the workspace) without running a shell.
{availability}"""

BASH_AVAILABLE = "Bash lines are available in this session."
BASH_MISSING = "Bash lines other than cd are refused here:"

SCAFFOLD = """\
# A menu groups commands under short labels. Define one in Python:
session.register_menu(
    "lesson",
    [
        ("Read the exercise", "/open exercise.md#Exercise"),
        ("Check your answer", "/act.grade --file answers.md"),
        ("Start again", "/open exercise.md"),
    ],
    title="Lesson 1",
)
# then: /nav lesson"""
