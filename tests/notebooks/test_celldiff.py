"""Cell diffs: matching by id and by content, and what each kind of change looks like."""

from __future__ import annotations

import json

import nbformat
from nbformat import v4

from jupyter_operator.notebooks.celldiff import diff_notebooks


def notebook(*cells: tuple[str, str] | tuple[str, str, str], minor: int = 5, **extra) -> str:
    """A notebook of (type, source[, id]) cells (4.5: the id defaults to one made from the
    source, so equal cells keep their id across versions)."""
    nb = v4.new_notebook(**extra)
    nb.nbformat_minor = minor
    for spec in cells:
        kind, source = spec[0], spec[1]
        cell = v4.new_code_cell(source) if kind == "code" else v4.new_markdown_cell(source)
        if minor < 5:
            cell.pop("id", None)
        else:
            cell.id = spec[2] if len(spec) == 3 else f"s{abs(hash(source)) % 10**8}"
        nb.cells.append(cell)
    return nbformat.writes(nb)


def edit(text: str, fn) -> str:
    raw = json.loads(text)
    fn(raw)
    return json.dumps(raw, indent=1)


def statuses(diff) -> list[tuple[str, int | None, int | None]]:
    return [(e.status, e.old_index, e.new_index) for e in diff.cells]


BASE = [("markdown", "# Title", "t"), ("code", "import os\nx = 1\nprint(x)", "c1"),
        ("code", "y = 2", "c2"), ("code", "z = 3", "c3")]  # fmt: skip


def test_an_edited_line_is_a_changed_cell_with_a_numbered_source_diff() -> None:
    new = list(BASE)
    new[1] = ("code", "import os\nx = 10\nprint(x)", "c1")
    diff = diff_notebooks(notebook(*BASE), notebook(*new))
    assert statuses(diff) == [("unchanged", 0, 0), ("changed", 1, 1), ("unchanged", 2, 2)]
    changed = diff.cells[1]
    assert (changed.id, changed.cell_type) == ("c1", "code")
    assert changed.source_diff == "@@ -1,3 +1,3 @@\n import os\n-x = 1\n+x = 10\n print(x)\n"
    assert (changed.added, changed.removed) == (1, 1)
    assert diff.cells[2].count == 2  # the two unchanged cells after it are one entry
    assert diff.counts == {"added": 0, "removed": 0, "moved": 0, "changed": 1, "unchanged": 3}


def test_edited_cells_match_by_content_without_ids() -> None:
    old = notebook(*[c[:2] for c in BASE], minor=4)
    new = [c[:2] for c in BASE]
    new[2] = ("code", "y = 20")
    diff = diff_notebooks(old, notebook(*new, minor=4))
    assert statuses(diff) == [("unchanged", 0, 0), ("changed", 2, 2), ("unchanged", 3, 3)]
    assert diff.old_format == diff.new_format == "4.4"
    assert diff.cells[1].source_diff == "@@ -1 +1 @@\n-y = 2\n+y = 20\n"


def test_added_and_removed_cells_keep_their_places() -> None:
    new = [BASE[0], ("code", "w = 0", "w"), BASE[1], BASE[3]]  # w added, c2 removed
    diff = diff_notebooks(notebook(*BASE), notebook(*new))
    assert statuses(diff) == [
        ("unchanged", 0, 0), ("added", None, 1), ("unchanged", 1, 2), ("removed", 2, None),
        ("unchanged", 3, 3),
    ]  # fmt: skip
    added, removed = diff.cells[1], diff.cells[3]
    assert added.source_diff == "@@ -0,0 +1 @@\n+w = 0\n" and added.id == "w"
    assert removed.source_diff == "@@ -1 +0,0 @@\n-y = 2\n" and removed.id == "c2"


def test_a_moved_cell_is_moved_not_removed_and_added() -> None:
    new = [BASE[0], BASE[2], BASE[3], BASE[1]]
    for minor in (4, 5):
        old_nb = notebook(*(c if minor == 5 else c[:2] for c in BASE), minor=minor)
        new_nb = notebook(*(c if minor == 5 else c[:2] for c in new), minor=minor)
        diff = diff_notebooks(old_nb, new_nb)
        assert statuses(diff) == [("unchanged", 0, 0), ("moved", 1, 3)], minor
        assert diff.cells[1].source_diff == ""
        assert diff.counts["moved"] == 1 and diff.counts["unchanged"] == 3


