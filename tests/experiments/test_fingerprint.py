"""Fingerprints and an honest resume: every row carries a hash of what its outcome depends on,
and a grid resumed after its task, check, model or settings changed names the rows that no
longer hold, keeps them unless told, and runs them again with ``--rerun-stale``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.replies import b64, block

from jupyter_operator.cli import main
from jupyter_operator.experiments import Experiment, ModelSpec, load_results, load_suite
from jupyter_operator.experiments.fingerprint import PARTS, fingerprint, fingerprint_parts
from jupyter_operator.experiments.single import RunSpec

SUITE = Path(__file__).resolve().parents[1] / "data" / "eval_suite"
WRITE = block("w1", "fs.write", path="hello.txt", content_b64=b64("hello\n"))
GOOD = ModelSpec.scripted("good", {"hello": [WRITE, "Done."]})


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A copy of the test suite's hello task, to change between runs."""
    folder = tmp_path / "suite"
    shutil.copytree(SUITE / "hello", folder / "hello")
    return folder


def _grid(suite: Path, out: Path, model: ModelSpec = GOOD, **options: bool) -> Experiment:
    return Experiment(suite, [model], repeats=2, out=out, **options)


def test_every_row_carries_its_fingerprint(suite: Path, tmp_path: Path) -> None:
    rows = _grid(suite, tmp_path / "out").run(workers=0, progress=False).rows
    spec = RunSpec(load_suite(suite)[0], GOOD, 0)
    parts = fingerprint_parts(spec)
    assert set(parts) == set(PARTS)
    for row in rows:
        assert row["fingerprint"] == fingerprint(parts) and len(row["fingerprint"]) == 64
        assert row["fingerprint_parts"] == parts
    # the same task loaded again, another repeat: the same fingerprint (nothing random in it)
    again = fingerprint_parts(RunSpec(load_suite(suite)[0], GOOD, 1))
    assert again == parts


@pytest.mark.parametrize(("change", "part"), [
    ("check", "check"), ("check-script", "check"), ("prompt", "prompt"),
    ("files", "files"), ("turns", "settings"),
])  # fmt: skip
def test_what_changed_is_named(suite: Path, tmp_path: Path, change: str, part: str) -> None:
    _grid(suite, tmp_path / "out").run(workers=0, progress=False)
    assert _grid(suite, tmp_path / "out").stale() == [], "nothing changed, yet rows were stale"
    toml = suite / "hello" / "task.toml"
    if change == "check":
        toml.write_text(toml.read_text().replace("check.py", "check.py --strict"))
    elif change == "check-script":
        (suite / "hello" / "check.py").write_text("import sys\nsys.exit(0)\n")
    elif change == "prompt":
        toml.write_text(toml.read_text().replace("the line: hello", "the line: hello!"))
    elif change == "files":
        (suite / "hello" / "files" / "extra.txt").write_text("new\n")
    else:
        toml.write_text(toml.read_text().replace("max_turns = 4", "max_turns = 5"))
    stale = _grid(suite, tmp_path / "out").stale()
    assert [s.key for s in stale] == [("hello", "good", 0, "operator"),
                                      ("hello", "good", 1, "operator")]
    assert all(s.changed == (part,) for s in stale), stale
    assert str(stale[0]) == f"hello · good · repeat 0 ({part} changed)"


def test_other_replies_or_settings_make_rows_stale(suite: Path, tmp_path: Path) -> None:
    _grid(suite, tmp_path / "out").run(workers=0, progress=False)
    other = ModelSpec.scripted("good", {"hello": [WRITE, "All done."]})
    assert {s.changed for s in _grid(suite, tmp_path / "out", other).stale()} == {("model",)}
    approving = _grid(suite, tmp_path / "out", approve_all=True)
    assert {s.changed for s in approving.stale()} == {("run",)}


def test_a_changed_check_marks_rows_stale_and_they_are_kept_unless_told(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The check changed after the grid ran: resuming says which rows are stale (count and
    names on stderr) and keeps them; --rerun-stale runs them again under the new check."""
    replay = tmp_path / "good.json"
    replay.write_text(json.dumps({"hello": [WRITE, "Done."]}))
    args = ["eval", str(suite), "--replay", str(replay), "--repeats", "2", "--workers", "0",
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert main(args) == 0
    first = {r["repeat"]: r for r in load_results(tmp_path / "out").rows}
    assert all(r["passed"] for r in first.values())
    (suite / "hello" / "check.py").write_text(
        "import sys\nprint('hello.txt is not enough now')\nsys.exit(1)\n")  # fmt: skip
    capsys.readouterr()

    assert main(args) == 0  # resumed without the flag: nothing is run again, silently or not
    err = capsys.readouterr().err
    assert ("2 finished runs stale: the task, its check, the model or the settings changed "
            "since they ran: hello · good · repeat 0 (check changed); hello · good · repeat 1 "
            "(check changed); kept and counted as done (--rerun-stale runs them again)") in err
    assert "2 runs (2 already in" in err and "[1/" not in err
    kept = {r["repeat"]: r for r in load_results(tmp_path / "out").rows}
    assert kept == first, "a stale row was replaced without --rerun-stale"

    assert main([*args, "--rerun-stale"]) == 0
    err = capsys.readouterr().err
    assert "run again (--rerun-stale)" in err and "2 runs (0 already in" in err
    rows = {r["repeat"]: r for r in load_results(tmp_path / "out").rows}
    assert [rows[n]["passed"] for n in (0, 1)] == [False, False], "not rerun under the new check"
    assert all(rows[n]["fingerprint"] != first[n]["fingerprint"] for n in (0, 1))
    assert main(args) == 0
    assert "stale" not in capsys.readouterr().err, "the rerun rows are still called stale"


def test_a_row_without_a_fingerprint_is_stale(suite: Path, tmp_path: Path) -> None:
    """A row written before rows carried a fingerprint: nothing shows it still holds."""
    from jupyter_operator.experiments.results import ResultsFile

    _grid(suite, tmp_path / "out").run(workers=0, progress=False)
    results = ResultsFile(tmp_path / "out")
    rows = results.rows()
    results.path.unlink()
    for row in rows:
        results.add({k: v for k, v in row.items() if not k.startswith("fingerprint")})
    stale = _grid(suite, tmp_path / "out").stale()
    assert [str(s) for s in stale] == ["hello · good · repeat 0 (no fingerprint)",
                                       "hello · good · repeat 1 (no fingerprint)"]  # fmt: skip
    again = _grid(suite, tmp_path / "out", rerun_stale=True)
    assert len(again.pending()) == 2
    with pytest.warns(UserWarning, match="2 rows stale, run again"):
        again.run(workers=0, progress=False)
    assert _grid(suite, tmp_path / "out").stale() == []
