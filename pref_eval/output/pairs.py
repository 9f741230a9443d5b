"""What ``zelo_pairs`` writes: pairs to judge (JSON lines or request files), a tournament's status and result.

A request file starts with a comment line naming it (``# zelo_pairs requests ...``), so that no
judgment reader takes it for judgments (:data:`pref_eval.io.judgments.REQUEST_MARK`).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TextIO

from .zelo_scores import fmt_float
from .json_text import json_dumps


def request_header(layout: str) -> str:
    """First line of a request file (:func:`pref_eval.io.judgments.request_header`, which the readers check)."""
    from ..io.judgments import request_header as header

    return header(layout)


def write_cycle_pairs(out: TextIO, pairs: list[tuple[str, str, str]], fmt: str = "jsonl") -> None:
    """``zelo_pairs cycles``: ``{"qid", "doc_a", "doc_b"}`` lines (``jsonl``), or a ``qid docA docB`` request
    file (``tsv``, with its header when there is a pair)."""
    if fmt == "tsv" and pairs:
        out.write(request_header("qid<TAB>docA<TAB>docB"))
    for q, a, b in pairs:
        if fmt == "jsonl":
            out.write(json_dumps({"qid": q, "doc_a": a, "doc_b": b}) + "\n")
        else:
            out.write(f"{q}\t{a}\t{b}\n")


def write_requests(out: TextIO, requests: list[tuple[str, str, str]], reps: list[int] | None = None) -> None:
    """``zelo_pairs next``: ``topic docA docB`` lines after the header; nothing at all without a request
    (scripts test for an empty file once the tournament is over). ``reps``: each request's repetition
    (:func:`pref_eval.zelo.pair_state.repetitions`); when one is not 0 (the batch asks a pair again) every line gets
    it as a fourth column, ``repeat`` (the header says so), which zelo_judge asks as that repetition (since
    session 29)."""
    from ..io.texts import REPEAT_LAYOUT

    again = reps is not None and any(reps)
    if requests:
        out.write(request_header(REPEAT_LAYOUT if again else "topic docA docB"))
    for k, (tp, a, b) in enumerate(requests):
        out.write(f"{tp} {a} {b} {reps[k]}\n" if again and reps is not None else f"{tp} {a} {b}\n")


def write_status(out: TextIO, rows: list[tuple], comparisons: int, ignored: int) -> None:
    """``zelo_pairs status``: per topic ``topic stage pool judged pairs outstanding stages_left``, then a
    ``#`` total line."""
    out.write("topic\tstage\tpool\tjudged\tpairs\toutstanding\tstages_left\n")
    for r in rows:
        out.write("\t".join(str(x) for x in r) + "\n")
    left = sum(r[5] for r in rows)
    done = sum(r[1] == "done" for r in rows)
    out.write(f"# {len(rows)} topics, {done} done; {left} pairs outstanding; "
              f"{comparisons} judgments used, {ignored} ignored\n")


def write_result(out: TextIO, topics: dict[str, Any]) -> None:
    """``zelo_pairs result``: per finished topic its top set, ``topic docno wins``, most wins first."""
    for tp, st in topics.items():
        if st["phase"] == "done":
            for d, v in sorted((st["result"] or {}).items(), key=lambda x: -x[1]):
                out.write(f"{tp} {d} {fmt_float(v)}\n")


def write_prefs_qrels(out: TextIO, rows: Iterable[tuple[str, str, float]]) -> None:
    """``zelo_pairs result --qrels``: prefj-style preference qrels ``topic Q0 docno value``."""
    for tp, d, v in rows:
        out.write(f"{tp} Q0 {d} {fmt_float(v)}\n")