def test_a_moved_and_edited_cell_without_ids_is_still_found() -> None:
    body = "\n".join(f"line_{n} = {n}" for n in range(8))
    old = [("code", "a = 1"), ("code", body), ("code", "b = 2"), ("code", "c = 3")]
    new = [("code", "a = 1"), ("code", "b = 2"), ("code", "c = 3"),
           ("code", body.replace("line_4 = 4", "line_4 = 40"))]  # fmt: skip
    diff = diff_notebooks(notebook(*old, minor=4), notebook(*new, minor=4))
    moved = [e for e in diff.cells if e.status == "moved"]
    assert [(e.old_index, e.new_index) for e in moved] == [(1, 3)]
    assert "-line_4 = 4\n+line_4 = 40\n" in moved[0].source_diff


def test_a_split_cell_is_a_changed_cell_and_an_added_part_split_from_it() -> None:
    whole = "import numpy as np\ndata = np.arange(10)\n\ntotal = data.sum()\nprint(total)"
    old = [("markdown", "# Data", "m"), ("code", whole, "w"), ("code", "done = True", "d")]
    new = [("markdown", "# Data", "m"), ("code", "import numpy as np\ndata = np.arange(10)", "w"),
           ("code", "total = data.sum()\nprint(total)", "n"),
           ("code", "done = True", "d")]  # fmt: skip
    for minor in (4, 5):
        diff = diff_notebooks(notebook(*old, minor=minor), notebook(*new, minor=minor))
        assert statuses(diff) == [
            ("unchanged", 0, 0), ("changed", 1, 1), ("added", None, 2), ("unchanged", 2, 3),
        ], minor  # fmt: skip
        assert diff.cells[2].split_from == 1
        assert diff.cells[1].removed == 3 and diff.cells[1].added == 0


def test_merged_cells_name_the_cell_they_went_into() -> None:
    old = [("code", "a = 1"), ("code", "b = 2\nc = 3"), ("code", "d = 4")]
    new = [("code", "a = 1"), ("code", "b = 2\nc = 3\nd = 4")]
    diff = diff_notebooks(notebook(*old, minor=4), notebook(*new, minor=4))
    assert statuses(diff) == [("unchanged", 0, 0), ("changed", 1, 1), ("removed", 2, None)]
    assert diff.cells[2].merged_into == 1


def _with_outputs(text: str, outputs_by_cell: dict[int, list], counts=None) -> str:
    def fn(raw):
        for index, outputs in outputs_by_cell.items():
            raw["cells"][index]["outputs"] = outputs
        for index, count in (counts or {}).items():
            raw["cells"][index]["execution_count"] = count

    return edit(text, fn)


def _stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def test_outputs_only_changes_are_summarised_without_a_source_diff() -> None:
    base = notebook(*BASE)
    old = _with_outputs(base, {1: [_stream("1\n"), _stream("a\n"), _stream("b\n")]})
    new = _with_outputs(base, {1: [_stream("10\n")]})
    diff = diff_notebooks(old, new)
    assert statuses(diff)[1] == ("changed", 1, 1)
    assert diff.cells[1].source_diff == ""
    assert diff.cells[1].outputs == "2 removed, 1 changed"


def test_an_execution_count_alone_is_folded_with_the_unchanged_cells() -> None:
    result = {"output_type": "execute_result", "data": {"text/plain": "2"}, "metadata": {}}
    base = notebook(*BASE)
    old = _with_outputs(base, {2: [{**result, "execution_count": 1}]}, {2: 1})
    new = _with_outputs(base, {2: [{**result, "execution_count": 7}]}, {2: 7})
    diff = diff_notebooks(old, new)
    assert statuses(diff) == [("unchanged", 0, 0)]
    assert (diff.cells[0].count, diff.cells[0].renumbered) == (4, 1)
    # Together with a source change, the new count is carried by the changed cell.
    changed = edit(new, lambda raw: raw["cells"][2].update(source="y = 3"))
    entry = diff_notebooks(old, changed).cells[1]
    assert entry.status == "changed" and entry.execution_count == [1, 7]
    assert entry.outputs is None


