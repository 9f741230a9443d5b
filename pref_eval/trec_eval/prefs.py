"""``zelo_trec -R prefs | qrels_prefs | qrels_jg``: trec_eval 10's preference
and judgment-group rel-info formats, end to end.

Each ``evaluate_*`` reads the rel-info file and the run, decides the query
set exactly as ``-R qrels`` does (topics in both files; every rel-info
topic with ``-c``), computes the format's per-query inputs once
(:func:`pref_eval.measures.prefs_counts.compute_pref_counts` or
:func:`pref_eval.measures.jg.judgment_groups`), hands them to the measures
through ``EvalContext.extra`` and prints trec_eval's text.

Only measures defined for the format are accepted (``runid``, ``num_q`` and
``prefs_*`` for the preference formats; ``runid``, ``num_q`` and
``*_avgjg`` for ``qrels_jg``); trec_eval aborts on the others.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

import numpy as np

from ..log import Log
from ..errors import EvaluationError, UsageError, shown

if TYPE_CHECKING:
    from .run import TrecOptions

COMMON = ("runid", "num_q")


def _requests(opts, default: str, allowed) -> list:
    from ..measures import parse_trec_measures

    reqs = parse_trec_measures(opts.measures or [default], trec9=getattr(opts, "trec9", False))
    bad = [r.spec.name for r in reqs if r.spec.name not in COMMON and not allowed(r.spec.name)]
    if bad:
        raise UsageError(f"measure {shown(bad[0])} is not defined for -R {opts.rel_format} "
                         f"(use -m {default} or its members)")
    return reqs


def _ranked(opts, qid: np.ndarray, docno: np.ndarray, run, log: Log):
    """The query set and run ranking, from the distinct (qid, docno) of the rel-info file."""
    from ..collection import build_collection
    from ..io.qrels import Qrels

    if len(qid) == 0:
        raise EvaluationError(f"{opts.rel_file}: no judgments")
    order = np.lexsort((docno, qid))
    q, d = qid[order], docno[order]
    keep = np.concatenate([[True], (q[1:] != q[:-1]) | (d[1:] != d[:-1])])
    n = int(keep.sum())
    qr = Qrels(qid=q[keep], iter=np.full(n, b"0", dtype="S1"), docno=d[keep],
               rel=np.zeros(n, dtype=np.int64), line=np.arange(1, n + 1, dtype=np.int64),
               source=opts.rel_file)
    col = build_collection(qr, [run], complete=opts.complete, depth=opts.depth, trec9=opts.trec9)
    ranked = col.runs[0]
    from .run import check_debug_query

    check_debug_query(opts, ranked)
    if ranked.nq == 0:  # before the missing-topics warning: one line, and -c would not be the fix
        from ..collection import no_common_topics

        raise no_common_topics(opts.run_file, run.qid_values, opts.rel_file, q[keep])
    nmiss = len(col.missing[0])
    if nmiss and not opts.complete and getattr(opts, "debug_query", None) is None:
        log.warn(f"{opts.run_file}: run lacks {nmiss} of {col.qrels.nq} rel-info topics; "
                 "averaging over the topics in both (use -c to count them)")
    return ranked


def _write(opts, out: TextIO, ranked, requests, extra: dict) -> int:
    from .run import write_evaluation

    return write_evaluation(opts, out, ranked, requests, extra)


def _evaluate_pref_format(opts, out: TextIO, log: Log, prefs) -> int:
    from ..io.runs import read_run
    from ..measures.prefs_counts import compute_pref_counts

    from .run import debug_run

    requests = _requests(opts, "all_prefs", lambda n: n.startswith("prefs_"))
    run = debug_run(opts, read_run(opts.run_file))
    ranked = _ranked(opts, prefs.qid, prefs.docno, run, log)
    pc = compute_pref_counts(prefs, run, ranked.qids, opts.depth)
    return _write(opts, out, ranked, requests, {"prefs": pc})


def evaluate_prefs(opts: TrecOptions, out: TextIO, log: Log) -> int:
    """``-R prefs``: ``qid jg jsg docno rel_level`` preference judgments."""
    from ..io.prefs import read_prefs

    return _evaluate_pref_format(opts, out, log, read_prefs(opts.rel_file))


def evaluate_qrels_prefs(opts: TrecOptions, out: TextIO, log: Log) -> int:
    """``-R qrels_prefs``: a qrels file read as preferences (jg = iter column)."""
    from ..io.prefs import read_qrels_prefs

    return _evaluate_pref_format(opts, out, log, read_qrels_prefs(opts.rel_file))


def evaluate_qrels_jg(opts: TrecOptions, out: TextIO, log: Log) -> int:
    """``-R qrels_jg``: qrels with judgment groups in the iter column."""
    from ..io.prefs import read_qrels_jg
    from ..io.runs import read_run
    from ..measures.jg import judgment_groups
    from .run import debug_run

    requests = _requests(opts, "qrels_jg", lambda n: n.endswith("_avgjg"))
    qj = read_qrels_jg(opts.rel_file)
    run = debug_run(opts, read_run(opts.run_file))
    ranked = _ranked(opts, qj.qid, qj.docno, run, log)
    jg = judgment_groups(qj, ranked, judged_only=opts.judged_only)
    return _write(opts, out, ranked, requests, {"qrels_jg": jg})
