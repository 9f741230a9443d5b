"""Measures as ir-measures' calls: :func:`evaluate`, :func:`iter_calc`, :func:`calc_aggregate`,
:func:`evaluator` (:class:`Evaluator`), and the unit of work they share with ``zelo_eval``
(:func:`evaluate_run_group`).
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import UsageError, command_running, option_name, shown
from ._inputs import _flat_list, _load_qrels, _load_runs, _ranx_object, _run_from_data

if TYPE_CHECKING:
    import pandas as pd

    from ..measures import MeasureRequest


def _measure_names(measures: Any) -> list[str]:
    """Names as strings: ir-measures measure objects are taken by their ``str`` (``nDCG@10``).

    ``measures`` may be a generator (read once: callers keep the list this returns).
    """
    import numbers

    data = _data_not_measures(measures)
    if data is None and isinstance(measures, Mapping) and any(isinstance(v, Mapping) for v in measures.values()):
        data = "a {qid: {docno: value}} mapping"
    if data is not None:
        raise UsageError(f"measures: got {data} (qrels or a run) where the measure names go; "
                         "the order is evaluate(qrels, runs, measures) (ranx.evaluate's order) and, as in "
                         "ir-measures, evaluator(measures, qrels), iter_calc / calc_aggregate(measures, qrels, run) "
                         "(pytrec_eval.RelevanceEvaluator(qrels, measures) takes the qrels first)")
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    names = _flat_list(measures)  # read once: measures may be a generator
    data = next((d for d in map(_data_not_measures, names) if d is not None), None)
    if data is not None:  # evaluate(measures, qrels, runs) with runs files: the list of run paths is here
        raise UsageError(f"measures: got {data} (a run or qrels) among the measure names; the order is "
                         "evaluate(qrels, runs, measures) (ranx.evaluate's order) and, as in ir-measures, "
                         "evaluator(measures, qrels), iter_calc / calc_aggregate(measures, qrels, run)")
    ks = [m for m in names if isinstance(m, numbers.Integral) and not isinstance(m, bool)]
    if ks:
        cut = ",".join(str(int(k)) for k in ks)
        raise UsageError(f"measures: got the number {ks[0]}, not a measure name; cutoffs (BEIR's k_values) go with "
                         f"a name: 'NDCG@{ks[0]}', 'P@{ks[0]}', or trec_eval's 'ndcg_cut.{cut}', 'map_cut.{cut}'")
    return [m if isinstance(m, str) else str(m) for m in names]


def _data_not_measures(measures: Any) -> str | None:
    """What ``measures`` is when it is data (a path, a DataFrame, a ``ranx`` object), else None.

    A string is a path only when it names an existing file and is no measure name (a file called
    ``map`` in the working directory does not hide the measure ``map``).
    """
    if _ranx_object(measures):
        return f"a {type(measures).__module__.split('.')[0]}.{type(measures).__name__}"
    if hasattr(measures, "columns"):
        return "a DataFrame"
    if isinstance(measures, os.PathLike):
        return f"the path {shown(os.fspath(measures))}"
    if isinstance(measures, str) and os.path.isfile(measures):
        from ..measures import parse_measures

        try:
            parse_measures([measures])
        except UsageError:
            return f"the file {shown(measures)}"
    return None


def evaluate_run_group(piece: tuple, progress: Any = None) -> list:
    """Metric evaluation of some runs: ``[(result, topics missing, qrels topics, topics evaluated)]`` per run.

    ``piece`` = (:class:`~pref_eval.io.qrels.Qrels`, runs (paths or
    :class:`~pref_eval.io.runs.Run`), run ids, measure names, complete, level,
    depth[, judged_only, trec9, extra inputs, keep_going]). With ``keep_going`` a run that cannot be read
    or evaluated (an :class:`~pref_eval.errors.InputError` or
    :class:`~pref_eval.errors.EvaluationError`) gives ``(error, 0, qrels topics, 0)`` in its place
    instead of raising (``zelo_eval --keep-going``). Each run is ranked against the
    qrels on its own, so groups of runs can be evaluated in other processes
    (``--jobs``) or on dask workers without changing a result: the unit of
    work of :func:`pref_eval.parallel.ordered_map` for ``zelo_eval`` and
    :func:`evaluate`. The runs are read, ranked and evaluated one at a time and
    a result keeps no ranking (``RunResult.ranked`` is None), so memory stays
    that of the largest run whatever the number of runs. ``progress(k, n)`` is
    called before run ``k`` of ``n`` and once at the end.
    """
    from dataclasses import replace

    from ..collection import build_collection, index_qrels, no_common_topics, unknown_topics
    from ..engine import evaluate_ranked
    from ..errors import EvaluationError, InputError
    from ..io.runs import read_run
    from ..measures import EvalContext, parse_measures

    q, runs, ids, names, complete, level, depth, *more = piece
    judged_only, trec9, extra, keep_going = (list(more) + [False, False, None, False][len(more):])[:4]
    ctx = EvalContext(level=level, trec9=trec9, complete=complete, extra=extra or {})
    requests = parse_measures(list(names))
    qi = index_qrels(q)
    out: list[tuple] = []
    for k, (r, n) in enumerate(zip(runs, ids, strict=True)):
        if progress is not None:
            progress(k, len(runs))
        try:
            run = read_run(r, name=n) if isinstance(r, (str, os.PathLike)) else r
            col = build_collection(qi, [run], complete=complete, depth=depth, judged_only=judged_only, trec9=trec9)
            [ranked], [miss] = col.runs, col.missing
            del col
            if ranked.nq == 0:  # raised here, before any missing-topics warning of the callers: one line
                raise no_common_topics(str(r) if isinstance(r, (str, os.PathLike)) else run.source, run.qid_values,
                                       q.source, qi.qids)
        except (InputError, EvaluationError) as err:
            if not keep_going:
                raise
            out.append((err, 0, qi.nq, 0))
            continue
        unknown = unknown_topics(run.qid_values, qi.qids)
        res = replace(evaluate_ranked(ranked, requests, ctx), ranked=None, unknown_topics=unknown)
        if run.empty_topics:  # a dict's {qid: {}}: scored as under complete, but listed per query as a topic of
            import numpy as np  # the run (with trec9 too, where complete's missing topics are not): pytrec_eval's

            res = replace(res, present=res.present | np.isin(ranked.qids, np.array(run.empty_topics, dtype="S")))
        del run
        out.append((res, len(miss), qi.nq, ranked.nq))
        del ranked
    if progress is not None:
        progress(len(runs), len(runs))
    return out


def evaluate(
    qrels: Any,
    runs: Any,
    measures: Any = ("official",),
    *,
    complete: bool = False,
    level: int = 1,
    depth: int | None = None,
    judged_only: bool = False,
    trec9: bool = False,
    summary: bool = False,
    judgments: Any = None,
    judgments_format: str | None = None,
    best: Any = None,
    jobs: int = 1,
    **unknown: Any,
) -> pd.DataFrame:
    """Evaluate ``runs`` against ``qrels`` → long :class:`pandas.DataFrame`.

    Columns ``run, qid, measure, value`` with one row per (run, query,
    measure column); with ``summary=True`` also the ``all`` rows. Measure
    names in trec_eval or ir-measures syntax (``"ndcg_cut.10"``,
    ``"nDCG@10"``). Options as ``zelo_eval``: ``complete`` (-c), ``level``
    (-l), ``depth`` (-M), ``judged_only`` (-J), ``trec9`` (--trec-eval-9).
    Run names: for files the rule of every command (:mod:`pref_eval.io.run_ids`: the shortest
    unique path suffix, ``bm25.run``), the mapping keys, or ``run``.
    ``judgments``: a pairwise judgment file (any format ``zelo_fit`` reads;
    ``judgments_format`` as its ``--format``) or a
    :class:`~pref_eval.zelo.judgments.Judgments`, for the measures computed
    from judgments (``PGC``), as ``zelo_eval -P``. ``best``: a best-item set
    (qrels of the best items, or a zELO score file: its top documents) for
    ``BestRR`` / ``BestSuccess@k``, as ``zelo_eval -B``. ``jobs``: evaluate
    groups of runs in that many processes (the same result). Another keyword raises
    :class:`~pref_eval.errors.UsageError` (naming ours for pytrec_eval's and BEIR's keywords). Each measure's
    formula and paper are its registry entry's (``docs/measures.md``; trec_eval 10's definitions, ir-measures'
    names: MacAvaney et al., ECIR 2022).
    """
    from ._inputs import _check_flags

    _calc_options(unknown, "evaluate", (*_CALC_OPTIONS[:5], "summary", *_CALC_OPTIONS[5:]))
    _check_flags(complete=complete, judged_only=judged_only, trec9=trec9, summary=summary)
    from ..io.frames import frame
    from ..output.table import HEADER

    rows = _evaluate_rows(qrels, runs, measures, complete=complete, level=level, depth=depth,
                          judged_only=judged_only, trec9=trec9, summary=summary, judgments=judgments,
                          judgments_format=judgments_format, best=best, jobs=jobs)
    return frame(rows, list(HEADER))


def _evaluate_rows(qrels: Any, runs: Any, measures: Any = ("official",), *, complete: bool = False, level: int = 1,
                   depth: int | None = None, judged_only: bool = False, trec9: bool = False, summary: bool = False,
                   judgments: Any = None, judgments_format: str | None = None, best: Any = None,
                   jobs: int = 1, log: Any = None, warn_missing: bool = True, warn_topic_all: bool = True,
                   skipped: list[str] | None = None) -> list:
    """:func:`evaluate`'s rows (run, qid, measure, value), without pandas.

    A run lacking qrels topics (without ``complete``) is warned about on ``log`` (a command's
    :class:`~pref_eval.log.Log`), or with :func:`warnings.warn` at the user's line when ``log`` is None;
    not at all with ``warn_missing=False`` (a caller that says it otherwise). A qrels topic named ``all``
    is warned about the same way (``warn_topic_all=False``: a caller that refuses it). With a list
    ``skipped`` (``zelo_compare --keep-going``; ``log`` needed) a run that cannot be evaluated is named by
    ``log.error`` and left out, its name appended to ``skipped``.
    """
    from ..measures import parse_measures
    from ..measures.base import needs_subtopics
    from ..output.table import long_rows

    _check_options(level=level, depth=depth, jobs=jobs)  # before any input is read
    mnames = _measure_names(measures)  # once: a generator of measures is read once
    from ._score_rows import _is_score_file, _refuse_unread_inputs, _score_file_rows

    if _is_score_file(qrels):  # zbench's measures against zelo_fit's TSV / zbench's JSON lines (as zelo_eval -R)
        return _score_file_rows(qrels, runs, mnames, summary=summary, depth=depth, log=log, refused=dict(
            complete=complete, level=level != 1, judged_only=judged_only, trec9=trec9, judgments=judgments is not None,
            best=best is not None, jobs=jobs > 1, keep_going=skipped is not None))
    _refuse_unread_inputs(qrels, runs, mnames)
    requests = parse_measures(mnames)
    q = _load_qrels(qrels, subtopics=needs_subtopics(requests))
    rs = _load_runs(runs)
    names = [r.name for r in rs]
    if len(set(names)) != len(names):
        raise UsageError(f"two runs share a name: {sorted(n for n in set(names) if names.count(n) > 1)}")
    extra = extra_inputs(requests, judgments=judgments, judgments_format=judgments_format, best=best)
    if jobs > 1 and len(rs) > 1:
        from ..parallel import ordered_map, split_even

        pieces = [(q, rs[a:b], names[a:b], mnames, complete, level, depth, judged_only, trec9, extra,
                   skipped is not None) for a, b in split_even([len(r.docno) for r in rs], jobs)]
        got = [x for part in ordered_map(evaluate_run_group, pieces, jobs=jobs) for x in part]
    else:
        piece = (q, rs, names, mnames, complete, level, depth, judged_only, trec9, extra, skipped is not None)
        got = evaluate_run_group(piece)
    if skipped is not None:
        from ..errors import PrefEvalError

        for x, name in zip(got, names, strict=True):
            if isinstance(x[0], PrefEvalError):
                log.error(str(x[0]))
                skipped.append(name)
        names = [n for x, n in zip(got, names, strict=True) if not isinstance(x[0], PrefEvalError)]
        got = [x for x in got if not isinstance(x[0], PrefEvalError)]
    for (_, n_missing, nq_qrels, _), name in zip(got, names, strict=True):
        # nq == 0 (no topic in common) was raised by evaluate_run_group (as the commands: a mean over no topic
        # is no number; ir-measures: NaN or 0)
        if not (n_missing and warn_missing and not complete):
            continue
        if log is not None:
            log.warn(f"{name}: run lacks {n_missing} of {nq_qrels} qrels topics; averaging over the "
                     f"topics in both (use {option_name('complete=True', '-c')} to count them as zero)")
        else:  # the commands' warning, as a Python warning (ir-measures counts them as 0)
            import warnings

            from ..errors import PrefEvalWarning

            warnings.warn(f"{name}: run lacks {n_missing} of {nq_qrels} qrels topics; averaging over the topics in "
                          "both (complete=True counts them as zero, as ir-measures does)", PrefEvalWarning,
                          stacklevel=_caller_level())
    if log is not None:  # a command's: the runs' topics not in the qrels, never evaluated (as zelo_eval)
        from ..collection import unknown_topics_warnings

        for line in unknown_topics_warnings(q.source, names, [r.unknown_topics for r, *_ in got]):
            log.warn(line)
    import numpy as np

    if warn_topic_all and bool(np.any(np.asarray(q.qid) == b"all")):  # the qid of the summary rows, of compare's too
        msg = ("a qrels topic is named 'all': its rows read like the summary rows 'all' (pref_eval.compare "
               "takes them as the summary); rename the topic")
        if log is not None:
            log.warn(msg)
        else:
            import warnings

            from ..errors import PrefEvalWarning

            warnings.warn(msg, PrefEvalWarning, stacklevel=_caller_level())
    results = [x[0] for x in got]
    return list(long_rows(results, per_query=True, summary=summary, print_missing=not trec9))


def _caller_level() -> int:
    """``warnings.warn``'s ``stacklevel`` for the caller's caller that is outside pref_eval (the user's line)."""
    import sys

    level, frame = 1, sys._getframe(1)  # type: int, Any
    while frame is not None and str(frame.f_globals.get("__name__", "")).split(".")[0] == "pref_eval":
        frame, level = frame.f_back, level + 1
    return level


def _check_options(*, level: Any, depth: Any, jobs: Any) -> None:
    """The numeric options of :func:`evaluate` (``-l``, ``--depth``, ``--jobs``): integers in the ranges of
    ``zelo_eval``'s options, else UsageError."""
    from ._inputs import _check_int

    _check_int("level", level)
    _check_int("depth", depth, 1, optional=True)
    _check_int("jobs", jobs, 1)


def extra_inputs(requests: Sequence[MeasureRequest], *, judgments: Any = None, judgments_format: str | None = None,
                 best: Any = None) -> dict:
    """``EvalContext.extra`` for ``requests``: the judgment table and the best-item set when given.

    An input that no requested measure uses is refused (never ignored); a
    measure that needs one without it says so when it runs.
    """
    from ..measures.base import needs_input

    extra: dict = {}
    if best is not None:
        if not needs_input(requests, "best"):
            raise UsageError(f"a best-item set given ({option_name('best', '-B')}) but no requested measure uses it "
                             "(BestRR, BestSuccess@k)")
        from ..io.best_items import BestItems, read_best_items

        extra["best"] = best if isinstance(best, BestItems) else read_best_items(best)
    if judgments is not None:
        if not needs_input(requests, "judgments"):
            raise UsageError(f"pairwise judgments given ({option_name('judgments', '-P')}) but no requested measure "
                             "uses them (e.g. PGC)")
        from ..zelo.judgments import Judgments

        if isinstance(judgments, Judgments):
            extra["judgments"] = judgments
        else:
            from ..io.judgments import read_judgments

            extra["judgments"] = read_judgments(str(judgments), judgments_format)
    elif judgments_format is not None:
        raise UsageError("--judgments-format given without -P judgments" if command_running() else
                         "judgments_format given without judgments")
    return extra


class Metric(NamedTuple):
    """One per-query value, as ir-measures' ``Metric`` (``query_id, measure, value``)."""

    query_id: str
    measure: str
    value: float


_CALC_OPTIONS = ("complete", "level", "depth", "judged_only", "trec9", "judgments", "judgments_format", "best", "jobs")

_PEER_OPTIONS = {
    "relevance_level": "pytrec_eval's; here: level",
    "judged_docs_only_flag": "pytrec_eval's; here: judged_only",
    "k_values": "BEIR's; here: the cutoffs in the measure names, 'NDCG@10' or 'ndcg_cut.1,3,10'",
    "ignore_identical_ids": "BEIR's; here: none, drop a document whose id is its query's from the run first",
}
"""pytrec_eval's ``RelevanceEvaluator`` and BEIR's ``EvaluateRetrieval.evaluate`` keywords: what does their work
here (named in the refusal; docs/api.md, "Coming from pytrec_eval and BEIR")."""


def _calc_options(options: dict, where: str, known: tuple[str, ...] = _CALC_OPTIONS) -> None:
    """The keywords :func:`iter_calc`, :func:`calc_aggregate` and :func:`evaluator` take; another is a UsageError."""
    unknown = [k for k in options if k not in known]
    if unknown:
        from ..peer_names import api_hint, pyterrier_hint

        ranx = api_hint("evaluate", unknown[0], None if where == "evaluate" else known)
        peer = _PEER_OPTIONS.get(unknown[0]) or ranx or pyterrier_hint(where, unknown[0])
        raise UsageError(f"{where}: unknown option {shown(unknown[0])}" + (f" ({peer})" if peer else "")
                         + f" (expected one of: {', '.join(known)})")


def _one_run(run: Any) -> Any:
    """The one run of :func:`iter_calc` / :func:`calc_aggregate`, as a :class:`~pref_eval.io.runs.Run`.

    Read as one run (never as a ``{name: run}`` mapping or a list of runs, whose entries would
    otherwise be taken for queries); several runs are a UsageError pointing to :func:`evaluate`.
    """
    from ..io.runs import Run

    several = "evaluate several runs with pref_eval.evaluate or one at a time with an evaluator"
    if isinstance(run, Mapping) and not _ranx_object(run):
        first = next(iter(run.values()), None)
        if isinstance(first, (str, os.PathLike, Run)) or hasattr(first, "columns"):
            raise UsageError(f"expected one run, got a mapping of {len(run)} runs; {several}")
        return _run_from_data(run, "run")  # {qid: {docno: score}}; a value not a dict is an InputError
    if isinstance(run, Iterable) and not isinstance(run, (str, os.PathLike, Run, bytes, bytearray, memoryview)) \
            and not hasattr(run, "columns") and not _ranx_object(run):
        run = list(run)  # records (read once: a generator is consumed here)
        first = run[0] if run else None
        if isinstance(first, (str, os.PathLike, Run, Mapping)) or hasattr(first, "columns"):
            raise UsageError(f"expected one run, got a list of {len(run)} runs; {several}")
        return _run_from_data(run, "run")
    rs = _load_runs(run)
    if len(rs) != 1:
        raise UsageError(f"expected one run, got {len(rs)}; {several}")
    return rs[0]


class MeasureResults(dict):
    """``calc_aggregate``'s result: keys are the printed names (``"nDCG@10"``, ``"P_5"``); an ir-measures object finds
    its ``str`` (``res[nDCG@10]``) or its measure's other spelling (``MAP``, :mod:`pref_eval.measures.identity`)."""

    def _key(self, key: Any) -> str:
        if isinstance(key, str) or super().__contains__(str(key)):
            return key if isinstance(key, str) else str(key)
        from ..measures.identity import same_measure_key
        return same_measure_key(str(key), list(self))

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(self._key(key))

    def __contains__(self, key: object) -> bool:
        return super().__contains__(self._key(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(self._key(key), default)

    def __missing__(self, key: str) -> Any:
        """A name that is no key says which keys there are: a request such as ``recall`` or ``P.5,10`` gives
        trec_eval's columns (``recall_5``, ``P_10``), not a key of its own (was a bare ``KeyError: 'recall'``)."""
        base = key.split("@")[0].split("(")[0].split(".")[0]
        near = [k for k in self if k == key.replace(".", "_") or k.split("_")[0] == base or k.split("@")[0] == base]
        hint = (f"; the keys of {shown(base)} are "
                f"{', '.join(near[:12])}{' ...' if len(near) > 12 else ''}" if near else "")
        ranx = ("; ranx's recall (all retrieved) is 'ranx:recall'" if key.lower() == "recall" else "")
        raise KeyError(f"{shown(key)} is not a key of this result: keys are the printed names of the columns "
                       f"({', '.join(list(self)[:6])}{' ...' if len(self) > 6 else ''}){hint}{ranx}")


def iter_calc(measures: Any, qrels: Any, run: Any, **options: Any) -> Iterator[Metric]:
    """Per-query values of one run, as ``ir_measures.iter_calc(measures, qrels, run)``.

    ``measures`` as for :func:`evaluate` (names or ir-measures objects),
    ``qrels``/``run`` in any shape :func:`evaluate` takes for one run; ``options`` are
    :func:`evaluate`'s keywords but ``summary``. Yields :class:`Metric` in query order (each measure's
    formula and paper: ``docs/measures.md``, as for :func:`evaluate`).
    """
    _calc_options(options, "iter_calc")
    names = _measure_names(measures)  # before the run: measures and qrels swapped (pytrec_eval's order) say so
    df = evaluate(qrels, [_one_run(run)], names, **options)
    return (Metric(str(q), str(m), v) for q, m, v in zip(df.qid, df.measure, df.value, strict=True))


def calc_aggregate(measures: Any, qrels: Any, run: Any, **options: Any) -> dict[str, Any]:
    """Summary value of each measure column for one run, as ``ir_measures.calc_aggregate``.

    The summary is trec_eval's (mean over the evaluated queries for most
    measures, a sum for counts, a geometric mean for ``gm_*``); keys are the
    printed names (``nDCG@10``, ``P_5``), and an ir-measures measure object finds its own
    (:class:`MeasureResults`). Formulas and papers: ``docs/measures.md``, as for :func:`evaluate`.
    """
    _calc_options(options, "calc_aggregate")
    names = _measure_names(measures)  # before the run: measures and qrels swapped (pytrec_eval's order) say so
    df = evaluate(qrels, [_one_run(run)], names, summary=True, **options)
    allrows = df[df.qid == "all"]
    return MeasureResults(zip(allrows.measure, allrows.value, strict=True))


class Evaluator:
    """The measures parsed and the qrels read once, then any number of runs (``ir_measures.evaluator``).

    Made by :func:`evaluator`. ``iter_calc(run)`` and ``calc_aggregate(run)``
    are :func:`iter_calc` and :func:`calc_aggregate` of that run with the
    evaluator's measures, qrels and options; a run takes every shape
    :func:`evaluate` takes for one run (formulas and papers: ``docs/measures.md``).
    """

    def __init__(self, measures: Any, qrels: Any, **options: Any) -> None:
        from ..measures import parse_measures
        from ..measures.base import needs_subtopics

        _calc_options(options, "evaluator")
        _check_options(level=options.get("level", 1), depth=options.get("depth"), jobs=options.get("jobs", 1))
        self._names = _measure_names(measures)
        requests = parse_measures(self._names)  # an unknown or invalid name fails here, before any run
        self._qrels = _load_qrels(qrels, subtopics=needs_subtopics(requests))
        extra = extra_inputs(requests, judgments=options.pop("judgments", None),
                             judgments_format=options.pop("judgments_format", None), best=options.pop("best", None))
        self._options = {**options, **extra}

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Per-query values of ``run``: :class:`Metric` (query_id, measure, value) in query order."""
        return iter_calc(self._names, self._qrels, run, **self._options)

    def calc_aggregate(self, run: Any) -> dict[str, Any]:
        """Summary value of each measure column for ``run``, keyed by the printed name."""
        return calc_aggregate(self._names, self._qrels, run, **self._options)

    def evaluate(self, run: Any) -> dict[str, dict[str, Any]]:
        """Per-query values of ``run`` in pytrec_eval's shape: ``{qid: {printed name: value}}``.

        What ``pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)`` returns
        (keys ``ndcg_cut_10``, ``P_5``; with ``trec9=True`` the same values, trec_eval 9's):
        the values of :meth:`iter_calc`, one dict per evaluated query in query order.
        """
        out: dict[str, dict[str, Any]] = {}
        for m in self.iter_calc(run):
            out.setdefault(m.query_id, {})[m.measure] = m.value
        return out


def evaluator(measures: Any, qrels: Any, **options: Any) -> Evaluator:
    """An :class:`Evaluator`: ``measures`` and ``qrels`` taken once, as ``ir_measures.evaluator(measures, qrels)``.

    ``measures`` as for :func:`evaluate` (names or ir-measures objects),
    ``qrels`` in any shape :func:`evaluate` takes (read once here, as are a
    ``judgments`` or ``best`` file); ``options`` are :func:`evaluate`'s
    keywords but ``summary`` (an unknown one is a UsageError). Invalid measure
    names fail here, before any run. Formulas and papers: ``docs/measures.md``, as for :func:`evaluate`.
    """
    return Evaluator(measures, qrels, **options)