def test_metadata_only_changes_are_summarised() -> None:
    base = notebook(*BASE)
    new = edit(base, lambda raw: raw["cells"][3]["metadata"].update(tags=["skip"]))
    new = edit(new, lambda raw: raw["metadata"].update(kernelspec={"name": "python3"}))
    diff = diff_notebooks(base, new)
    assert statuses(diff)[-1] == ("changed", 3, 3)
    assert diff.cells[-1].metadata == "tags added" and diff.cells[-1].source_diff == ""
    assert diff.metadata == "kernelspec added"


def test_type_and_id_changes_are_changes() -> None:
    new = list(BASE)
    new[2] = ("markdown", "y = 2", "c2")
    new[3] = ("code", "z = 3", "renamed")
    diff = diff_notebooks(notebook(*BASE), notebook(*new))
    by_old = {e.old_index: e for e in diff.cells}
    assert by_old[2].status == "changed" and by_old[2].old_cell_type == "code"
    assert by_old[3].status == "changed" and (by_old[3].old_id, by_old[3].id) == ("c3", "renamed")


def test_a_new_or_deleted_notebook_is_all_added_or_removed() -> None:
    created = diff_notebooks(None, notebook(*BASE))
    assert [e.status for e in created.cells] == ["added"] * 4 and created.old_format is None
    deleted = diff_notebooks(notebook(*BASE).encode(), None)
    assert [e.status for e in deleted.cells] == ["removed"] * 4
    assert deleted.to_dict()["counts"]["removed"] == 4


def test_version_3_notebooks_are_read_as_cells() -> None:
    v3 = {"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [{"cells": [
        {"cell_type": "code", "input": "x = 1", "outputs": [], "language": "python",
         "metadata": {}}]}]}  # fmt: skip
    new = notebook(("code", "x = 2"), minor=4)
    diff = diff_notebooks(json.dumps(v3), new)
    assert statuses(diff) == [("changed", 0, 0)] and diff.old_format.startswith("4.")


def test_anything_else_is_not_a_notebook() -> None:
    good = notebook(*BASE)
    for bad in ("print('hi')\n", "[1, 2]", '{"cells": []}', b"\xff\xfe",
                edit(good, lambda raw: raw["cells"].append("not a cell")),
                edit(good, lambda raw: raw["cells"][0].update(source=5))):  # fmt: skip
        assert diff_notebooks(good, bad) is None, bad
        assert diff_notebooks(bad, good) is None, bad
    assert diff_notebooks(None, None) is None


def _big(n: int = 500) -> tuple[str, str]:
    """A 500-cell notebook with outputs (about 5 MB), and a copy with 10 cells edited."""
    blob = "x" * 9_000
    cells = [("code", f"value_{k} = compute({k})\nprint(value_{k})") for k in range(n)]
    old = notebook(*cells)
    old = _with_outputs(old, {k: [_stream(f"{k}:{blob}\n")] for k in range(n)})
    raw = json.loads(old)
    for k in range(5, n, n // 10):
        raw["cells"][k]["source"] = f"value_{k} = compute({k}) * 2\nprint(value_{k})"
    return old, json.dumps(raw, indent=1)


def test_a_500_cell_notebook_with_10_edits_lists_exactly_those() -> None:
    old, new = _big()
    assert len(old) > 4_500_000
    diff = diff_notebooks(old, new)
    assert diff.counts == {"added": 0, "removed": 0, "moved": 0, "changed": 10, "unchanged": 490}
    assert len(diff.cells) == 21  # 10 changes and the 11 runs of unchanged cells around them
    assert len(json.dumps(diff.to_dict())) < 10_000  # the unchanged cells are not repeated


def test_a_rewritten_notebook_without_ids_costs_a_bounded_number_of_comparisons(
    monkeypatch,
) -> None:
    from jupyter_operator.notebooks import celldiff

    calls = []
    real = celldiff.similarity
    monkeypatch.setattr(celldiff, "similarity", lambda a, b: calls.append(1) or real(a, b))
    sources = [f"value_{k} = compute({k})\nprint(value_{k})" for k in range(500)]
    old = notebook(*(("code", s) for s in sources), minor=4)
    new = notebook(*(("code", s.replace("compute", "recompute")) for s in sources), minor=4)
    diff = diff_notebooks(old, new)
    assert diff.counts["changed"] == 500 and len(diff.cells) == 500
    assert all(e.old_index == e.new_index for e in diff.cells)  # each edit found in place
    assert len(calls) <= celldiff._MAX_COMPARISONS + 500  # a band, never 500 x 500
