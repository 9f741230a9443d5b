"""``zelo_trec``'s job: trec_eval 10 semantics end to end, as a function.

``run_trec(options, out, log)`` reads the relevance file in the ``-R``
format, the run, builds the collection, evaluates and prints trec_eval's
text. The rel-info formats are ``REL_FORMATS``: ``qrels`` is handled here;
``prefs``, ``qrels_prefs`` and ``qrels_jg`` by :mod:`pref_eval.trec_eval.prefs`
(imported when used).
"""
from __future__ import annotations

from dataclasses import field
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from ..records import record
from ..log import Log
from ..errors import UsageError

if TYPE_CHECKING:
    from ..collection import Ranked
    from ..measures import MeasureRequest

REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")


@record
class TrecOptions:
    """trec_eval's command-line options (see ``zelo_trec --help``)."""

    rel_file: str
    run_file: str
    measures: list[str] = field(default_factory=list)
    per_query: bool = False
    complete: bool = False
    level: int = 1
    summary: bool = True
    judged_only: bool = False
    num_docs_in_coll: int = 0
    depth: int | None = None
    rel_format: str = "qrels"
    results_format: str = "trec_results"
    zscores: str | None = None
    trec9: bool = False


def run_trec(opts: TrecOptions, out: TextIO, log: Log) -> int:
    """Evaluate as trec_eval does and write its text to ``out``; returns 0."""
    if opts.results_format != "trec_results":
        raise UsageError(f"unsupported results format {opts.results_format!r} (only trec_results)")
    if opts.rel_format not in REL_FORMATS:
        raise UsageError(f"unknown rel_info format {opts.rel_format!r}; expected one of {', '.join(REL_FORMATS)}")
    if opts.rel_format == "qrels":
        return evaluate_qrels(opts, out, log)
    from . import prefs

    func = {"prefs": prefs.evaluate_prefs, "qrels_prefs": prefs.evaluate_qrels_prefs,
            "qrels_jg": prefs.evaluate_qrels_jg}[opts.rel_format]
    return func(opts, out, log)


def evaluate_qrels(opts: TrecOptions, out: TextIO, log: Log) -> int:
    """The ordinary path: ``-R qrels``."""
    from ..collection import build_collection, index_qrels
    from ..io.fastparse import release_memory
    from ..io.qrels import read_qrels
    from ..io.runs import read_run
    from ..measures import parse_trec_measures
    from ..measures.base import needs_subtopics

    requests = parse_trec_measures(opts.measures or ["official"], trec9=opts.trec9)
    # the qrels indexed before the run is read, and only the index kept: the judgments' columns are not
    # held through reading and ranking the run (their peak)
    qi = index_qrels(read_qrels(opts.rel_file, subtopics=needs_subtopics(requests)))
    release_memory()  # the readers' freed temporaries back to the OS before the next peak (~1 ms)
    run = read_run(opts.run_file)
    release_memory()
    col = build_collection(qi, [run], complete=opts.complete, depth=opts.depth,
                           judged_only=opts.judged_only, trec9=opts.trec9)
    ranked = col.runs[0]
    if ranked.nq == 0:  # before the missing-topics warning: one line, and -c would not be the fix
        from ..collection import no_common_topics

        raise no_common_topics(opts.run_file, run.qid_values, opts.rel_file, qi.qids)
    nmiss = len(col.missing[0])
    if nmiss and not opts.complete:
        log.warn(f"{opts.run_file}: run lacks {nmiss} of {col.qrels.nq} qrels topics; "
                 "averaging over the topics in both (use -c to count them as zero)")
    return write_evaluation(opts, out, ranked, requests)


def write_evaluation(opts: TrecOptions, out: TextIO, ranked: Ranked, requests: Sequence[MeasureRequest],
                     extra: dict | None = None) -> int:
    """Evaluate ``requests`` on ``ranked`` and print trec_eval's text (``-Z`` applied)."""
    from ..engine import evaluate_ranked
    from ..measures import EvalContext
    from ..output.trec import write_trec

    ctx = EvalContext(level=opts.level, trec9=opts.trec9, complete=opts.complete,
                      num_docs_in_coll=opts.num_docs_in_coll, extra=extra or {})
    res = evaluate_ranked(ranked, requests, ctx)
    zfun = None
    if opts.zscores:
        from ..io.zscores import read_zscores
        from .zscores import zscore_function

        zfun = zscore_function(read_zscores(opts.zscores))
    write_trec(out, res, per_query=opts.per_query, summary=opts.summary,
               print_missing=not opts.trec9, zscore=zfun)
    return 0
