"""Reading an ordering of systems for ``zelo_compare --orderings A B``.

Detected from the first non-blank, non-``#`` line:

* ``pref_aggregate`` JSON lines (the line starts with ``{``): the summary line
  (``"qid": "all"``, first sample if there are several) maps each measure to
  ``{"type": "metric", "mean": [runs best first]}`` or
  ``{"type": "preference", "mc4": [...], "borda": [...]}``. ``key`` picks
  ``MEASURE`` or ``MEASURE:LIST`` (e.g. ``rpp:mc4``); it may be left out when
  the file holds exactly one list. A list becomes scores -position.
* ``zelo_eval``'s long tables (``-o tsv|csv|jsonl``): a header ``run qid measure value``
  (or ``runi runj qid measure value``), or JSON lines with those keys; the
  summary rows (``qid`` = ``all``, per run: an empty ``runj``) of the measure
  ``key`` give the scores (``key`` may be left out when the file holds one
  measure).
* whitespace-separated text: ``system score`` per line (higher = better), or
  one ``system`` per line, best first. An optional header line whose second
  field is not a number is skipped.
"""
from __future__ import annotations

import json
import os

from ..errors import InputError, UsageError, command_running, shown
from .textfile import display_name, json_object, read_input_text


def _from_list(names: list, name: str, line: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for pos, s in enumerate(names):
        if not isinstance(s, str):
            raise InputError(name, line, f"expected a list of run names, got {shown(s)}")
        if s in out:
            raise InputError(name, line, f"run {shown(s)} appears twice in the ordering")
        out[s] = -float(pos)
    return out


def read_ordering(path: str | os.PathLike[str], key: str | None = None) -> tuple[dict[str, float], str]:
    """Return (system -> score, description of what was read)."""
    name = display_name(path)
    text = read_input_text(path, what="ordering of systems")
    lines = text.splitlines()
    content = [(i + 1, ln) for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith("#")]
    if not content:
        raise InputError(name, 0, "empty file, expected an ordering of systems")
    first = content[0][1].strip()
    if first.startswith("{"):
        try:
            head = json.loads(first)
        except (ValueError, RecursionError):  # a JSONDecodeError, or an integer of more than 4,300 digits
            head = None
        if isinstance(head, dict) and "measure" in head and "value" in head:
            return _read_eval_table(name, content, key, "jsonl")
        return _read_aggregate(name, content, key)
    for sep in ("\t", ","):
        cols = [c.strip() for c in first.split(sep)]
        if {"measure", "value", "qid"} <= set(cols) and ("run" in cols or "runi" in cols):
            return _read_eval_table(name, content, key, sep)
    if key:
        raise UsageError(f"{name}: a key ({shown(key)}) is only meaningful for pref_aggregate JSON lines")
    return _read_text(name, content)


def _read_text(name: str, content: list) -> tuple[dict[str, float], str]:
    """``system score`` lines (an optional header first) or ``system`` lines, best first."""
    scores: dict[str, float] = {}
    ncols = None
    for k, (line, ln) in enumerate(content):
        fields = ln.split()
        if len(fields) > 2:
            raise InputError(name, line, f"expected 'system score' or 'system', got {len(fields)} fields")
        if k == 0 and len(fields) == 2 and not _is_float(fields[1]):
            continue  # header
        if ncols is None:
            ncols = len(fields)
        elif len(fields) != ncols:
            raise InputError(name, line, f"expected {ncols} field(s) like the lines above, got {len(fields)}")
        sysname = fields[0]
        if sysname in scores:
            raise InputError(name, line, f"system {shown(sysname)} appears twice")
        scores[sysname] = _score(fields[1], name, line) if ncols == 2 else -float(len(scores))
    if not scores:
        raise InputError(name, 0, "no systems found")
    return scores, ("system score" if ncols == 2 else "list of systems, best first")


def _is_float(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _score(text: str, name: str, line: int) -> float:
    try:
        v = float(text)
    except ValueError:
        raise InputError(name, line, f"expected a number as score, got {shown(text)}") from None
    if v != v:
        raise InputError(name, line, "expected a number as score, got NaN")
    return v


def _read_aggregate(name: str, content: list, key: str | None) -> tuple[dict[str, float], str]:
    """The ordering ``key`` of the first summary line of ``pref_aggregate`` JSON lines."""
    line, obj, n_summary = _summary_line(name, content)
    lists: dict[str, list] = {}
    for m, v in obj.items():
        if m in ("qid", "sample") or not isinstance(v, dict):
            continue
        for lk, lv in v.items():
            if isinstance(lv, list):
                lists[f"{m}:{lk}"] = lv
    if not lists:
        raise InputError(name, line, "the summary line holds no ordering (expected e.g. {\"ndcg\": {\"mean\": [...]}})")
    chosen = _choose_list(name, lists, key)
    desc = f"pref_aggregate {chosen}" + (f", sample {obj.get('sample')}" if n_summary > 1 else "")
    return _from_list(lists[chosen], name, line), desc


def _summary_line(name: str, content: list) -> tuple[int, dict, int]:
    """(line number, object) of the first ``"qid": "all"`` line, and how many such lines there are."""
    summary = None
    n_summary = 0
    for line, ln in content:
        obj = json_object(ln, name, line)
        if str(obj.get("qid")) == "all":
            n_summary += 1
            if summary is None:
                summary = (line, obj)
    if summary is None:
        raise InputError(name, 0, "no summary line (\"qid\": \"all\") found; expected pref_aggregate output")
    return summary[0], summary[1], n_summary


def _choose_list(name: str, lists: dict[str, list], key: str | None) -> str:
    """``MEASURE:LIST`` picked by ``key`` (``MEASURE:LIST``, or ``MEASURE`` if it has one list;
    None if the file holds one list)."""
    if key is None:
        if len(lists) != 1:
            raise UsageError(f"{name} holds several orderings ({', '.join(lists)}); choose one with "
                             f"{'--key-a/--key-b' if command_running() else 'key_a/key_b'}")
        return next(iter(lists))
    if key in lists:
        return key
    cands = [k for k in lists if k.split(":", 1)[0] == key]
    if len(cands) != 1:
        raise UsageError(f"{name}: no single ordering named {shown(key)} (available: {', '.join(lists)})")
    return cands[0]


def _name_field(r: dict, key: str, name: str, line: int) -> str:
    """A run or measure name of a table row: a string, or a JSON integer read as its digits (as every JSON id);
    missing, ``null``, ``true``, ``1.5``, a list or an object is ``name:line`` (never the run ``'None'``)."""
    v = r.get(key)
    if isinstance(v, str) or (isinstance(v, int) and not isinstance(v, bool)):
        return str(v)
    got = "nothing" if key not in r else json.dumps(v)
    raise InputError(name, line, f"expected a string as {key}, got {got}")


_TEXT_MEASURES = ("runid", "relstring")
"""trec_eval's measures whose value is text: a long table holds them beside the numbers; no ordering is by them."""


def _read_eval_table(name: str, content: list, key: str | None, layout: str) -> tuple[dict[str, float], str]:
    """The per-run summary rows of a ``zelo_eval -o tsv|csv|jsonl`` table (see the module docstring)."""
    import csv

    rows: list[tuple[int, dict]] = []
    if layout == "jsonl":
        for line, ln in content:
            rows.append((line, json_object(ln, name, line)))
    else:
        header = next(csv.reader([content[0][1]], delimiter=layout))
        for line, ln in content[1:]:
            vals = next(csv.reader([ln], delimiter=layout))
            if len(vals) != len(header):
                raise InputError(name, line, f"expected {len(header)} fields like the header, got {len(vals)}")
            rows.append((line, dict(zip(header, vals, strict=True))))
    per_measure: dict[str, dict[str, float]] = {}
    for line, r in rows:
        if str(r.get("qid")) != "all" or r.get("runj") not in (None, ""):
            continue  # per-query rows and preferences between two runs
        run = _name_field(r, "runi" if "runi" in r and "run" not in r else "run", name, line)
        measure = _name_field(r, "measure", name, line)
        if measure in _TEXT_MEASURES:  # zelo_eval's -M official / all_trec tables hold them (was refused)
            continue
        value = r.get("value")
        try:
            if isinstance(value, bool):  # float(true) is 1.0
                raise TypeError
            v = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            raise InputError(name, line, f"expected a number as value, got {shown(value)}") from None
        scores = per_measure.setdefault(measure, {})
        if run in scores:
            raise InputError(name, line, f"run {shown(run)} appears twice for measure {shown(measure)}")
        scores[run] = v
    if not per_measure:
        raise InputError(name, 0, "no summary rows (qid 'all') of single runs; write the table "
                         + ("without -n" if command_running() else "with evaluate_runs(..., summary=True)"))
    if key is None:
        if len(per_measure) != 1:
            raise UsageError(f"{name} holds several measures ({', '.join(per_measure)}); "
                             f"choose one with {'--key-a/--key-b' if command_running() else 'key_a/key_b'}")
        key = next(iter(per_measure))
    if key not in per_measure:
        raise UsageError(f"{name}: no measure {shown(key)} (available: {', '.join(per_measure)})")
    return per_measure[key], f"zelo_eval table, {key}"
