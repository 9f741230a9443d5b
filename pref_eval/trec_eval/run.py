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
from ..errors import UsageError, shown

if TYPE_CHECKING:
    from ..collection import Ranked
    from ..engine import RunResult
    from ..io.runs import Run
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
    debug_query: str | None = None  # ``-D N.qid``: evaluate that topic only (trec_eval's debug_query)


def run_trec(opts: TrecOptions, out: TextIO, log: Log) -> int:
    """Evaluate as trec_eval does and write its text to ``out``; returns 0."""
    if opts.results_format != "trec_results":
        raise UsageError(f"unsupported results format {shown(opts.results_format)} (only trec_results)")
    if opts.rel_format not in REL_FORMATS:
        raise UsageError(f"unknown rel_info format {shown(opts.rel_format)}; expected one of {', '.join(REL_FORMATS)}")
    if opts.rel_format == "qrels":
        return evaluate_qrels(opts, out, log)
    from . import prefs

    func = {"prefs": prefs.evaluate_prefs, "qrels_prefs": prefs.evaluate_qrels_prefs,
            "qrels_jg": prefs.evaluate_qrels_jg}[opts.rel_format]
    return func(opts, out, log)


def evaluate_qrels(opts: TrecOptions, out: TextIO, log: Log) -> int:
    """The ordinary path: ``-R qrels``."""
    from ..collection import build_collection, index_qrels, unknown_topics, unknown_topics_warning
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
    run = debug_run(opts, read_run(opts.run_file))
    release_memory()
    col = build_collection(qi, [run], complete=opts.complete, depth=opts.depth,
                           judged_only=opts.judged_only, trec9=opts.trec9)
    ranked = col.runs[0]
    check_debug_query(opts, ranked)
    if ranked.nq == 0:  # before the missing-topics warning: one line, and -c would not be the fix
        from ..collection import no_common_topics

        raise no_common_topics(opts.run_file, run.qid_values, opts.rel_file, qi.qids)
    nmiss = len(col.missing[0])
    if nmiss and not opts.complete and opts.debug_query is None:
        log.warn(f"{opts.run_file}: run lacks {nmiss} of {col.qrels.nq} qrels topics; "
                 "averaging over the topics in both (use -c to count them as zero)")
    if opts.debug_query is None and (unknown := unknown_topics(run.qid_values, qi.qids)):
        # trec_eval 10 stops without -c and drops them silently with -c: a typo'd topic id must not pass unseen
        log.warn(unknown_topics_warning(opts.run_file, opts.rel_file, unknown))
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
    if opts.debug_query is not None and opts.complete:
        res = skip_topics(res, opts.debug_query)
    zfun = None
    if opts.zscores:
        from ..io.zscores import read_zscores
        from .zscores import zscore_function

        zfun = zscore_function(read_zscores(opts.zscores))
    write_trec(out, res, per_query=opts.per_query, summary=opts.summary,
               print_missing=not opts.trec9, zscore=zfun, only_qid=opts.debug_query)
    return 0


def skip_topics(res: RunResult, qid: str) -> RunResult:
    """``res`` with every topic but ``qid`` skipped as trec_eval skips it under ``-c -D N.qid``: it adds
    nothing to the sums (0, and ln 1e-5 to a geometric mean's), which still divide by every rel-info
    topic. A topic the run lacks is otherwise an empty ranking, whose value is not always 0 (``ideal_dcg``,
    ``num_rel``); ``num_rel``'s summary under ``-c`` is still every topic's count (m_num_rel.c)."""
    from dataclasses import replace

    import numpy as np

    from ..engine import summarize

    skip = np.array([q != qid for q in res.qids], dtype=bool)
    cols = []
    for col in res.columns:
        spec = col.request.spec if col.request is not None else None
        if col.value_type == "str" or not skip.any():
            cols.append(col)
            continue
        vals = np.array(col.values, copy=True)
        vals[skip] = 0
        summary = col.summary
        if summary is not None and spec is not None and spec.summarize is None and spec.aggregate != "none":
            summary = summarize(np.asarray(vals, dtype=np.float64), spec.aggregate, len(vals))
        cols.append(replace(col, values=vals, summary=summary))
    return replace(res, columns=cols)


def check_debug_query(opts: TrecOptions, ranked: Ranked) -> None:
    """Under ``-D N.qid``: the topic must be evaluated (in the rel-info file and, without ``-c``, the run),
    else one line, where trec_eval stops with "No queries with both results and relevance info" (exit 7)
    or, without ``-c``, "result qid 'qid' not found in qrels" (exit 4)."""
    from ..errors import EvaluationError

    q = opts.debug_query
    if q is not None and q not in ranked.qid_strings():
        where = opts.rel_file if opts.complete else f"both {opts.rel_file} and {opts.run_file}"
        raise EvaluationError(f"-D: topic {shown(q)}, the only one evaluated, is not in {where}: "
                              "no queries with both results and relevance info")


def debug_run(opts: TrecOptions, run: Run) -> Run:
    """``run`` as trec_eval reads it under ``-D N.qid`` (``epi.debug_query``): every other topic is skipped.

    trec_eval skips each rel-info topic but ``qid`` before looking for its ranking, so without ``-c``
    only that topic is evaluated (none: "No queries with both results and relevance info"); with
    ``-c`` the averages still divide by the number of rel-info topics (``num_q`` is that number), the
    skipped topics adding nothing -- as topics the run lacks do, so the run is cut to ``qid`` and
    ``-c`` evaluates the others as missing; their per-query lines are not printed
    (:func:`write_evaluation`)."""
    if opts.debug_query is None:
        return run
    import numpy as np

    from ..io.runs import Run

    qid = run.qid
    keep = qid == opts.debug_query.encode("utf-8", "surrogateescape")
    lines = run.line_numbers if run.line_numbers is not None else np.arange(1, len(qid) + 1, dtype=np.int64)
    return Run.from_arrays(qid[keep], run.docno[keep], run.score[keep], lines[keep], run.tag, run.name, run.source,
                           run.tags)

