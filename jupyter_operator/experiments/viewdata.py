"""What the results viewer draws (``jupyter-operator view``, ``Results.show()``): an output
folder's rows as the grid of task x model cells, a cell per dialect where the runs used several
(pass rate, Wilson interval, tokens, cost, time), and each run's transcript as turns a person
reads (the reply, the commands as the cards drew them, the results the model got back, tokens
and cost per turn, the stop reason, the check's output).

Plain Python and JSON-ready values only: the page and the widget both take ``load_view``'s
dict as it is. A transcript is read only from inside the output folder (the row names it, and
a row read with ``verify=False`` is anyone's text): a name that leaves the folder, a link out
of it, or a file larger than ``TRANSCRIPT_BYTES`` is left out with a note, never followed.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .results import DEFAULT_DIALECT, ERRORS, O_NOFOLLOW, ResultsFile
from .stats import CONFIDENCE, wilson

#: The largest transcript file read (a bigger one is named, not loaded).
TRANSCRIPT_BYTES = 32 * 1024 * 1024
#: The outcome of a run: the check passed, it failed, or the endpoint or the harness ended the
#: run (``results.ERRORS``: counted as failed in every table, shown apart here).
OUTCOMES = ("passed", "failed", "error")
#: Card fields the saved view does not need (what a live card asks the kernel for).
_LIVE_ONLY = ("entry_id", "sha256_before", "live", "builds_on")


def outcome(row: Mapping[str, Any]) -> str:
    """``passed``, ``error`` (a fault of the endpoint or the harness) or ``failed``."""
    if row.get("passed"):
        return "passed"
    return "error" if row.get("stop_reason") in ERRORS else "failed"


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        return None
    return float(value)


def _cost(prompt: Any, completion: Any, estimated: bool, price: Any) -> float | None:
    """USD for these token counts at ``price`` (per million; one number or (in, out))."""
    if price is None or estimated:
        return None
    p_in, p_out = (price, price) if isinstance(price, (int, float)) else price
    return round((int(prompt or 0) * p_in + int(completion or 0) * p_out) / 1e6, 6)


def _mean(values: Iterable[float | None]) -> float | None:
    found = [v for v in values if v is not None]
    return sum(found) / len(found) if found else None


def _run_entry(number: int, row: Mapping[str, Any], price: Any) -> dict[str, Any]:
    estimated = bool(row.get("tokens_estimated"))
    return {
        "id": number,
        "task": str(row.get("task")),
        "model": str(row.get("model")),
        "repeat": row.get("repeat"),
        "dialect": str(row.get("dialect") or DEFAULT_DIALECT),
        "outcome": outcome(row),
        "passed": bool(row.get("passed")),
        "stop_reason": row.get("stop_reason"),
        "stop_message": row.get("stop_message"),
        "error_kind": row.get("error_kind"),
        "turns": row.get("turns"),
        "commands": row.get("commands"),
        "error_codes": row.get("error_codes") or {},
        "approvals": row.get("approvals"),
        "rejections": row.get("rejections"),
        "denied": row.get("denied"),
        "tokens": row.get("tokens"),
        "prompt_tokens": row.get("prompt_tokens"),
        "completion_tokens": row.get("completion_tokens"),
        "tokens_estimated": estimated,
        "cost": _cost(row.get("prompt_tokens"), row.get("completion_tokens"), estimated, price),
        "wall_seconds": _number(row.get("wall_seconds")),
        "check_exit": row.get("check_exit"),
        "check_output": row.get("check_output"),
        "started_at": _number(row.get("started_at")),
        "transcript": row.get("transcript"),
    }


def _cell(task: str, model: str, dialect: str, runs: list[dict[str, Any]],
          confidence: float) -> dict[str, Any]:  # fmt: skip
    passed = sum(r["passed"] for r in runs)
    low, high = wilson(passed, len(runs), confidence)
    costs = [r["cost"] for r in runs if r["cost"] is not None]
    return {
        "task": task,
        "model": model,
        "dialect": dialect,
        "runs": len(runs),
        "passed": passed,
        "errors": sum(r["outcome"] == "error" for r in runs),
        "rate": passed / len(runs),
        "low": low,
        "high": high,
        "tokens": _mean(_number(r["tokens"]) for r in runs),
        "cost": sum(costs) if costs else None,
        "seconds": _mean(r["wall_seconds"] for r in runs),
        "run_ids": [r["id"] for r in runs],
    }


def grid(rows: Iterable[Mapping[str, Any]], prices: Mapping[str, Any] | None = None,
         confidence: float = CONFIDENCE) -> dict[str, Any]:  # fmt: skip
    """The grid of ``rows`` (results rows): ``tasks``, ``models``, ``dialects``, ``runs`` (one
    entry per row, ``id`` its place in the list) and ``cells`` (per task, model and dialect:
    runs, passed, errors, the pass rate and its Wilson interval, mean tokens and seconds, the
    summed cost when priced). A row written before rows named their dialect is of
    ``results.DEFAULT_DIALECT``."""
    prices = dict(prices or {})
    ordered = sorted(rows, key=lambda r: (str(r.get("task")), str(r.get("model")),
                                          str(r.get("dialect") or DEFAULT_DIALECT),
                                          _number(r.get("repeat")) or 0))  # fmt: skip
    runs = [_run_entry(n, row, prices.get(str(row.get("model")))) for n, row in enumerate(ordered)]
    by_cell: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for run in runs:
        by_cell.setdefault((run["task"], run["model"], run["dialect"]), []).append(run)
    return {
        "confidence": confidence,
        "priced": bool(prices),
        "tasks": sorted({r["task"] for r in runs}),
        "models": sorted({r["model"] for r in runs}),
        "dialects": sorted({r["dialect"] for r in runs}),
        "runs": runs,
        "cells": [_cell(task, model, dialect, found, confidence)
                  for (task, model, dialect), found in sorted(by_cell.items())],
    }  # fmt: skip


def _inside(out: Path, name: Any) -> Path | None:
    """``out / name`` when it is a file inside ``out`` by its real location, else None."""
    if not isinstance(name, str) or not name or "\0" in name:
        return None
    root = out.resolve()
    target = (root / name).resolve()
    if target == root or root not in target.parents:
        return None
    return target


def read_transcript_file(out: Path, name: Any) -> tuple[list[dict[str, Any]], str | None]:
    """The records of the transcript ``name`` (relative to ``out``) and None, or no records
    and why not (outside the folder, missing, too large)."""
    path = _inside(out, name)
    if path is None:
        return [], "its transcript is not inside the results folder, so it is not read"
    try:
        # non-blocking: a FIFO put in the folder is refused below, never waited on
        fd = os.open(path, os.O_RDONLY | O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return [], "its transcript file is missing"
    except OSError as exc:
        return [], f"its transcript cannot be read ({os.strerror(exc.errno or 5)})"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > TRANSCRIPT_BYTES:
            return [], (f"its transcript is not a file of at most "
                        f"{TRANSCRIPT_BYTES // (1024 * 1024)} MiB, so it is not read")  # fmt: skip
        with os.fdopen(os.dup(fd), "rb") as file:
            text = file.read(TRANSCRIPT_BYTES).decode("utf-8", errors="replace")
    finally:
        os.close(fd)
    records = []
    for line in text.split("\n"):
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn line (a crash) or an empty one
        if isinstance(record, dict):
            records.append(record)
    return records, None


def _usage(record: Mapping[str, Any]) -> dict[str, Any]:
    usage = record.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    return {"prompt": usage.get("prompt_tokens"), "completion": usage.get("completion_tokens"),
            "estimated": bool(usage.get("estimated"))}  # fmt: skip


def _saved_card(card: Mapping[str, Any]) -> dict[str, Any]:
    """A card as a saved view draws it: decided, with nothing left to ask the kernel."""
    saved = {k: v for k, v in card.items() if k not in _LIVE_ONLY}
    saved.update(needs_approval=False, editable=False, can_run=False)
    return saved


def transcript_turns(records: Iterable[Mapping[str, Any]], price: Any = None) -> dict[str, Any]:
    """A run's records as a person reads them: ``prompt`` (the task as the model got it),
    ``system`` (the system prompt), ``turns`` (each with ``reply``, ``finish_reason``,
    ``usage`` and ``cost``, ``cards``, ``commands``, ``decisions``, ``results``, ``sent``: the
    text the model got back after it, and ``notes``: faults, compaction, continuation) and
    ``stop`` (reason and message)."""
    view: dict[str, Any] = {"prompt": None, "system": None, "endpoint": None, "policy": None,
                            "turns": [], "stop": None, "answers": []}  # fmt: skip
    turns: dict[int, dict[str, Any]] = {}

    def turn(number: Any) -> dict[str, Any]:
        key = int(number) if isinstance(number, int) and not isinstance(number, bool) else 0
        if key not in turns:
            turns[key] = {"turn": key, "reply": None, "finish_reason": None, "usage": None,
                          "cost": None, "model_seconds": None, "cards": [], "commands": [],
                          "decisions": [], "results": [], "sent": [], "notes": []}  # fmt: skip
        return turns[key]

    for record in records:
        kind = record.get("type")
        number = record.get("turn")
        if kind == "start":
            view.update(prompt=record.get("task"), endpoint=record.get("endpoint"),
                        policy=record.get("policy"))  # fmt: skip
        elif kind == "message":
            role, content = record.get("role"), record.get("content")
            if role == "system":
                view["system"] = content
            elif role == "assistant":
                entry = turn(number)
                entry.update(reply=content, finish_reason=record.get("finish_reason"),
                             model_seconds=record.get("model_seconds"))  # fmt: skip
            elif role == "user":
                at = number if isinstance(number, int) and not isinstance(number, bool) else 1
                if at <= 1:  # the task itself (the start record names it too)
                    view["prompt"] = content if view["prompt"] is None else view["prompt"]
                else:  # what the model got back after its reply of the turn before
                    turn(at - 1)["sent"].append(content)
        elif kind == "turn":
            entry = turn(number)
            entry["usage"] = _usage(record)
            entry["cost"] = _cost(entry["usage"]["prompt"], entry["usage"]["completion"],
                                  entry["usage"]["estimated"], price)  # fmt: skip
        elif kind == "card" and isinstance(record.get("card"), dict):
            turn(number)["cards"].append(_saved_card(record["card"]))
        elif kind in ("command", "decision", "result"):
            fields = {k: v for k, v in record.items() if k not in ("type", "t", "turn")}
            turn(number)[f"{kind}s"].append(fields)
        elif kind == "answer":
            view["answers"].append(record.get("text"))
        elif kind == "model_error":
            turn(number)["notes"].append(f"the endpoint failed ({record.get('kind')}): "
                                         f"{record.get('message')}")  # fmt: skip
        elif kind == "compaction":
            turn(number)["notes"].append("the conversation was compacted to fit the model's "
                                         "context window")  # fmt: skip
        elif kind == "continue":
            turn(number)["notes"].append("the reply was cut off "
                                         f"({record.get('finish_reason')}); the model was asked "
                                         "to continue")  # fmt: skip
        elif kind == "stop":
            view["stop"] = {"reason": record.get("reason"), "message": record.get("message"),
                            "wall_seconds": record.get("wall_seconds")}  # fmt: skip
    view["turns"] = [turns[key] for key in sorted(turns) if key > 0 or turns[key]["reply"]]
    return view


def build_view(rows: Iterable[Mapping[str, Any]], out: str | os.PathLike[str] | None = None, *,
               prices: Mapping[str, Any] | None = None, confidence: float = CONFIDENCE,
               refused: Iterable[Any] = (), title: str | None = None,
               transcripts: bool = True) -> dict[str, Any]:  # fmt: skip
    """The viewer's data for ``rows``: ``grid`` (its keys at the top level), ``title``,
    ``refused`` (lines of ``results.jsonl`` that do not verify, with the reason), ``systems``
    (each distinct system prompt once) and, with ``transcripts`` and the output folder ``out``
    the rows name their transcripts in, each run's ``view`` (``transcript_turns``; its
    ``system`` is an index into ``systems``) or ``missing`` (why its transcript was not read)."""
    data = grid(rows, prices, confidence)
    folder = Path(out) if out is not None else None
    data.update(title=title or (folder.resolve().name if folder else "results"),
                refused=[{"line": r.line, "reason": r.reason} for r in refused],
                systems=[])  # fmt: skip
    if not transcripts:
        return data
    systems: dict[str, int] = {}
    prices = dict(prices or {})
    for run in data["runs"]:
        if folder is None:
            records, missing = [], "the results were not read from a folder"
        else:
            records, missing = read_transcript_file(folder, run["transcript"])
        if missing is not None and run["transcript"] is None:
            missing = "the run saved no transcript"
        view = transcript_turns(records, prices.get(run["model"]))
        system = view.pop("system")
        view["system"] = systems.setdefault(system, len(systems)) if system else None
        run["view"], run["missing"] = view, missing
    data["systems"] = list(systems)
    return data


def load_view(out: str | os.PathLike[str], *, prices: Mapping[str, Any] | None = None,
              verify: bool = True, key_file: str | os.PathLike[str] | None = None,
              confidence: float = CONFIDENCE,
              transcripts: bool = True) -> dict[str, Any]:  # fmt: skip
    """``build_view`` of the output folder ``out``: the rows of its ``results.jsonl`` that
    verify (``verify=False``: every row; ``verified`` says which), and their transcripts."""
    folder = Path(out)
    if not (folder / "results.jsonl").is_file():
        raise FileNotFoundError(f"{folder}: no results.jsonl here (an `eval --out` folder)")
    rows, refused = ResultsFile(folder, key_file=key_file, verify=verify).read()
    data = build_view(rows, folder, prices=prices, confidence=confidence, refused=refused,
                      transcripts=transcripts)  # fmt: skip
    data["verified"] = verify
    return data
