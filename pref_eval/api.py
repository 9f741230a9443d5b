"""Python API mirroring the command lines.

>>> import pref_eval
>>> df = pref_eval.evaluate("qrels/sample.qrels", ["runs/bm25.run"], ["map", "nDCG@10"])
>>> list(df.columns)
['run', 'qid', 'measure', 'value']
"""
from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import InputError, UsageError

if TYPE_CHECKING:
    from .output.atomic import InputOptions


def _is_number(x: Any) -> bool:
    """A real number, numpy scalars included (``np.float32(0.5)``), not a bool."""
    import numbers

    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _ranx_object(x: Any) -> bool:
    """A ``ranx.Qrels`` / ``ranx.Run`` (taken through its ``to_dict()``; ranx is not imported here)."""
    return type(x).__module__.startswith("ranx.") and hasattr(x, "to_dict")


def _load_qrels(qrels: Any, subtopics: bool = False):
    from .io.qrels import Qrels, qrels_from_records, read_qrels, with_subtopics

    if _ranx_object(qrels):
        qrels = dict(qrels.to_dict())
    if isinstance(qrels, Qrels):
        return with_subtopics(qrels) if subtopics and qrels.subtopics is None else qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels, subtopics=subtopics)
    if not isinstance(qrels, Iterable) and not hasattr(qrels, "columns"):
        raise UsageError(f"qrels: expected a path, a DataFrame, a dict {{qid: {{docno: grade}}}} or Qrel records, "
                         f"got {type(qrels).__name__}")
    q = qrels_from_records(qrels, subtopics=subtopics)
    if len(q.docno) == 0:
        raise InputError(q.source, 0, "empty qrels (expected (qid, docno, relevance) records)")
    return q


def _is_record(x: Any) -> bool:
    """One run line: a ScoredDoc-like namedtuple or a (qid, docno, score) tuple (a DataFrame with
    ``query_id`` and ``doc_id`` columns has those attributes too: it is a run, not a line)."""
    if hasattr(x, "columns"):
        return False
    if hasattr(x, "query_id") and hasattr(x, "doc_id"):
        return True
    return isinstance(x, tuple) and len(x) == 3 and _is_number(x[2]) and not isinstance(x[0], (os.PathLike,))


def _is_run_dict(x: Any) -> bool:
    """``{qid: {docno: score}}`` (an empty dict is an empty run)."""
    if not isinstance(x, Mapping):
        return False
    vals = list(x.values())
    if not vals:
        return True
    inner = list(vals[0].values()) if isinstance(vals[0], Mapping) else None
    # {qid: {doc: score}}: the inner values are scores (checked by the reader), not runs
    return inner is not None and not any(isinstance(v, Mapping) for v in inner[:1])


def _run_from_data(x: Any, name: str) -> Any:
    """A run given as data (DataFrame, dict, records) → Run; an empty one is refused as an empty run file."""
    from .io.runs import run_from_records

    r = run_from_records(x, name=name)
    if len(r.docno) == 0:
        raise InputError(name, 0, "empty run (expected (qid, docno, score) records)")
    return r


def _load_runs(runs: Any) -> list:
    """Runs in every shape ir-measures takes, or several of them.

    One run: a path, a :class:`~pref_eval.io.runs.Run`, a DataFrame
    (``query_id, doc_id, score``), a dict ``{qid: {doc: score}}`` (numpy
    scalars allowed), a list or generator of ``ScoredDoc`` namedtuples or
    ``(qid, doc, score)`` tuples (what ``ir_measures.read_trec_run`` yields).
    Several runs: a mapping ``{name: run}`` or a list of paths/Runs/DataFrames/dicts. A ``ranx.Qrels`` /
    ``ranx.Run`` is taken through its ``to_dict()`` (a ranx.Run keeps its name).
    An empty run is refused as the command lines refuse an empty run file.
    """
    from .io.runs import Run, read_run

    def one(x: Any, name: str | None = None) -> Run:
        if isinstance(x, Run):
            return x
        if _ranx_object(x):  # a ranx.Run: its name unless one is given
            name, x = name or getattr(x, "name", None) or None, dict(x.to_dict())
        if isinstance(x, (str, os.PathLike)):
            return read_run(x, name=name)
        if not isinstance(x, Iterable) and not hasattr(x, "columns"):
            raise UsageError(f"run {name or 'run'!r}: expected a path, a DataFrame, a dict {{qid: {{docno: score}}}} "
                             f"or (qid, docno, score) records, got {type(x).__name__}")
        return _run_from_data(x, name or "run")

    if isinstance(runs, (str, os.PathLike)):
        from .io.run_ids import run_ids

        return [one(runs, run_ids([os.fspath(runs)])[0])]
    if isinstance(runs, Run) or hasattr(runs, "columns") or _ranx_object(runs):
        return [one(runs)]
    if isinstance(runs, Mapping):
        if _is_run_dict(runs):
            return [one(runs)]  # a single {qid: {doc: score}}
        return [one(v, str(k)) for k, v in runs.items()]
    if isinstance(runs, Iterator) or not isinstance(runs, Sequence):
        if not isinstance(runs, Iterable):
            raise UsageError(f"runs: expected a path, a DataFrame, a dict or a list of those, "
                             f"got {type(runs).__name__}")
        runs = list(runs)  # a generator of ScoredDoc records is one run
    if not runs or _is_record(runs[0]):
        return [one(runs)]
    from .io.run_ids import shortest_unique_suffixes

    paths = [i for i, x in enumerate(runs) if isinstance(x, (str, os.PathLike))]
    ids = dict(zip(paths, shortest_unique_suffixes([os.fspath(runs[i]) for i in paths]), strict=True))
    # runs given as data in a list of several: run1, run2, ... by position (a Run or a ranx.Run keeps its name)
    numbered = len(runs) > 1
    return [one(x, ids.get(i, f"run{i + 1}" if numbered and not isinstance(x, Run) and not _ranx_object(x) else None))
            for i, x in enumerate(runs)]


def _measure_names(measures: Any) -> list[str]:
    """Names as strings: ir-measures measure objects are taken by their ``str`` (``nDCG@10``).

    ``measures`` may be a generator (read once: callers keep the list this returns).
    """
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    return [m if isinstance(m, str) else str(m) for m in measures]


def evaluate_run_group(piece: tuple, progress: Any = None) -> list:
    """Metric evaluation of some runs: ``[(result, topics missing, qrels topics, topics evaluated)]`` per run.

    ``piece`` = (:class:`~pref_eval.io.qrels.Qrels`, runs (paths or
    :class:`~pref_eval.io.runs.Run`), run ids, measure names, complete, level,
    depth[, judged_only, trec9, extra inputs]). Each run is ranked against the
    qrels on its own, so groups of runs can be evaluated in other processes
    (``--jobs``) or on dask workers without changing a result: the unit of
    work of :func:`pref_eval.parallel.ordered_map` for ``zelo_eval`` and
    :func:`evaluate`. The runs are read, ranked and evaluated one at a time and
    a result keeps no ranking (``RunResult.ranked`` is None), so memory stays
    that of the largest run whatever the number of runs. ``progress(k, n)`` is
    called before run ``k`` of ``n`` and once at the end.
    """
    from dataclasses import replace

    from .collection import build_collection, index_qrels
    from .engine import evaluate_ranked
    from .io.runs import read_run
    from .measures import EvalContext, parse_measures

    q, runs, ids, names, complete, level, depth, *more = piece
    judged_only, trec9, extra = (list(more) + [False, False, None][len(more):])[:3]
    ctx = EvalContext(level=level, trec9=trec9, complete=complete, extra=extra or {})
    requests = parse_measures(list(names))
    qi = index_qrels(q)
    out = []
    for k, (r, n) in enumerate(zip(runs, ids, strict=True)):
        if progress is not None:
            progress(k, len(runs))
        run = read_run(r, name=n) if isinstance(r, (str, os.PathLike)) else r
        col = build_collection(qi, [run], complete=complete, depth=depth, judged_only=judged_only, trec9=trec9)
        del run
        [ranked], [miss] = col.runs, col.missing
        del col
        out.append((replace(evaluate_ranked(ranked, requests, ctx), ranked=None), len(miss), qi.nq, ranked.nq))
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
):
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
    groups of runs in that many processes (the same result).
    """
    import pandas as pd

    from .output.table import HEADER

    rows = _evaluate_rows(qrels, runs, measures, complete=complete, level=level, depth=depth,
                          judged_only=judged_only, trec9=trec9, summary=summary, judgments=judgments,
                          judgments_format=judgments_format, best=best, jobs=jobs)
    return pd.DataFrame(rows, columns=list(HEADER))


def _evaluate_rows(qrels: Any, runs: Any, measures: Any = ("official",), *, complete: bool = False, level: int = 1,
                   depth: int | None = None, judged_only: bool = False, trec9: bool = False, summary: bool = False,
                   judgments: Any = None, judgments_format: str | None = None, best: Any = None,
                   jobs: int = 1, log: Any = None, warn_missing: bool = True) -> list:
    """:func:`evaluate`'s rows (run, qid, measure, value), without pandas.

    A run lacking qrels topics (without ``complete``) is warned about on ``log`` (a command's
    :class:`~pref_eval.log.Log`), or with :func:`warnings.warn` at the user's line when ``log`` is None;
    not at all with ``warn_missing=False`` (a caller that says it otherwise).
    """
    from .measures import parse_measures
    from .measures.base import needs_subtopics
    from .output.table import long_rows

    mnames = _measure_names(measures)  # once: a generator of measures is read once
    requests = parse_measures(mnames)
    q = _load_qrels(qrels, subtopics=needs_subtopics(requests))
    rs = _load_runs(runs)
    names = [r.name for r in rs]
    if len(set(names)) != len(names):
        raise UsageError(f"two runs share a name: {sorted(n for n in set(names) if names.count(n) > 1)}")
    extra = extra_inputs(requests, judgments=judgments, judgments_format=judgments_format, best=best)
    _check_options(level=level, depth=depth, jobs=jobs)
    if jobs > 1 and len(rs) > 1:
        from .parallel import ordered_map, split_even

        pieces = [(q, rs[a:b], names[a:b], mnames, complete, level, depth, judged_only, trec9, extra)
                  for a, b in split_even([len(r.docno) for r in rs], jobs)]
        got = [x for part in ordered_map(evaluate_run_group, pieces, jobs=jobs) for x in part]
    else:
        piece = (q, rs, names, mnames, complete, level, depth, judged_only, trec9, extra)
        got = evaluate_run_group(piece)
    for (_, n_missing, nq_qrels, nq), name in zip(got, names, strict=True):
        if nq == 0:  # as the commands: a mean over no topic is no number (ir-measures: NaN or 0)
            from .errors import EvaluationError

            raise EvaluationError(f"{name}: no queries with both results and relevance info")
        if not (n_missing and warn_missing and not complete):
            continue
        if log is not None:
            log.warn(f"{name}: run lacks {n_missing} of {nq_qrels} qrels topics; "
                     "averaging over the topics in both (use -c to count them as zero)")
        else:  # the commands' warning, as a Python warning (ir-measures counts them as 0)
            import warnings

            from .errors import PrefEvalWarning

            warnings.warn(f"{name}: run lacks {n_missing} of {nq_qrels} qrels topics; averaging over the topics in "
                          "both (complete=True counts them as zero, as ir-measures does)", PrefEvalWarning,
                          stacklevel=_caller_level())
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
    """The numeric options of :func:`evaluate` (``-l``, ``-M``, ``--jobs``): integers in range, else UsageError."""
    import numbers

    for opt, v, low, none_ok in (("level", level, None, False), ("depth", depth, 0, True), ("jobs", jobs, 1, False)):
        if v is None and none_ok:
            continue
        if not isinstance(v, numbers.Integral) or isinstance(v, bool):
            raise UsageError(f"{opt}: expected an integer, got {v!r}")
        if low is not None and v < low:
            raise UsageError(f"{opt}: expected an integer >= {low}, got {v!r}")


def extra_inputs(requests, *, judgments: Any = None, judgments_format: str | None = None,
                 best: Any = None) -> dict:
    """``EvalContext.extra`` for ``requests``: the judgment table and the best-item set when given.

    An input that no requested measure uses is refused (never ignored); a
    measure that needs one without it says so when it runs.
    """
    from .measures.base import needs_input

    extra: dict = {}
    if best is not None:
        if not needs_input(requests, "best"):
            raise UsageError("a best-item set given (-B) but no requested measure uses it (BestRR, BestSuccess@k)")
        from .io.best_items import BestItems, read_best_items

        extra["best"] = best if isinstance(best, BestItems) else read_best_items(best)
    if judgments is not None:
        if not needs_input(requests, "judgments"):
            raise UsageError("pairwise judgments given (-P) but no requested measure uses them (e.g. PGC)")
        from .zelo.judgments import Judgments

        if isinstance(judgments, Judgments):
            extra["judgments"] = judgments
        else:
            from .io.judgments import read_judgments

            extra["judgments"] = read_judgments(str(judgments), judgments_format)
    elif judgments_format is not None:
        raise UsageError("--judgments-format given without -P judgments")
    return extra


def judge(
    pairs: str | None = None,
    *,
    judges: Sequence[str],
    store: str,
    state: str | None = None,
    queries: str | None = None,
    docs: str | None = None,
    output: str | None = None,
    prompt: str | None = None,
    both_orders: bool = False,
    ties: str | None = None,
    missing_text: str | None = None,
    api_key_env: str = "OPENAI_API_KEY",
    concurrency: int = 8,
    rpm: float | None = None,
    retries: int = 4,
    timeout: float = 60.0,
    backoff: float = 1.0,
    budget_requests: int | None = None,
    max_cost: float | None = None,
    prices: Mapping[str, tuple[float, float]] | None = None,
    retry_failed: bool = False,
    dry_run: bool = False,
    seed: int = 0,
    log: Any = None,
) -> Any:
    """Judge pairs with an ensemble of judges (``zelo_judge``); returns the
    :class:`pref_eval.judge.run.Session` (``results``, ``stats``, ``missing``).

    ``pairs`` is a zelo_pairs output, or ``state`` a zelo_pairs state file
    (any strategy: tournament, adaptive), driven batch by batch to its end
    (the k-th judgment of a pair is a distinct question: see docs/zelo_judge.md). Every answer is committed
    to the SQLite ``store`` first; a re-run asks only what is missing.
    ``output`` receives the canonical JSONL (``qid, doc_a, doc_b, votes,
    judges, orders``) of the pairs judged; ``log`` a
    :class:`pref_eval.log.Log` for the progress line, warnings and the
    summary (default silent). See docs/zelo_judge.md for every option.
    """
    from .log import Log
    from .judge.run import Setup, run, summary_lines, write_results
    from .judge.scheduler import Limits

    log = log or Log("zelo_judge", quiet=True)
    if ties is not None and state is None:
        raise UsageError("--ties applies with --state (zelo_fit applies its own --ties to the votes written)")
    if missing_text is not None and state is None:
        raise UsageError("--missing-text applies with --state (without it a pair lacking a text is left out of the "
                         "output, and zelo_fit needs no judgment of every pair)")
    if missing_text not in (None, "stop", "tie"):
        raise UsageError(f"--missing-text: expected stop or tie, got {missing_text!r}")
    prices = dict(prices or {})
    if max_cost is not None:
        from .judge.spec import parse_spec

        for sp in (parse_spec(s) for s in judges):
            key = sp.model if sp.kind == "openai" else sp.name
            if key not in prices:
                raise UsageError(f"--max-cost needs a --price for {key!r}")
    if output is not None and output != "-" and os.path.abspath(output) in {
            os.path.abspath(store + x) for x in ("", "-wal", "-shm", "-journal", ".lock")}:
        raise UsageError(f"output file {output} is the same file as --store {store}; refusing to overwrite it")
    limits = Limits(concurrency=concurrency, rpm=rpm, retries=retries, timeout=timeout, backoff_base=backoff,
                    budget_requests=budget_requests, max_cost=max_cost, prices=prices, seed=seed)
    setup = Setup(judges=list(judges), store=store, pairs=pairs, state=state, queries=queries, docs=docs,
                  prompt=prompt, both_orders=both_orders, ties=ties or "half", missing_text=missing_text or "stop",
                  api_key_env=api_key_env, retry_failed=retry_failed, dry_run=dry_run, limits=limits,
                  progress=log.interactive, warn=log.warn)
    if dry_run:
        import sys

        sess = run(setup)
        for line in summary_lines(sess):
            sys.stdout.write(line + "\n")
        return sess
    from .output.atomic import output_file

    inputs = {k: [v] for k, v in (("PAIRS", pairs), ("--state", state), ("--queries", queries), ("--docs", docs),
                                  ("--prompt", prompt), ("--store", store)) if v}
    from .output.atomic import preflight

    # the store is written answer by answer: not one of the inputs, nor in a missing directory (exit 1 as for
    # any output, instead of "not a zelo_judge store (unable to open database file)", exit 2)
    preflight(store, {k: v for k, v in inputs.items() if k not in ("--store", "--state")})  # --state: run.run
    # the output is opened (and refused if unwritable or an input) before anything is asked;
    # it is committed after the run, while every answer is in the store as soon as it arrives
    with output_file(output, inputs=inputs) as out:
        sess = run(setup)
        write_results(out, sess.results)
    for qid, a, b, why in sess.missing[:5]:
        log.warn(f"pair {qid} {a} {b} not sent: no {why}" if why.startswith(("query", "text")) else
                 f"pair {qid} {a} {b} not sent: {why}")
    if len(sess.missing) > 5:
        log.warn(f"... and {len(sess.missing) - 5} more pairs not sent")
    for line in summary_lines(sess):
        log.info(line)
    return sess


def judge_export(store: str, *, output: str | None = None, judges: Sequence[str] | None = None,
                 prompt: str | None = None, inputs: InputOptions | None = None) -> int:
    """Write the store's answers as canonical JSONL (``zelo_judge export``); returns the number of pairs.

    ``output``: a file (written atomically; never one of ``inputs``, by default the store and the
    prompt) or stdout (``None`` or ``-``); ``judges``: only these (default every judge in the store).
    """
    from .judge.export import export_lines
    from .output.atomic import command_output
    from .judge.prompt import prompt_hash
    from .judge.run import read_template
    from .judge.spec import parse_spec
    from .judge.store import Store

    phash = prompt_hash(read_template(prompt))
    names = [parse_spec(s).name for s in judges] if judges else None
    st = Store(store, readonly=True)
    n = 0
    try:
        _check_export_selection(st, store, phash, names, prompt)
        with command_output(output, _input_options(inputs, output=output, store=store, prompt=prompt)) as out:
            for line in export_lines(st, phash, names):
                out.write(line)
                n += 1
    finally:
        st.close()
    return n


def _check_export_selection(st: Any, store: str, phash: str, names: list[str] | None, prompt: str | None) -> None:
    """A ``--judge`` not in the store, or a ``--prompt`` none of whose answers is in a store that holds answers,
    is a mistake (a typo, the wrong template), not an empty export."""
    have = st.judges(phash)
    if not have and st.prompts():
        which = f"--prompt {prompt}" if prompt else "the default prompt"
        raise UsageError(f"{store} holds no answer asked with {which} (it holds answers of {len(st.prompts())} "
                         "other prompt(s): give the --prompt FILE they were asked with)")
    missing = [x for x in (names or []) if x not in have]
    if missing:
        raise UsageError(f"--judge {missing[0]}: no answer of this judge in {store} for this prompt (judges there: "
                         f"{', '.join(have) or 'none'})")


class Metric(NamedTuple):
    """One per-query value, as ir-measures' ``Metric`` (``query_id, measure, value``)."""

    query_id: str
    measure: str
    value: float


_CALC_OPTIONS = ("complete", "level", "depth", "judged_only", "trec9", "judgments", "judgments_format", "best", "jobs")


def _calc_options(options: dict, where: str) -> None:
    """The keywords :func:`iter_calc`, :func:`calc_aggregate` and :func:`evaluator` take; another is a UsageError."""
    unknown = [k for k in options if k not in _CALC_OPTIONS]
    if unknown:
        raise UsageError(f"{where}: unknown option {unknown[0]!r} (expected one of: {', '.join(_CALC_OPTIONS)})")


def _one_run(run: Any) -> Any:
    """The one run of :func:`iter_calc` / :func:`calc_aggregate`, as a :class:`~pref_eval.io.runs.Run`.

    Read as one run (never as a ``{name: run}`` mapping or a list of runs, whose entries would
    otherwise be taken for queries); several runs are a UsageError pointing to :func:`evaluate`.
    """
    from .io.runs import Run

    several = "evaluate several runs with pref_eval.evaluate or one at a time with an evaluator"
    if isinstance(run, Mapping) and not _ranx_object(run):
        first = next(iter(run.values()), None)
        if isinstance(first, (str, os.PathLike, Run)) or hasattr(first, "columns"):
            raise UsageError(f"expected one run, got a mapping of {len(run)} runs; {several}")
        return _run_from_data(run, "run")  # {qid: {docno: score}}; a value not a dict is an InputError
    if isinstance(run, Iterable) and not isinstance(run, (str, os.PathLike, Run)) and not hasattr(run, "columns") \
            and not _ranx_object(run):
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
    """``calc_aggregate``'s result: keys are the printed names (``"nDCG@10"``, ``"P_5"``).

    An ir-measures measure object is a key too, looked up by its ``str`` (``res[nDCG@10]`` is
    ``res["nDCG@10"]``), as ``ir_measures.calc_aggregate``'s results are indexed.
    """

    def __getitem__(self, key: Any) -> Any:
        return super().__getitem__(key if isinstance(key, str) else str(key))

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key if isinstance(key, str) else str(key))

    def get(self, key: Any, default: Any = None) -> Any:
        return super().get(key if isinstance(key, str) else str(key), default)


def iter_calc(measures: Any, qrels: Any, run: Any, **options: Any) -> Iterator[Metric]:
    """Per-query values of one run, as ``ir_measures.iter_calc(measures, qrels, run)``.

    ``measures`` as for :func:`evaluate` (names or ir-measures objects),
    ``qrels``/``run`` in any shape :func:`evaluate` takes for one run; ``options`` are
    :func:`evaluate`'s keywords but ``summary``. Yields :class:`Metric` in query order.
    """
    _calc_options(options, "iter_calc")
    df = evaluate(qrels, [_one_run(run)], measures, **options)
    return (Metric(str(q), str(m), v) for q, m, v in zip(df.qid, df.measure, df.value, strict=True))


def calc_aggregate(measures: Any, qrels: Any, run: Any, **options: Any) -> dict[str, Any]:
    """Summary value of each measure column for one run, as ``ir_measures.calc_aggregate``.

    The summary is trec_eval's (mean over the evaluated queries for most
    measures, a sum for counts, a geometric mean for ``gm_*``); keys are the
    printed names (``nDCG@10``, ``P_5``), and an ir-measures measure object finds its own
    (:class:`MeasureResults`).
    """
    _calc_options(options, "calc_aggregate")
    df = evaluate(qrels, [_one_run(run)], measures, summary=True, **options)
    allrows = df[df.qid == "all"]
    return MeasureResults(zip(allrows.measure, allrows.value, strict=True))


class Evaluator:
    """The measures parsed and the qrels read once, then any number of runs (``ir_measures.evaluator``).

    Made by :func:`evaluator`. ``iter_calc(run)`` and ``calc_aggregate(run)``
    are :func:`iter_calc` and :func:`calc_aggregate` of that run with the
    evaluator's measures, qrels and options; a run takes every shape
    :func:`evaluate` takes for one run.
    """

    def __init__(self, measures: Any, qrels: Any, **options: Any) -> None:
        from .measures import parse_measures
        from .measures.base import needs_subtopics

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


def evaluator(measures: Any, qrels: Any, **options: Any) -> Evaluator:
    """An :class:`Evaluator`: ``measures`` and ``qrels`` taken once, as ``ir_measures.evaluator(measures, qrels)``.

    ``measures`` as for :func:`evaluate` (names or ir-measures objects),
    ``qrels`` in any shape :func:`evaluate` takes (read once here, as are a
    ``judgments`` or ``best`` file); ``options`` are :func:`evaluate`'s
    keywords but ``summary`` (an unknown one is a UsageError). Invalid measure
    names fail here, before any run.
    """
    return Evaluator(measures, qrels, **options)


def agree(
    judgments: Sequence[str],
    *,
    names: Sequence[str] | None = None,
    fmt: str | None = None,
    ties: str = "half",
    levels: Sequence[str] = ("pair", "calibration", "document"),
    resamples: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    buckets: int = 20,
    calibration: str = "auto",
    consensus_min: int = 2,
    prior: float = 0.5,
    top_k: int = 10,
    runs: Sequence[str] = (),
    measure: str | None = None,
    grades: str = "0,1,2,3",
    tests: str = "t",
    correction: str = "holm",
    alpha: float = 0.05,
    output: str | None = None,
    output_format: str = "text",
    digits: int = 4,
    inputs: InputOptions | None = None,
) -> list:
    """How far a judge can be trusted: agreement of judgment files with the first one (``zelo_agree``).

    ``judgments``: two or more files in any format ``zelo_fit`` reads (the
    first is the reference). Returns a list of
    :class:`pref_eval.agree.records.Record` (``judge_a, judge_b, level,
    statistic, value, ci_low, ci_high, n``); see ``docs/zelo_agree.md``.
    With ``output`` (``-`` = stdout) they are written as ``zelo_agree``
    writes them (``output_format``, ``digits``); an output that is one of
    ``inputs`` (default the judgment and run files) is refused before
    anything is read.
    """
    from .agree.report import agreement_report

    own: InputOptions = []
    if output is not None:
        from .output.atomic import check_not_input, inputs_besides

        own = _input_options(inputs, output=output, judgments=list(judgments), runs=list(runs))
        check_not_input(output, inputs_besides(output, own))  # before anything is read
    records = agreement_report(
        list(judgments), names=None if names is None else list(names), fmt=fmt, ties=ties, levels=list(levels),
        resamples=resamples, seed=seed, confidence=confidence, buckets=buckets, calibration=calibration,
        consensus_min=consensus_min, prior=prior, top_k=top_k, runs=list(runs), measure=measure, grades=grades,
        tests=tests, correction=correction, alpha=alpha)
    if output is not None:
        from .output.agree import write_records
        from .output.atomic import command_output

        with command_output(output, own) as out:
            write_records(out, records, output_format, digits)
    return records


def aggregate(prefs: str | os.PathLike, measures: Sequence[str] | None = None, *, query_fraction: float = 1.0,
              num_samples: int = 1, seed: int = 0, mc4_steps: int | None = None, damping: float = 0.15,
              log: Any = None) -> tuple[list[str], list[Any]]:
    """Orderings of runs from a preference file (``pref_aggregate``): ``(measures, [Aggregation, ...])``.

    ``prefs`` is the JSON lines of ``zelo_eval -q`` / ``pref_eval.py -q``;
    ``measures`` default to every measure of the file, in file order. For each
    sample a :class:`~pref_eval.rank_aggregation.Aggregation` holds per query
    and measure the ranking of the runs, and per measure the summary
    orderings: MC4 (Dwork et al., WWW 2001; stationary distribution of the
    chain damped by ``damping``, or ``mc4_steps`` power steps as
    pref_aggregate.py) and Borda for preference measures, the mean for metrics
    (formulas in :mod:`pref_eval.rank_aggregation`). ``query_fraction < 1``
    draws that fraction of sample 0's queries for each of ``num_samples``
    samples with ``numpy.random.default_rng(seed)``; otherwise sample ``s`` of
    the file is aggregated for ``s < num_samples`` (missing ones are skipped
    with a warning on ``log``, a :class:`~pref_eval.log.Log`).
    """
    import numpy as np

    from .io.pref_jsonl import read_pref_file
    from .log import Log
    from .rank_aggregation import aggregate as aggregate_sample

    log = log or Log("pref_eval", quiet=True)
    name = os.fspath(prefs)
    log.stage(f"reading {name}")
    pf = read_pref_file(name)
    ms = list(measures) if measures else list(pf.keys)
    missing = [m for m in ms if m not in pf.keys]
    if missing:
        raise UsageError(f"measure(s) not in {name}: {', '.join(missing)} (file has: {', '.join(pf.keys)})")
    if not ms:
        raise UsageError(f"{name}: no measure values in the file")
    qids0 = rng = None
    if query_fraction < 1.0:
        qids0 = pf.sample_qids(0)
        if not qids0:
            raise UsageError(f"{name}: --query_fraction draws from the queries of sample 0, and it has none")
        rng = np.random.default_rng(seed)
    results, skipped = [], []
    for s in range(num_samples):
        if num_samples > 1:
            log.progress("samples", s, num_samples)
        src = 0 if qids0 is not None else s
        if qids0 is None and s not in pf.prefs and s not in pf.metrics:
            skipped.append(s)
            continue
        qids = None
        if qids0 is not None and rng is not None:
            k = max(1, int(len(qids0) * query_fraction))
            qids = [qids0[i] for i in sorted(rng.choice(len(qids0), size=k, replace=False))]
        results.append(aggregate_sample(pf, ms, sample=s, source_sample=src, qids=qids, mc4_steps=mc4_steps,
                                        damping=damping))
    if num_samples > 1:
        log.progress("samples", num_samples, num_samples)
    for s in skipped:  # after the progress line is complete
        log.warn(f"sample {s} is not in {name}; skipped")
    return ms, results


def compare(per_query: Any, **options: Any) -> Any:
    """Paired significance tests between runs (``zelo_compare -P``): a :class:`~pref_eval.stats.ComparisonResult`.

    ``per_query``: a per-query table -- a path (``zelo_eval -q -o tsv|csv|jsonl``
    output, read by :func:`pref_eval.io.perquery.read_per_query`) or a DataFrame
    with the columns ``run, qid, measure, value`` (what :func:`evaluate`
    returns). ``options`` are :func:`pref_eval.stats.compare`'s: ``tests``
    (t: Student 1908; wilcoxon: Wilcoxon 1945; sign; randomization: Fisher
    1935; bootstrap: Efron & Tibshirani 1993; tukey: randomised Tukey HSD,
    Carterette 2012), ``correction`` (holm: Holm 1979; bonferroni; bh:
    Benjamini & Hochberg 1995), ``alpha``, ``baseline``, ``resamples``,
    ``seed``, ``confidence`` ... Every pair of runs (or each run against
    ``baseline``) is tested on the mean of the per-query differences.
    """
    from .stats.compare import compare as compare_table

    if isinstance(per_query, (str, os.PathLike)):
        from .io.perquery import read_per_query

        per_query = read_per_query(per_query)
    return compare_table(per_query, **options)


FORMATS = ("pref", "trec", "tsv", "csv", "jsonl", "text", "markdown", "latex", "wide-csv")  # zelo_eval -o
WIDE = ("text", "markdown", "latex", "wide-csv")  # runs × measures (zelo_compare's report table)
MANY_RUNS = 8  # from this many runs on, a stage line announces the evaluation (on a terminal)


def evaluate_runs(qrels: str, runs: Sequence[str], *, measures: Sequence[str] = (), measure_set: str | None = None,
                  binary: float | None = None, floor: float | None = None, judgments: str | None = None,
                  judgments_format: str | None = None, best: str | None = None, per_query: bool = False,
                  summary: bool = True, complete: bool = False, level: int = 1, depth: int | None = None,
                  topk: int | None = None, fmt: str | None = None, output: str = "-", reference: str | None = None,
                  means: bool = False, query_fraction: float = 1.0, label_fraction: float = 1.0,
                  label_policy: str = "random", samples: int = 1, seed: int = 0, jobs: int = 1,
                  scheduler: str | None = None, trec9: bool = False, head: bool = False, run_id_mode: str = "path",
                  run_names: Sequence[str] = (), log: Any = None, inputs: InputOptions | None = None) -> None:
    """Evaluate runs as ``zelo_eval`` does and write its output to ``output`` (``-``: stdout).

    Three modes (docs/zelo_eval.md), chosen as the command chooses them:

    * **preference mode** -- pref_eval.py's preference measures between runs
      (RPP: Diaz & Ferraro, SIGIR 2022; lexicographic recall and precision:
      Diaz, Ekstrand & Mitra, TORS 2025; Diaz, EVIA 2023) and its metrics:
      ``fmt="pref"`` (its JSON lines; the default with two or more runs) or
      long tables (``tsv``/``csv``/``jsonl`` with a preference measure);
      ``binary``, ``floor``, ``reference``, ``means``, ``topk``, the sampling
      options (``query_fraction``, ``label_fraction``, ``label_policy``,
      ``samples``, ``seed``) and ``head`` apply here;
    * **metric mode** -- trec_eval's measures per run (``trec`` blocks, long
      tables, or a runs × measures table ``text|markdown|latex|wide-csv``
      with a paired t-test and Holm's correction); ``complete``, ``level``,
      ``trec9``, ``judgments``/``best`` (for PGC, BestRR), ``jobs``/``scheduler``;
    * **zELO scores** -- ``qrels`` is a ``zelo_fit`` score file: zbench's measures.

    ``measures``/``measure_set`` are ``-m``/``-M`` (a number is a depth, as
    trec_eval's ``-M``); run ids by ``run_id_mode``/``run_names``
    (:mod:`pref_eval.io.run_ids`); ``inputs`` the files the output must not
    overwrite (default the input paths); ``log`` a :class:`~pref_eval.log.Log`.
    Values as :func:`evaluate` and :func:`preferences` return them.
    """
    from .io.run_ids import run_ids
    from .log import Log
    from .io.zelo_scores import looks_like_zelo_scores

    log = log or Log("zelo_eval", quiet=True)
    ids = run_ids(list(runs), mode=run_id_mode, names=list(run_names))
    ms, cutoff = _depth_of_measure_set(measure_set, depth, topk)
    own = _input_options(inputs, output=output, qrels=qrels, runs=list(runs), judgments=judgments, best=best)
    extra = {"judgments": judgments, "judgments_format": judgments_format, "best": best}
    parallel = jobs > 1 or scheduler is not None
    opts = dict(per_query=per_query, summary=summary, output=output, inputs=own, log=log)
    if looks_like_zelo_scores(qrels):
        _refuse_with_scores(qrels, ms, extra=extra, parallel=parallel, binary=binary, floor=floor,
                            reference=reference, means=means, complete=complete, level=level,
                            sampled=(query_fraction, label_fraction, samples), trec9=trec9, head=head)
        _scores_mode(qrels, list(runs), ids, measures, cutoff=cutoff, fmt=fmt or "trec", **opts)
        return
    if fmt is None:
        fmt = "pref" if len(runs) >= 2 and not _trec_eval_names_only(measures) else "trec"
    prefs = fmt == "pref" or (fmt != "trec" and _wants_preferences(measures, ms))
    if trec9 and prefs:
        raise UsageError("--trec-eval-9 applies to trec_eval measures (metric mode: -o trec, or -o tsv with "
                         "trec_eval names), not to preference mode")
    if prefs:
        _refuse_extra(extra, "with -o pref (preference mode)" if fmt == "pref" else "in preference mode")
        sampling = _Sampling(query_fraction, label_fraction, label_policy, samples, seed)
        _preference_mode(qrels, list(runs), ids, measures, ms, binary=binary, floor=floor, topk=cutoff, fmt=fmt,
                         reference=reference, means=means, sampling=sampling, head=head, jobs=jobs,
                         scheduler=scheduler, **opts)
        return
    for flag, val in (("-b", binary), ("-f", floor), ("--reference", reference), ("--pref-eval-head", head or None)):
        if val is not None:
            raise UsageError(f"{flag} applies to preference measures (use -o pref, or -m rpp ... with -o tsv)")
    _metric_mode(qrels, list(runs), ids, measures, ms, complete=complete, level=level, depth=cutoff, fmt=fmt,
                 extra=extra, trec9=trec9, jobs=jobs, scheduler=scheduler, **opts)


def _depth_of_measure_set(ms: str | None, depth: int | None, topk: int | None) -> tuple[str | None, int | None]:
    """``-M N`` is trec_eval's depth: (the measure set left, the smallest of ``-M N``, ``--depth``, ``--topk``)."""
    if ms is not None and ms.strip().lstrip("+").isdigit():
        d = int(ms)
        if d <= 0:
            raise UsageError(f"-M {ms}: the depth must be positive")
        depth, ms = (d if depth is None else min(depth, d)), None
    cut = [x for x in (depth, topk) if x is not None]
    return ms, (min(cut) if cut else None)


def _refuse_with_scores(scores: str, ms: str | None, *, extra: dict, parallel: bool, binary: float | None,
                        floor: float | None, reference: str | None, means: bool, complete: bool, level: int,
                        sampled: tuple[float, float, int], trec9: bool, head: bool) -> None:
    """Options that do not apply when the qrels are a zELO score file are refused, each by its flag."""
    _refuse_extra(extra, "with a zELO score file")
    if parallel:
        raise UsageError("--jobs/--scheduler apply to metric mode (trec_eval measures), not to a zELO score file")
    query_fraction, label_fraction, samples = sampled
    bad = [flag for flag, used in (("-b", binary is not None), ("-f", floor is not None),
                                   ("--reference", reference is not None), ("--means", means),
                                   ("-c", complete), ("-l", level != 1),
                                   ("--query_fraction", query_fraction < 1.0),
                                   ("--label_fraction", label_fraction < 1.0), ("--samples", samples > 1))
           if used]
    if bad:
        raise UsageError(f"not applicable with a zELO score file ({scores}): {', '.join(bad)}")
    if trec9 or head:
        raise UsageError(f"not applicable with a zELO score file ({scores}): "
                         f"{'--trec-eval-9' if trec9 else '--pref-eval-head'}")
    if ms is not None:
        raise UsageError(f"-M {ms}: with a zELO score file use -m zndcg|zndcg@K|zacc|zrecall@K[,KGT] "
                         "(-M N limits the candidates)")


def _refuse_extra(extra: dict, where: str) -> None:
    """-P / --judgments-format / -B only serve registry measures (metric mode)."""
    for flag, key in (("-P", "judgments"), ("--judgments-format", "judgments_format"), ("-B", "best")):
        if extra.get(key) is not None:
            raise UsageError(f"{flag} is not applicable {where}: it serves registry measures such as PGC or "
                             "BestRR (metric mode)")


def _trec_eval_names_only(measures: Sequence[str]) -> bool:
    """True when ``-m`` names only trec_eval / ir-measures measures that pref_eval.py does not know
    (``map``, ``nDCG@10``): several runs then default to one trec_eval block per run, since
    pref_eval.py's output would show only the differences between runs."""
    from .run_preferences.names import parse_pref_measure

    if not measures or _wants_preferences(measures, None):
        return False
    return all(m.kind == "registry" for name in measures for m in parse_pref_measure(name))


def _wants_preferences(measures: Sequence[str], ms: str | None) -> bool:
    """Table output: preference mode iff a name is not a registry measure, or -M preferences/all."""
    from .stats.prefvalues import needs_preference_mode

    if not measures:
        return ms in ("preferences", "all", "none")
    return needs_preference_mode(measures)


def _metric_mode(qrels: str, runs: list[str], ids: list[str], measures: Sequence[str], ms: str | None, *,
                 per_query: bool, summary: bool, complete: bool, level: int, depth: int | None, fmt: str,
                 output: str, inputs: InputOptions, log: Any, extra: dict, trec9: bool, jobs: int,
                 scheduler: str | None) -> None:
    """trec_eval's measures per run: trec blocks, long tables, or the runs × measures table."""
    from .errors import EvaluationError
    from .io.qrels import read_qrels
    from .measures import parse_measures
    from .measures.base import needs_subtopics
    from .output.atomic import command_output

    if ms in ("preferences", "all", "none"):
        raise UsageError(f"-M {ms} is a preference measure set; use -o pref (or -o tsv with it)")
    names = list(measures) if measures else [ms or "official"]
    if measures and ms:
        names.append(ms)
    requests = parse_measures(names)
    more = extra_inputs(requests, **extra)
    q = read_qrels(qrels, subtopics=needs_subtopics(requests))
    got = _evaluate_groups(q, runs, ids, names, complete=complete, level=level, depth=depth, trec9=trec9,
                           extra=more, jobs=jobs, scheduler=scheduler, log=log)
    results = []
    for (res, n_missing, nq_qrels, nq), path in zip(got, runs, strict=True):
        if n_missing and not complete:
            log.warn(f"{path}: run lacks {n_missing} of {nq_qrels} qrels topics; "
                     "averaging over the topics in both (use -c to count them as zero)")
        if nq == 0:
            raise EvaluationError(f"{path}: no queries with both results and relevance info")
        results.append(res)
    if fmt in WIDE:
        _wide_table(results, fmt, output=output, inputs=inputs, per_query=per_query, summary=summary,
                    complete=complete, trec9=trec9)
        return
    with command_output(output, inputs) as out:
        if fmt == "trec":
            from .output.trec import write_trec_blocks

            write_trec_blocks(out, results, ids, per_query=per_query, summary=summary, print_missing=not trec9)
        else:
            from .output.table import WRITERS, long_rows

            WRITERS[fmt](out, long_rows(results, per_query=per_query, summary=summary, print_missing=not trec9))


def _evaluate_groups(q: Any, runs: list[str], ids: list[str], names: list[str], *, complete: bool, level: int,
                     depth: int | None, trec9: bool, extra: dict, jobs: int, scheduler: str | None,
                     log: Any) -> list:
    """:func:`evaluate_run_group` over every run: here, or in groups in ``jobs`` processes / on dask."""
    if jobs == 1 and scheduler is None:  # read, rank and evaluate one run at a time
        import sys

        try:
            return evaluate_run_group((q, runs, ids, names, complete, level, depth, False, trec9, extra),
                                      progress=lambda k, n: log.progress("evaluating runs", k, n))
        except BaseException:
            if log.interactive:  # end the progress line so the error starts a line of its own
                sys.stderr.write("\n")
            raise
    from .parallel import ordered_map, split_even

    if len(runs) >= MANY_RUNS:
        log.stage(f"evaluating {len(runs)} runs")
    groups = [(k, k + 1) for k in range(len(runs))] if scheduler else split_even([1] * len(runs), jobs)
    pieces = [(q, list(runs[a:b]), ids[a:b], names, complete, level, depth, False, trec9, extra)
              for a, b in groups]
    return [x for part in ordered_map(evaluate_run_group, pieces, jobs=jobs, scheduler=scheduler) for x in part]


def _wide_table(results: list, fmt: str, *, output: str, inputs: InputOptions, per_query: bool, summary: bool,
                complete: bool, trec9: bool) -> None:
    """Runs × measures: the mean of each measure over the queries every run has (``-c``: all), the
    best in bold, significance letters of a paired t-test with Holm's correction over the pairs of
    runs per measure at α = 0.05 -- the table of ``zelo_compare`` (same code), which offers the
    other tests and settings."""
    import pandas as pd

    from .output.atomic import command_output
    from .output.comparisons import format_table, write_wide_csv
    from .output.table import HEADER, long_rows
    from .stats.compare import compare as compare_table

    if per_query or not summary:
        raise UsageError(f"-o {fmt} is a table of means: -q/-n do not apply (use -o tsv for per-query values)")
    rows = list(long_rows(results, per_query=True, summary=False, print_missing=not trec9))
    df = pd.DataFrame(rows, columns=list(HEADER))
    if df.empty:
        raise UsageError(f"-o {fmt}: no per-query values (summary-only measures such as gm_map or num_q)")
    res = compare_table(df, tests=["t"], correction="holm", alpha=0.05, complete=complete)
    with command_output(output, inputs) as out:
        if fmt == "wide-csv":
            write_wide_csv(out, res, "t")
        else:
            out.write(format_table(res, fmt, 4, "t"))


def _scores_mode(scores: str, runs: list[str], ids: list[str], measures: Sequence[str], *, per_query: bool,
                 summary: bool, cutoff: int | None, fmt: str, output: str, inputs: InputOptions, log: Any) -> None:
    """Runs against a zELO score file (``qid docno score se``): zbench's measures, fixed.

    Rows ``(run, qid, measure, value)`` from
    :func:`pref_eval.zelo.eval_scores.evaluate_against_scores` (``cutoff`` =
    the first N candidates of each query in run-file order), written as
    trec_eval-like blocks or as a long table.
    """
    from .io.textfile import display_name
    from .output.atomic import command_output
    from .zelo.eval_scores import DEFAULT_MEASURES, evaluate_against_scores, parse_zelo_measure

    if fmt == "pref":
        raise UsageError("-o pref needs qrels; with a zELO score file use -o trec|tsv|csv|jsonl")
    names = list(measures) or list(DEFAULT_MEASURES)
    for m in names:
        parse_zelo_measure(m)
    got = evaluate_against_scores(scores, list(runs), names, limit=cutoff)
    # per run: its per-query rows, then one "all" row per measure
    rows, k, n_all, seen_q = [], 0, 0, False
    for _, q, m, v in got:
        if q == "all":
            n_all += 1
        else:
            seen_q = True
        if (q == "all" and summary) or (q != "all" and per_query):
            rows.append((ids[k], q, m, float(v)))
        if n_all == len(names):
            if not seen_q:
                log.warn(f"{display_name(runs[k])}: no query in common with {display_name(scores)}; its means are nan")
            k, n_all, seen_q = k + 1, 0, False
    with command_output(output, inputs) as out:
        if fmt == "trec":
            from .output.trec import write_score_blocks

            write_score_blocks(out, ids, rows, summary=summary)
        else:
            from .output.table import WRITERS

            WRITERS[fmt](out, rows)


class _Sampling(NamedTuple):
    """pref_eval.py's sampling options: ``--query_fraction``, ``--label_fraction``,
    ``--label_fraction_policy``, ``--samples``, ``--seed``."""

    query_fraction: float
    label_fraction: float
    label_policy: str
    samples: int
    seed: int


def _preference_mode(qrels: str, runs: list[str], ids: list[str], measures: Sequence[str], ms: str | None, *,
                     binary: float | None, floor: float | None, per_query: bool, summary: bool, topk: int | None,
                     fmt: str, output: str, inputs: InputOptions, reference: str | None, means: bool,
                     sampling: _Sampling, log: Any, head: bool, jobs: int = 1, scheduler: str | None = None) -> None:
    """pref_eval.py's evaluation: JSON lines (``fmt == "pref"``) or long tables, sample after sample (the runs
    read, and ranked, in ``jobs`` processes or on dask when asked: the same output)."""
    import numpy as np

    from .io.qrels import read_subtopic_qrels
    from .output.atomic import command_output
    from .output.preferences import pref_json_lines, pref_rows, write_table
    from .run_preferences.data import prepare_qrels
    from .run_preferences.evaluate import reference_index
    from .run_preferences.names import resolve

    if fmt == "pref" and len(runs) < 2:
        raise UsageError("need at least two runs for comparison (or -o trec|tsv|csv|jsonl for one run)")
    if measures and ms:
        log.warn(f"-M {ms} ignored because -m is given (as pref_eval.py)")
    sel = resolve(list(measures), None if measures else ms)
    names = list(ids)
    ref = reference_index(reference, names, list(runs))
    q = read_subtopic_qrels(qrels)
    rs = _preference_runs(runs, names, sel, sampling, jobs=jobs, scheduler=scheduler, log=log)
    base = prepare_qrels(q, binary, floor)
    if len(base.qorder) == 0:
        log.warn(f"{qrels}: no query has a relevant document (grade > 0 after -b/-f); nothing to evaluate")
    # numpy.random is imported only when a sample is drawn (start-up, issue #13)
    drawn = sampling.query_fraction < 1.0 or sampling.label_fraction < 1.0
    rng = np.random.default_rng(sampling.seed) if drawn else None
    samples = sampling.samples
    if samples == 1 and len(runs) >= MANY_RUNS:
        npairs = len(runs) - 1 if ref is not None else len(runs) * (len(runs) - 1) // 2
        log.stage(f"evaluating {len(sel)} measures on {npairs} pairs of runs")
    with command_output(output, inputs) as out:
        for s in range(samples):
            res = _preference_sample(q, base, rs, names, sel, s, rng=rng, sampling=sampling, binary=binary,
                                     floor=floor, topk=topk, ref=ref, head=head, parallel=(jobs, scheduler))
            if fmt == "pref":
                out.writelines(pref_json_lines(res, per_query=per_query, summary=summary, means=means))
            else:
                rows = pref_rows(res, per_query=per_query, summary=summary)
                if samples > 1:
                    rows = ((f"{r[0]}", r[1], r[2], r[3], r[4]) for r in rows)
                write_table(out, rows, fmt, header=s == 0)
            if samples > 1:
                log.progress("samples", s + 1, samples)


def _preference_runs(runs: list[str], names: list[str], sel: list, sampling: _Sampling, *, jobs: int,
                     scheduler: str | None, log: Any) -> list:
    """The runs of preference mode: read here; or, with ``jobs``/``scheduler`` (not from stdin), left as
    paths for the workers of :func:`pref_eval.run_preferences.evaluate.evaluate_preferences` to read and
    rank (one plain sample, preference measures only), or read in groups by worker processes."""
    parallel = (jobs > 1 or scheduler) and "-" not in runs
    if not parallel:
        return _read_runs(runs, names, log)
    if sampling.samples == 1 and sampling.label_fraction == 1.0 and all(m.kind != "registry" for m in sel):
        return list(runs)  # paths: read and ranked by the worker processes (evaluate_preferences)
    from .parallel import ordered_map, split_even
    from .run_preferences.evaluate import read_run_group

    groups = [(k, k + 1) for k in range(len(runs))] if scheduler else split_even([1] * len(runs), jobs)
    pieces = [(list(runs[a:b]), names[a:b]) for a, b in groups]
    return [r for part in ordered_map(read_run_group, pieces, jobs=jobs, scheduler=scheduler) for r in part]


def _preference_sample(q: Any, base: Any, rs: list, names: list[str], sel: list, s: int, *, rng: Any,
                       sampling: _Sampling, binary: float | None, floor: float | None, topk: int | None,
                       ref: int | None, head: bool, parallel: tuple[int, str | None] = (1, None)) -> Any:
    """Sample ``s``: its queries and labels drawn with ``rng`` when the fractions are < 1, then evaluated
    (with ``head``: the graded RPP family as diazf/pref_eval HEAD computes it)."""
    from .run_preferences.data import head_binary
    from .run_preferences.evaluate import evaluate_preferences
    from .run_preferences.sampling import sample_labels, sample_queries

    qs, pq = q, base
    if sampling.query_fraction < 1.0:
        qs, pq = sample_queries(qs, pq, sampling.query_fraction, rng, binary, floor)
    if sampling.label_fraction < 1.0:
        qs, pq = sample_labels(qs, pq, sampling.label_fraction, sampling.label_policy, rng, rs, binary, floor)
    res = evaluate_preferences(pq, rs, names, sel, topk=topk, reference=ref, sample=s, jobs=parallel[0],
                               scheduler=parallel[1])
    graded = [m for m in sel if m.kind == "pref" and m.base in ("rpp", "invrpp", "dcgrpp")]
    if head and graded:  # HEAD's numbers for the graded RPP family only (see head_binary)
        hb = evaluate_preferences(head_binary(pq), rs, names, graded, topk=topk, reference=ref, sample=s)
        res.prefs.update({m.key: hb.prefs[m.key] for m in graded})
    return res


def _read_runs(paths: Sequence[str], names: Sequence[str], log: Any) -> list:
    """Read the run files in order, with a progress line on a terminal (``reading runs: k/N``)."""
    import sys

    from .io.runs import read_run

    rs = []
    try:
        for k, (p, n) in enumerate(zip(paths, names, strict=False)):
            log.progress("reading runs", k, len(paths))
            rs.append(read_run(p, name=n))
    except BaseException:
        if log.interactive:  # end the progress line so the error starts a line of its own
            sys.stderr.write("\n")
        raise
    log.progress("reading runs", len(paths), len(paths))
    return rs


def compare_runs(*, qrels: str | None = None, per_query: str | None = None, runs: Sequence[str] = (),
                 measures: Sequence[str] = (), complete: bool = False, level: int = 1, binary: float | None = None,
                 floor: float | None = None, depth: int | None = None, tests: str = "t,wilcoxon,sign",
                 correction: str = "holm", resamples: int = 10000, seed: int = 0, baseline: str | None = None,
                 alpha: float = 0.05, sign_min_diff: float = 0.0, zero_method: str = "wilcox",
                 wilcoxon_method: str = "auto", ci_method: str = "BCa", confidence: float = 0.95,
                 marker_test: str | None = None, digits: int = 4, fmt: str = "text", output: str | None = None,
                 run_id_mode: str | None = None, run_names: Sequence[str] = (), jobs: int = 1, log: Any = None,
                 inputs: InputOptions | None = None) -> str:
    """Paired significance tests between runs (``zelo_compare -R``/``-P``): the report ``zelo_compare`` prints.

    Per-query values either evaluated from ``qrels`` and ``runs`` with
    ``measures`` (trec_eval / ir-measures names, or pref_eval.py's preference
    measures: then the per-pair values of ``zelo_eval -q -o tsv``), or read
    from ``per_query`` (``zelo_eval -q -o tsv|csv|jsonl`` output). Every pair
    of runs (or each against ``baseline``) is tested per measure with
    ``tests`` (t: Student 1908; wilcoxon: Wilcoxon 1945; sign; randomization:
    Fisher 1935; bootstrap: Efron & Tibshirani 1993; tukey: randomised Tukey
    HSD, Carterette 2012) and ``correction`` per (measure, test) family (holm:
    Holm 1979; bonferroni; bh: Benjamini & Hochberg 1995); the other keywords
    are ``zelo_compare``'s options (docs/zelo_compare.md). ``fmt``: text,
    markdown, latex, csv or jsonl; the report is returned and, with
    ``output`` (``-`` = stdout), written there (``inputs``: files it must not
    overwrite; default the input paths). ``run_id_mode``/``run_names`` name
    the run files of ``-R`` (:mod:`pref_eval.io.run_ids`; refused with
    ``per_query``, whose file holds the names).
    """
    from .log import Log
    from .stats.compare import parse_tests

    log = log or Log("zelo_compare", quiet=True)
    if bool(qrels) == bool(per_query):
        raise UsageError("give either -R QRELS with run files, or -P PER_QUERY_FILE (see --help)")
    test_list = parse_tests(tests)
    mt = test_list[0]
    if marker_test is not None:
        mt = parse_tests(marker_test)[0]
        if mt not in test_list:
            raise UsageError(f"--marker-test {marker_test} is not among --tests {tests}")
    df, baseline, pref_baseline_done = _per_query_values(
        qrels=qrels, per_query=per_query, runs=runs, measures=measures, complete=complete, level=level,
        binary=binary, floor=floor, depth=depth, baseline=baseline, jobs=jobs, run_id_mode=run_id_mode,
        run_names=run_names, log=log)
    df, pref_df = _split_preference_rows(df)
    run_sel, measure_sel = _comparison_selection(df, pref_df, qrels=qrels, runs=runs, measures=measures)
    settings = dict(correction=correction, alpha=alpha, resamples=resamples, seed=seed, zero_method=zero_method,
                    wilcoxon_method=wilcoxon_method, confidence=confidence, ci_method=ci_method,
                    sign_min_diff=sign_min_diff)
    slow = [t for t in test_list if t in ("randomization", "bootstrap", "tukey")]
    if slow:
        log.stage(f"running {', '.join(slow)} ({resamples} resamples, seed {seed})")
    result = _compare_metrics(df, test_list, baseline=baseline, complete=complete, run_sel=run_sel,
                              measure_sel=measure_sel, settings=settings, jobs=jobs, log=log)
    pref_records, pref_tests = None, test_list
    if pref_df is not None:
        pref_records, pref_tests = _compare_preference_rows(
            pref_df, test_list, baseline_ignored=baseline is not None and not pref_baseline_done,
            complete=complete, run_sel=run_sel, measure_sel=measure_sel, settings=settings, log=log)
    text = _comparison_text(result, pref_records, fmt=fmt, alpha=alpha, digits=digits, correction=correction,
                            markers=(mt, mt if mt != "tukey" or not pref_tests else pref_tests[0]))
    if output is not None:
        from .output.atomic import command_output

        own = _input_options(inputs, output=output, qrels=qrels, per_query=per_query, runs=list(runs))
        with command_output(output, own) as out:
            out.write(text)
    return text


def _per_query_values(*, qrels: str | None, per_query: str | None, runs: Sequence[str], measures: Sequence[str],
                      complete: bool, level: int, binary: float | None, floor: float | None, depth: int | None,
                      baseline: str | None, jobs: int, run_id_mode: str | None, run_names: Sequence[str],
                      log: Any) -> tuple[Any, str | None, bool]:
    """The per-query table to test: evaluated from ``-R QRELS RUN...`` or read from ``-P FILE``.

    Returns ``(df, baseline, pref_baseline_done)`` (the baseline renamed to its run id).
    """
    if per_query:  # exactly one of qrels and per_query is given
        if run_id_mode is not None or run_names:
            raise UsageError("--run-id/--name apply to run files evaluated with -R (-P files hold their names)")
        from .io.perquery import read_per_query

        return read_per_query(per_query), baseline, False
    return _evaluated_values(str(qrels), runs=runs, measures=measures, complete=complete, level=level,
                             binary=binary, floor=floor, depth=depth, baseline=baseline, jobs=jobs,
                             run_id_mode=run_id_mode, run_names=run_names, log=log)


def _evaluated_values(qrels: str, *, runs: Sequence[str], measures: Sequence[str], complete: bool, level: int,
                      binary: float | None, floor: float | None, depth: int | None, baseline: str | None, jobs: int,
                      run_id_mode: str | None, run_names: Sequence[str], log: Any) -> tuple[Any, str | None, bool]:
    """``-R QRELS RUN...``: the per-query values of the runs (per pair for preference measures)."""
    if not measures:
        raise UsageError("-R needs at least one -m MEASURE")
    if len(runs) < 2:
        raise UsageError("need at least two run files to compare")
    from .io.run_ids import run_ids
    from .stats.prefvalues import needs_preference_mode

    ids = run_ids(list(runs), mode=run_id_mode or "path", names=list(run_names))
    if needs_preference_mode(measures):
        # preference measures (rpp, lexiprecision, ...) or pref_eval's metrics (p@10):
        # the values zelo_eval -q -o tsv prints for the same arguments
        if level != 1:
            raise UsageError("-l applies to trec_eval measures; with preference measures use -b/-f")
        from .stats.prefvalues import preference_values

        log.stage(f"evaluating {len(runs)} runs (preference measures)")
        if baseline is not None:
            baseline = ids[list(runs).index(baseline)] if baseline in runs else _resolve_run(baseline, ids)
        df, _ = preference_values(qrels, list(runs), list(measures), binary=binary, floor=floor,
                                  depth=depth, reference=baseline, names=ids)
        return df, baseline, baseline is not None
    for flag, val in (("-b", binary), ("-f", floor)):
        if val is not None:
            raise UsageError(f"{flag} applies to preference measures (rpp, lexiprecision, ...)")
    _refuse_summary_only(measures)
    log.stage(f"evaluating {len(runs)} runs")
    from .stats.compare import LongTable

    # the per-query rows without a DataFrame: no pandas import on zelo_compare -R (issue #13)
    df = LongTable.from_rows(_evaluate_rows(qrels, dict(zip(ids, runs, strict=True)), list(measures),
                                            complete=complete, level=level, depth=depth, jobs=jobs,
                                            warn_missing=False))  # the comparison warns per measure itself
    if baseline is not None and baseline in runs:
        baseline = ids[list(runs).index(baseline)]
    return df, baseline, False


def _refuse_summary_only(measures: Sequence[str]) -> None:
    """A measure with no per-query values (``gm_map``) cannot be tested; a nickname keeps its per-query part."""
    from .measures import parse_measure

    for m in measures:
        reqs = parse_measure(m)
        if all(r.spec.summary_only for r in reqs):
            raise UsageError(f"measure {m!r} is a summary over queries ({reqs[0].spec.formula}) "
                             "with no per-query values to test; "
                             "compare its per-query measure instead (map for gm_map, bpref for gm_bpref)")


def _resolve_run(name: str, runs: list[str]) -> str:
    """Exact run name, else a unique match on the file name / its stem."""
    if name in runs:
        return name
    cands = [r for r in runs if os.path.basename(r) == name
             or os.path.splitext(os.path.basename(r))[0] == name]
    if len(cands) == 1:
        return cands[0]
    raise UsageError(f"baseline {name!r} is not one of the runs ({', '.join(runs)})")


def _split_preference_rows(df: Any) -> tuple[Any, Any]:
    """A runi/runj table (metric rows have an empty runj) → (per-run metric rows, per-pair preference rows
    or None); zelo_eval repeats metrics as pair differences: only the per-run rows are kept for them."""
    if "run_b" not in df.columns:
        return df, None
    pref_df = df[df["run_b"] != ""]
    df = df[df["run_b"] == ""].drop(columns="run_b")
    pref_df = pref_df[~pref_df["measure"].isin(set(df["measure"]))]
    return df, (None if pref_df.empty else pref_df)


def _comparison_selection(df: Any, pref_df: Any, *, qrels: str | None, runs: Sequence[str],
                          measures: Sequence[str]) -> tuple[list[str] | None, list[str] | None]:
    """Which runs and measures to test: with ``-R`` every run and key evaluated; with ``-P`` the runs and
    measures asked for (a measure not in the file is refused)."""
    if qrels:
        # every key the evaluation produced (a name may give several columns)
        return (list(dict.fromkeys(map(str, df["run"]))) if not df.empty else None), None
    measure_sel = list(measures) if measures else None
    if measure_sel:
        known = set(df["measure"]) | (set(pref_df["measure"]) if pref_df is not None else set())
        for m in measure_sel:
            if m not in known:
                raise UsageError(f"measure {m!r} not in the per-query values (measures: {', '.join(sorted(known))})")
    return (list(runs) if runs else None), measure_sel


def _compare_metrics(df: Any, test_list: list[str], *, baseline: str | None, complete: bool,
                     run_sel: list[str] | None, measure_sel: list[str] | None, settings: dict, jobs: int,
                     log: Any) -> Any:
    """The tests on the per-run measures (:func:`pref_eval.stats.compare.compare`), or None without any."""
    from .stats.compare import compare as compare_table

    metric_measures = list(dict.fromkeys(df["measure"])) if not df.empty else []
    if measure_sel is not None:
        metric_measures = [m for m in measure_sel if m in set(metric_measures)]
    if not metric_measures:
        return None
    names = run_sel or list(dict.fromkeys(map(str, df["run"])))
    if baseline is not None:
        baseline = _resolve_run(baseline, names)
    result = compare_table(df, tests=test_list, baseline=baseline, complete=complete, runs=run_sel,
                           measures=metric_measures, **settings,
                           progress=lambda done, total: log.progress("measures", done, total), jobs=jobs)
    for m, dropped in result.dropped_queries.items():
        if dropped:
            log.warn(f"{m}: {len(dropped)} quer(y/ies) missing for some run left out "
                     f"({', '.join(dropped[:5])}{', ...' if len(dropped) > 5 else ''}); -c counts them as 0")
    for m, n in result.n_queries.items():
        if n == 0:
            log.warn(f"{m}: no query has a value for every run")
    return result


def _compare_preference_rows(pref_df: Any, test_list: list[str], *, baseline_ignored: bool, complete: bool,
                             run_sel: list[str] | None, measure_sel: list[str] | None, settings: dict,
                             log: Any) -> tuple[Any, list[str]]:
    """The tests on the per-pair preference measures: (records or None, the tests applied)."""
    from .stats.compare import compare_preferences

    pref_tests = [t for t in test_list if t != "tukey"]
    if len(pref_tests) < len(test_list):
        log.warn("the randomised Tukey HSD needs per-run values; not applied to preference measures")
    if baseline_ignored:
        log.warn("--baseline does not apply to preference measures: every pair in the file is tested")
    if not pref_tests:
        return None, pref_tests
    records, _, dropped = compare_preferences(pref_df, complete=complete, measures=measure_sel, runs=run_sel,
                                              tests=pref_tests, **settings)
    for m, d in dropped.items():
        if d:
            log.warn(f"{m}: {len(d)} quer(y/ies) missing for some pair left out; -c counts them as 0")
    return records, pref_tests


def _comparison_text(result: Any, pref_records: Any, *, fmt: str, alpha: float, digits: int, correction: str,
                     markers: tuple[str, str]) -> str:
    """The report: one CSV / JSON lines table of every record, or the tables of means with significance
    markers from the adjusted p-values of ``markers`` = (test for the metrics, test for the preference
    measures)."""
    from .output.comparisons import format_pref_table, format_table, records_csv, records_jsonl

    parts = [p for p in ((result.record_table if result is not None else None), pref_records) if p is not None]
    if not parts:
        raise UsageError("nothing to compare (no measure with values for at least two runs)")
    if fmt in ("jsonl", "csv"):
        if len(parts) > 1:
            import pandas as pd

            records = pd.concat([result.records, pref_records], ignore_index=True)
        else:
            records = parts[0]
        return records_jsonl(records, alpha) if fmt == "jsonl" else records_csv(records, alpha)
    chunks = []
    if result is not None:
        chunks.append(format_table(result, fmt, digits, markers[0]))
    if pref_records is not None and not pref_records.empty:
        chunks.append(format_pref_table(pref_records, fmt, markers[1], alpha, correction, digits))
    return "\n".join(chunks)


def compare_orderings(a: str, b: str, *, key_a: str | None = None, key_b: str | None = None, rbo_p: float = 0.9,
                      fmt: str = "text", digits: int = 4, output: str | None = None, log: Any = None,
                      inputs: InputOptions | None = None) -> str:
    """Correlation between two orderings of systems (``zelo_compare --orderings A B``): the report.

    Each file is a system-score TSV, a list, or a ``pref_aggregate`` output
    (``key_a``/``key_b``: which of its orderings, ``MEASURE[:LIST]``). The
    report gives Kendall's τ (Kendall 1938), τ_AP (Yilmaz, Aslam & Robertson,
    SIGIR 2008) and rank-biased overlap with persistence ``rbo_p`` (Webber,
    Moffat & Zobel, TOIS 2010; 0 = not computed) over the systems in both
    (:mod:`pref_eval.stats.orderings`); ``fmt`` text, markdown, csv or jsonl;
    written to ``output`` when given (``-`` = stdout).
    """
    from .io.orderings import read_ordering
    from .log import Log
    from .output.comparisons import format_orderings
    from .stats.orderings import compare_orderings as correlate

    log = log or Log("zelo_compare", quiet=True)
    ra, desc_a = read_ordering(a, key_a)
    rb, desc_b = read_ordering(b, key_b)
    if rbo_p < 0 or rbo_p >= 1:
        raise UsageError(f"--rbo-p must be in (0, 1), or 0 to skip RBO; got {rbo_p}")
    try:
        res = correlate(ra, rb, rbo_p if rbo_p > 0 else None)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if res["only_a"] or res["only_b"]:
        log.warn(f"{len(res['only_a'])} system(s) only in A and {len(res['only_b'])} only in B are left out")
    if fmt == "latex":
        raise UsageError("--orderings supports -o text, markdown, csv or jsonl")
    text = format_orderings(res, fmt, f"{a} ({desc_a})", f"{b} ({desc_b})", digits)
    if output is not None:
        from .output.atomic import command_output

        with command_output(output, _input_options(inputs, output=output, orderings=[a, b])) as out:
            out.write(text)
    return text


def _input_options(inputs: InputOptions | None, **named: Any) -> InputOptions:
    """``inputs`` when the caller gave them (a command line: every option it was given), else the function's
    own paths by parameter name, outputs first -- the files an output must not overwrite (each output is
    left out of its own entry by :func:`~pref_eval.output.atomic.inputs_besides`)."""
    if inputs is not None:
        return inputs
    found = []
    for name, v in named.items():
        vals = v if isinstance(v, (list, tuple)) else [v]
        found.append((name, [os.fspath(x) for x in vals if x is not None]))
    return found


def fit(judgments: str | os.PathLike | Sequence[str | os.PathLike], *, judgment_format: str | None = None,
        ties: str | None = None, prior: float = 0.5, weight_power: float = 1.0, agreement_weights: bool = False,
        tol: float = 1e-9, max_iter: int = 100, scale: str = "logit", elo_offset: float = 1500.0,
        dataset: str | None = None, compat: str | None = None, jobs: int = 1, scheduler: str | None = None,
        output: str | None = None, output_format: str = "tsv", qrels_output: str | None = None,
        grades: str = "0,1,2,3", bins: str = "quantile", diagnostics: str | None = None, log: Any = None,
        inputs: InputOptions | None = None, as_frame: bool = True, keep_results: bool = True) -> Any:
    """zELO scores from pairwise judgments (``zelo_fit``): a DataFrame ``qid, docno, score, se``.

    Bradley–Terry (Bradley & Terry 1952): P(b beats a) = σ(x_b − x_a); the
    scores maximise Σ_k w_k [s_k log σ(x_b − x_a) + (1 − s_k) log σ(x_a − x_b)]
    with a ``prior`` (pseudo-judgments against a virtual average document,
    0 = pure maximum likelihood per strongly connected component), per query,
    by Newton's method until the gradient is within ``tol`` (times max(1, Fisher information)) and the
    Newton step below 1e-13 of the scale (:mod:`pref_eval.zelo.fit`, "Stopping").
    ``judgments``: one path or several (every format ``zelo_fit`` reads,
    autodetected unless ``judgment_format``); ``ties``: the vote rule (default
    ``half``, ``zbench`` with ``compat="zbench"``); ``agreement_weights``:
    weight each judgment by |2s − 1| (``--weights agreement``); ``scale``:
    ``logit`` (natural log, centred per query) or ``elo`` (400/ln 10 · x +
    ``elo_offset``). ``dataset``: zbench's QueryDocuments JSONL (its queries and
    documents first, unjudged ones too); ``compat="zbench"``: zbench's own
    iteration (SE nan); ``jobs``/``scheduler``: fit blocks of queries in
    processes or on dask (same values). Documents in order of first
    appearance per query, queries in order of first appearance.

    Writing (all outputs committed together, or none): ``output`` the scores
    (``-`` = stdout; ``output_format`` ``tsv`` or ``zbench``), ``qrels_output``
    graded qrels (``grades``, ``bins`` as ``--grades``/``--bins``),
    ``diagnostics`` the per-query TSV; ``inputs`` the files they must not
    overwrite (default the judgment and dataset paths); ``log`` a
    :class:`~pref_eval.log.Log` for progress and warnings. The values and bytes
    are the ones ``zelo_fit`` prints. ``as_frame=False`` returns the columns as
    a dict of arrays instead of the DataFrame (pandas is not imported).
    ``keep_results=False`` returns None (``zelo_fit``): the scores are then not held whole when they go to a
    file (``output`` a path, ``tsv``, no ``qrels_output``, the default fit): each block of queries is written
    to the (temporary) file as it is fitted and dropped, the file committed with the others at the end.
    """
    import numpy as np

    from .log import Log
    from .output.qrels import parse_bins, parse_grades

    log = log or Log("zelo_fit", quiet=True)
    if prior < 0:
        raise UsageError("prior must be >= 0")
    if weight_power < 0:
        raise UsageError("weight_power must be >= 0")
    if compat == "zbench" and (jobs > 1 or scheduler):
        raise UsageError("--compat zbench runs zbench's iteration serially; drop --jobs/--scheduler")
    if compat == "zbench":  # zbench's iteration has none of these: a value other than the default would be unused
        unused = [flag for flag, on in (("--prior", prior != 0.5), ("--weights agreement", agreement_weights),
                                        ("--weight-power", weight_power != 1.0), ("--tol", tol != 1e-9),
                                        ("--max-iter", max_iter != 100)) if on]
        if unused:
            raise UsageError(f"{', '.join(unused)} applies only with the default fit (not with --compat zbench)")
    ties = ties or ("zbench" if compat == "zbench" else "half")
    grade_list = parse_grades(grades) if qrels_output else None
    bin_method = parse_bins(bins, len(grade_list)) if grade_list else None
    # --prior 0: scores are centred inside each strongly connected component, so one number per document
    # (a score threshold, zbench's score field) would compare documents the fit cannot compare
    if prior == 0 and bin_method is not None and bin_method[0] == "fixed":
        raise UsageError("--bins fixed: needs scores comparable across a query; with --prior 0 they are centred "
                         "per strongly connected component (use --bins quantile, which ranks by level then score, "
                         "or a prior > 0)")
    if prior == 0 and output_format == "zbench":
        raise UsageError("--output-format zbench has one score per document; with --prior 0 the scores are "
                         "centred per strongly connected component and not comparable across them (use the tsv "
                         "format, with its component and level columns, or a prior > 0)")
    paths = [judgments] if isinstance(judgments, (str, os.PathLike)) else list(judgments)
    table, n_dataset, records = _read_fit_inputs([os.fspath(p) for p in paths], fmt=judgment_format, ties=ties,
                                                 dataset=dataset, compat=compat,
                                                 want_records=output_format == "zbench", log=log)
    from .zelo.fit import count_per_query

    q, a, b, s, w = _fit_arrays(table, n_dataset, dataset=dataset, compat=compat, agreement_weights=agreement_weights)
    sizes = np.array([len(table.docs[qid]) for qid in table.queries], dtype=np.int64)
    judged = (q, a, b, s, w)
    del a, b, s, w
    if not keep_results and compat != "zbench" and output_format == "tsv" and not qrels_output and \
            output is not None and output != "-":
        own = _input_options(inputs, output=output, qrels_output=None, diagnostics=diagnostics, judgments=paths,
                             dataset=dataset)
        _fit_and_write_blocks(table, sizes, judged, prior=prior, weight_power=weight_power, tol=tol,
                              max_iter=max_iter, jobs=jobs, scheduler=scheduler, scale=scale, elo_offset=elo_offset,
                              output=output, diagnostics=diagnostics, inputs=own, log=log)
        return None
    res = _fit_scores(table.queries, table.docs, sizes, judged, compat=compat, prior=prior,
                      weight_power=weight_power, tol=tol, max_iter=max_iter, jobs=jobs, scheduler=scheduler, log=log)
    n_judgments = count_per_query(q, len(sizes))  # for --diagnostics; then the judgments are dropped
    del judged, q
    table.drop_columns()
    from .zelo.fit import to_scale

    score, se = to_scale(res.score, res.se, scale, elo_offset)
    if qrels_output:  # TREC qrels are split on whitespace: an id with a space (Xie's query texts) cannot be written
        spaced = next((x for x in [*table.queries, *(d for qid in table.queries for d in table.docs[qid])]
                       if any(c.isspace() for c in x)), None)
        if spaced is not None:
            raise UsageError(f"--qrels: the id {spaced!r} holds a space, which TREC qrels cannot hold (the score "
                             "TSV and --output-format zbench can)")
    if output is not None or qrels_output or diagnostics:
        own = _input_options(inputs, output=output, qrels_output=qrels_output, diagnostics=diagnostics,
                             judgments=paths, dataset=dataset)
        _write_fit(table, sizes, score, se, res, n_judgments=n_judgments, components=prior == 0, scale=scale,
                   records=records, output=output, output_format=output_format, qrels_output=qrels_output,
                   grades=(grade_list, bin_method), diagnostics=diagnostics, inputs=own)
    cols = {"qid": np.repeat(np.array(table.queries, dtype=object), sizes),
            "docno": [d for qid in table.queries for d in table.docs[qid]], "score": score, "se": se}
    if not keep_results:
        return None
    if not as_frame:
        return cols
    import pandas as pd

    return pd.DataFrame(cols)


def _fit_and_write_blocks(table: Any, sizes: Any, judged: tuple, *, prior: float, weight_power: float, tol: float,
                          max_iter: int, jobs: int, scheduler: str | None, scale: str, elo_offset: float, output: str,
                          diagnostics: str | None, inputs: InputOptions, log: Any) -> None:
    """``zelo_fit -o FILE`` (TSV, no ``--qrels``): the fit of :func:`_fit_scores` a block of queries at a time
    (:func:`pref_eval.zelo.fit.fit_bt_blocks`), each block's rows written to the output's temporary file as it
    is fitted and dropped -- the same bytes as fitting all and then writing, without the results of every
    document held at once; the per-query results (``--diagnostics``, the warning) are gathered. The outputs
    are committed together at the end (:func:`~pref_eval.output.atomic.command_outputs`: all or nothing)."""
    import numpy as np

    from .io.zelo_scores import HEADER
    from .output.atomic import command_outputs
    from .output.zelo_scores import write_diagnostics, write_scores_columns
    from .zelo.fit import FitResult, count_per_query, fit_bt_blocks, to_scale

    q, a, b, s, w = judged
    queries = table.queries
    docs = [table.docs[qid] for qid in queries]
    names = [n for n in FitResult.__dataclass_fields__ if n not in ("score", "se", "component", "level", "offsets")]
    per_query: dict = {n: [] for n in names}
    extra_names = (("component", "level") if prior == 0 else ()) + (("scale",) if scale == "elo" else ())
    with command_outputs([p for p in (output, diagnostics) if p], inputs) as streams:
        out = streams[0]
        out.write("\t".join(HEADER + extra_names) + "\n")
        log.stage(f"fitting {len(sizes)} queries, {len(q)} judgments")
        k = 0
        for r in fit_bt_blocks(sizes, q, a, b, s, w, prior=prior, weight_power=weight_power, tol=tol,
                               max_iter=max_iter, jobs=jobs, scheduler=scheduler, doc_ids=docs):
            nq = len(r.n_docs)
            score, se = to_scale(r.score, r.se, scale, elo_offset)
            extra = {"component": r.component, "level": r.level} if prior == 0 else {}
            if scale == "elo":
                extra["scale"] = np.full(len(score), "elo", dtype=object)
            write_scores_columns(out, queries[k:k + nq], docs[k:k + nq], score, se, extra, header=False)
            for n in names:
                per_query[n].append(getattr(r, n))
            k += nq
            del r, score, se, extra
        if k != len(queries):
            raise ValueError("the blocks' results do not cover every query")  # a bug, not bad input
        empty = np.zeros(0)
        res = FitResult(score=empty, se=empty, component=empty, level=empty,
                        offsets=np.concatenate([[0], np.cumsum(sizes)]),
                        **{n: np.concatenate(v) if v else np.zeros(0) for n, v in per_query.items()})
        _warn_fit(res, queries, tol, max_iter, log)
        if diagnostics:
            write_diagnostics(streams[1], queries, sizes, count_per_query(q, len(sizes)), res)
    table.drop_columns()


def _fit_arrays(table: Any, n_dataset: int, *, dataset: str | None, compat: str | None,
                agreement_weights: bool) -> tuple:
    """``(q, a, b, s, w)`` of ``zelo_fit``'s table as the fit takes them: the table's compact columns (narrow
    indices, scores coded while few; :meth:`~pref_eval.zelo.judgments.Judgments.arrays`), only the dataset's
    queries with ``--compat zbench``, the scores decoded where the whole column is computed with
    (zbench's iteration, agreement weights), w None when every weight is 1."""
    import numpy as np

    from .io.fastparse import release_memory

    release_memory()  # what the reader freed (its parts' columns) goes back to the OS before the fit's peak
    q, a, b, s, w = table.arrays(compact=True)  # a large file: 9 bytes a judgment
    if compat == "zbench" or agreement_weights:
        s = np.asarray(s, dtype=np.float64)
    if dataset and compat == "zbench" and len(table.queries) > n_dataset:
        keep = q < n_dataset  # dataset queries come first
        q, a, b, s, w = q[keep], a[keep], b[keep], s[keep], None if w is None else w[keep]
        table.queries = table.queries[:n_dataset]
    if compat == "zbench" and w is not None and bool(np.any(w != 1.0)):
        raise UsageError("--compat zbench: zbench's fit has no judgment weights, and a judgment file gives "
                         "\"weight\" values other than 1; drop them or use the default fit")
    if agreement_weights:
        w = np.abs(2.0 * s - 1.0) if w is None else w * np.abs(2.0 * s - 1.0)  # w None: every weight 1
    return q, a, b, s, w


def _read_fit_inputs(paths: list[str], *, fmt: str | None, ties: str, dataset: str | None, compat: str | None,
                     want_records: bool, log: Any) -> tuple[Any, int, dict]:
    """The judgment table of ``zelo_fit`` (the dataset's queries and documents first, then every judgment
    file in turn), how many queries the dataset gave, and the dataset's records by query id for
    ``--output-format zbench``."""
    from .io.judgments import read_judgments, read_zbench_dataset, read_zbench_records
    from .zelo.judgments import from_dataset

    records: dict = {}
    table = from_dataset(read_zbench_dataset(dataset) if dataset else [])
    if dataset and want_records:
        records = read_zbench_records(dataset)
    n_dataset = len(table.queries)
    for n, path in enumerate(paths, 1):
        before = len(table.queries)
        log.progress("reading judgments", n - 1, len(paths))
        read_judgments(path, fmt, ties=ties, into=table)
        log.progress("reading judgments", n, len(paths))
        if dataset and len(table.queries) > before:
            extra = table.queries[before:]
            what = "ignored, as zbench does" if compat == "zbench" else "they are fitted too"
            log.warn(f"{len(extra)} queries in {path} are not in the dataset (e.g. {extra[0]!r}); {what}")
    return table, n_dataset, records


class _ZbenchFit(NamedTuple):
    """What ``--compat zbench`` gives in place of a :class:`~pref_eval.zelo.fit.FitResult`."""

    score: Any
    se: Any


def _fit_scores(queries: list[str], table_docs: Any, sizes: Any, judged: tuple, *, compat: str | None, prior: float,
                weight_power: float, tol: float, max_iter: int, jobs: int, scheduler: str | None, log: Any) -> Any:
    """The Bradley–Terry fit of ``judged`` = (q, a, b, s, w): a FitResult (documents ranked by id within each
    query, ``table_docs[qid]``, so that the result does not depend on the line order), or zbench's iteration
    (SE nan)."""
    import numpy as np

    q, a, b, s, w = judged
    if compat == "zbench":
        from .zelo.zbench_compat import zbench_fit_queries

        q, a, b = (np.asarray(x, dtype=np.int64) for x in (q, a, b))
        score = zbench_fit_queries(sizes, q, a, b, s, queries, log)
        return _ZbenchFit(score, np.full(len(score), np.nan))
    from .zelo.fit import fit_bt_parallel

    log.stage(f"fitting {len(sizes)} queries, {len(q)} judgments")
    # doc_ids: the canonical order (independent of line order), document ranks computed a block at a time
    res = fit_bt_parallel(sizes, q, a, b, s, w, prior=prior, weight_power=weight_power, tol=tol,
                          max_iter=max_iter, jobs=jobs, scheduler=scheduler, keep_levels=prior == 0,
                          doc_ids=[table_docs[qid] for qid in queries])
    _warn_fit(res, queries, tol, max_iter, log)
    return res


SE_CONDITION_WARN = 1e8
"""zelo_fit warns about a query whose SE matrix has a condition estimate above this: its SEs may be wrong
beyond ~8 significant digits (rounding error ~1e-16 times the condition; docs/zelo_fit.md)."""


def _warn_fit(res: Any, queries: list[str], tol: float, max_iter: int, log: Any) -> None:
    """zelo_fit's warnings after a fit: queries that did not converge, queries whose SEs are ill-conditioned."""
    import numpy as np

    if not res.converged.all():
        bad = [queries[i] for i in np.flatnonzero(~res.converged)]
        log.warn(f"{len(bad)} queries did not converge in {max_iter} Newton steps (gradient tolerance {tol:g}, "
                 f"step 1e-13 of the scale; e.g. {bad[0]!r})")
    ill = np.flatnonzero(res.se_condition > SE_CONDITION_WARN)
    if len(ill):
        worst = float(np.max(res.se_condition[ill]))
        log.warn(f"the SEs of {len(ill)} queries may be wrong beyond ~8 significant digits: their Fisher information "
                 f"is ill-conditioned (condition >= {worst:.1e}; pair weights of very different sizes, "
                 f"docs/zelo_fit.md; e.g. {queries[ill[0]]!r})")


def _write_fit(table: Any, sizes: Any, score: Any, se: Any, res: Any, *, n_judgments: Any, components: bool,
               scale: str,
               records: dict,
               output: str | None, output_format: str, qrels_output: str | None, grades: tuple,
               diagnostics: str | None, inputs: InputOptions) -> None:
    """``zelo_fit``'s outputs, committed together: scores (TSV or zbench JSONL; with ``components`` the
    strongly connected components of a ``prior == 0`` fit), graded qrels, diagnostics."""
    import numpy as np

    from .output.atomic import command_outputs
    from .output.qrels import write_qrels
    from .output.zelo_scores import write_diagnostics, write_scores_columns, write_zbench_jsonl

    offsets = np.concatenate([[0], np.cumsum(sizes)])
    fitted = not isinstance(res, _ZbenchFit)
    paths = [p for p in (output, qrels_output, diagnostics) if p]
    with command_outputs(paths, inputs) as streams:
        rest = iter(streams)
        out = next(rest) if output else io.StringIO()  # without ``output``: the other outputs only
        if output_format == "tsv":
            extra = {"component": res.component, "level": res.level} if fitted and components else {}
            if scale == "elo":  # the last column 'scale' tells readers (zelo_eval -R) the scale
                extra["scale"] = np.full(len(score), "elo", dtype=object)
            write_scores_columns(out, table.queries, [table.docs[qid] for qid in table.queries], score, se, extra)
        else:
            write_zbench_jsonl(out, ((qid, [(d, score[offsets[k] + i]) for i, d in enumerate(table.docs[qid])])
                                     for k, qid in enumerate(table.queries)), records)
        if qrels_output:
            grade_list, (method, th) = grades
            # after a --prior 0 fit the whole-query order is (level, score): the levels go with the scores
            lv = res.level if fitted and components else None
            write_qrels(next(rest), ((qid, table.docs[qid], score[offsets[k]:offsets[k + 1]],
                                      *([] if lv is None else [lv[offsets[k]:offsets[k + 1]]]))
                                     for k, qid in enumerate(table.queries)), grade_list, method, th)
        if diagnostics:
            write_diagnostics(next(rest), table.queries, sizes, n_judgments,
                              res if fitted else None)


def pairs(queries: Iterable[tuple[str, Sequence[str]]] | None = None, cycles: int = 4, seed: int | None = 0, *,
          dedup: bool = False, limit: int | None = None, compat: str | None = None, dataset: str | None = None,
          run: str | None = None, depth: int | None = None, docs: str | None = None, output: str | None = None,
          output_format: str = "jsonl", log: Any = None,
          inputs: InputOptions | None = None) -> list[tuple[str, str, str]]:
    """Pairs to judge (``zelo_pairs cycles``): ``(qid, doc_a, doc_b)`` from random cycles per query.

    For each query with documents d_1..d_n, ``cycles`` random permutations π
    give the pairs (π_i, π_{i+1 mod n}) -- every document is compared twice
    per cycle, which keeps the Bradley–Terry comparison graph connected
    (zELO, Pipitone et al. 2025). ``dedup`` drops repeated pairs, ``limit``
    uses only the first ``limit`` documents of each query; same ``seed`` →
    same pairs; ``compat="zbench"`` shuffles with Python's ``random`` as zbench.
    ``queries`` yields ``(qid, [docno, ...])``; or exactly one of ``dataset``
    (zbench's QueryDocuments JSONL), ``run`` (a TREC run: the top ``depth`` by
    score) and ``docs`` (``qid docno`` lines) gives them. With ``output``
    (``-`` = stdout) the pairs are written as ``zelo_pairs`` writes them
    (``output_format`` ``jsonl`` or ``tsv``, a request file).
    """
    from .zelo.pairs import random_cycles

    if cycles < 1:
        raise UsageError("--cycles must be >= 1")
    if depth is not None and not run:
        raise UsageError("--depth applies to --run")
    given = _candidates(dataset, run, depth, docs) if queries is None else [(q, list(d)) for q, d in queries]
    for topic, pool in given:  # a document twice would be paired with itself
        _check_pool(topic, pool, str(dataset or run or docs or "queries"), docs_file=bool(docs), request_ids=False)
    got = random_cycles(given, cycles, seed, dedup=dedup, limit=limit, compat=compat)
    if output is not None:
        from .output.atomic import command_output
        from .output.pairs import write_cycle_pairs

        own = _input_options(inputs, output=output, dataset=dataset, run=run, docs=docs)
        with command_output(output, own) as out:
            write_cycle_pairs(out, got, output_format)
    if log is not None:
        log.info(f"{len(got)} pairs for {len(given)} queries")
    return got


def _candidates(dataset: str | None, run: str | None, depth: int | None,
                docs: str | None) -> list[tuple[str, list[str]]]:
    """The candidate documents per query of ``--dataset``, ``--run`` (top ``depth``) or ``--docs``."""
    given = [x for x in (dataset, run, docs) if x]
    if len(given) != 1:
        raise UsageError("give exactly one of --dataset, --run, --docs")
    if dataset:
        from .io.judgments import read_zbench_dataset

        return read_zbench_dataset(dataset)
    from .io.candidates import read_candidates, read_run_candidates

    return read_run_candidates(run, depth) if run else read_candidates(str(docs))


def pairs_init(state: str, qrels: str | None = None, *, strategy: str = "tournament", k: int | None = None,
               p: int | None = None, f: int | None = None, seed: int = 0, final_phase: bool | None = None,
               lead: float | None = None, max_per_pair: int | None = None, goal: str | None = None,
               cycles: int | None = None, batch: int | None = None, window: int | None = None,
               start: str | None = None, criterion: str | None = None, dataset: str | None = None,
               run: str | None = None, depth: int | None = None, docs: str | None = None, force: bool = False,
               inputs: InputOptions | None = None) -> Any:
    """Start a pair-selection state file (``zelo_pairs init``); returns the state object written.

    ``strategy="tournament"``: Clarke, Vtyurina & Smucker's pruning tournament
    (ICTIR 2021; top ``k`` (5), ``p`` (7) first-stage pairings, pooling
    threshold ``f`` (9); ``final_phase``: Yan et al.'s second round of the
    final pool). ``"adaptive"`` with ``goal="best"`` (the default): the double elimination of
    :mod:`pref_eval.zelo.adaptive_session` (a match ends at ``lead`` (2), at
    most ``max_per_pair`` (6) judgments of a pair); with ``goal="ranking"``: the whole-ranking
    rounds of :mod:`pref_eval.zelo.ranking_session` (a budget of ``cycles`` (4) × K pairs per topic,
    rounds of ``batch`` pairs (K/4), ``window`` (6), ``start`` (matching), ``criterion`` (discordance)).
    The documents per topic: from graded ``qrels`` (grade > 0); for the whole ranking also from
    ``dataset``, ``run`` (top ``depth``) or ``docs``, as ``zelo_pairs cycles``. An option of another
    strategy or goal is refused; an existing ``state`` only with ``force``.
    """
    from .zelo.tournament import Tournament

    if os.path.exists(state) and not force:
        raise UsageError(f"{state} exists (use --force to start over)")
    if goal is not None and strategy != "adaptive":
        raise UsageError("--goal applies to --strategy adaptive")
    kind = "ranking" if goal == "ranking" else strategy
    own: dict[str, dict[str, Any]] = {
        "tournament": {"k": k, "p": p, "f": f, "final-phase": final_phase},
        "adaptive": {"lead": lead, "max-per-pair": max_per_pair},
        "ranking": {"cycles": cycles, "batch": batch, "window": window, "start": start, "criterion": criterion,
                    "dataset": dataset, "run": run, "depth": depth, "docs": docs}}
    current = "--strategy adaptive --goal ranking" if kind == "ranking" else f"--strategy {strategy}"
    for other, opts in own.items():
        wrong = [name for name, v in opts.items() if v is not None]
        if other != kind and wrong:
            which = "--strategy adaptive --goal ranking" if other == "ranking" else f"--strategy {other}"
            raise UsageError(f"--{wrong[0]} does not apply to {current} (it belongs to {which})")
    t: Any
    if kind == "ranking":
        from .zelo.ranking_session import PARAMS, RankingSession

        given = {"cycles": cycles, "batch": batch, "window": window, "start": start, "criterion": criterion}
        t = RankingSession(seed, {key: PARAMS[key] if v is None else v for key, v in given.items()})
        if qrels is not None and (dataset or run or docs):
            raise UsageError("give one of --qrels, --dataset, --run, --docs")
        if qrels is None:
            if depth is not None and not run:
                raise UsageError("--depth applies to --run")
            if not (dataset or run or docs):
                raise UsageError("give exactly one of --qrels, --dataset, --run, --docs")
            for topic, pool in _candidates(dataset, run, depth, docs):
                _check_pool(topic, pool, str(dataset or run or docs), docs_file=bool(docs))
                t.set_pool(topic, list(pool))
    elif qrels is None:
        raise UsageError(f"--strategy {strategy} needs --qrels (the pool: documents with grade > 0)")
    elif strategy == "adaptive":
        from .zelo.adaptive_session import AdaptiveSession

        params = {"lead": 2.0 if lead is None else lead, "max_per_pair": 6 if max_per_pair is None else max_per_pair}
        t = AdaptiveSession(seed, params)
    else:
        t = Tournament(5 if k is None else k, p, f, seed, bool(final_phase))  # p, f None: 7, 9 or above k
    if qrels is not None:
        from .io.qrels import graded_documents

        for topic, grades in graded_documents(qrels).items():
            t.add_topic(topic, grades)
    from .zelo.state_lock import state_lock

    with state_lock(state):
        _save_state(state, t, _input_options(inputs, state=state, qrels=qrels, dataset=dataset, run=run, docs=docs))
    return t


def _check_pool(topic: str, pool: Sequence[str], source: str, docs_file: bool = False,
                request_ids: bool = True) -> None:
    """A topic's candidates must be distinct (a document twice would be paired with itself), and no id may
    hold white space when ``request_ids`` (a state's request lines are 'topic docA docB'): else an InputError
    naming ``source`` (and, for a ``qid docno`` file, the line that repeats the document)."""
    from collections import Counter

    for x in (topic, *pool) if request_ids else ():
        if x.split() != [x]:  # str.split: any Unicode white space (and the empty id)
            raise InputError(source, 0, f"topic {topic}: id {x!r} holds white space; zelo_pairs next writes "
                                        "'topic docA docB' lines, expected ids without spaces")
    if len(set(pool)) == len(pool):
        return
    counts = Counter(pool)
    twice = next(d for d in pool if counts[d] > 1)
    line = 0
    if docs_file:  # only on this error: find the repeat
        from .io.candidates import repeat_line

        line = repeat_line(source, topic, twice)
    raise InputError(source, line, f"topic {topic}: document {twice!r} is listed twice among the candidates")


def _save_state(state: str, t: Any, inputs: InputOptions) -> None:
    from .output.atomic import command_output

    with command_output(state, inputs) as out:
        out.write(t.to_json())


def pairs_next(state: str, *, output: str = "-", inputs: InputOptions | None = None) -> list[tuple[str, str, str]]:
    """The pairs still to judge (``zelo_pairs next``), written as a request file to ``output`` (nothing
    once the selection is over); the state is rewritten with them (the left/right draw advances the
    seeded stream; an adaptive state numbers the batch): both written, or neither."""
    from .output.atomic import command_outputs
    from .output.pairs import write_requests
    from .zelo.pair_state import load_state, next_batch

    from .zelo.state_lock import state_lock

    with state_lock(state):  # read, change, write: one process at a time
        t = load_state(state)
        req = next_batch(t)
        with command_outputs([state, output], _input_options(inputs, state=state, output=output)) as (st, out):
            st.write(t.to_json())
            write_requests(out, req)
    return req


def pairs_add(state: str, judgments: Sequence[str], *, fmt: str | None = None, log: Any = None,
              inputs: InputOptions | None = None) -> Any:
    """Add batches of judgments to a state file (``zelo_pairs add``); returns the state.

    Each file (any format ``zelo_fit`` reads, ``fmt`` as its ``--format``) is
    one batch: a batch already added (same content) changes nothing; judgments
    of pairs already judged in the stage or not requested are ignored (a
    warning on ``log`` says how many).
    """
    from .log import Log
    from .zelo.state_lock import state_lock

    log = log or Log("zelo_pairs", quiet=True)
    with state_lock(state):  # read, change, write: one process at a time (else one add would be lost)
        t = _add_files(state, judgments, fmt, log, inputs)
    log.info(f"{t.comparisons} judgments used; {len(t.outstanding())} pairs outstanding")
    return t


def _add_files(state: str, judgments: Sequence[str], fmt: str | None, log: Any, inputs: InputOptions | None) -> Any:
    """``pairs_add`` under the state's lock: load, add each file, write."""
    from .io.judgments import read_judgment_batch
    from .zelo.pair_state import add_batch, load_state

    t = load_state(state)
    for path in judgments:
        summary = add_batch(t, *read_judgment_batch(path), fmt)
        if summary is None:
            log.warn(f"{path}: this batch was already added (identical content); nothing changed")
            continue
        if summary["duplicate"] or summary["unrequested"]:
            ex = t.last_ignored
            log.warn(f"{path}: ignored {summary['duplicate']} judgments of pairs already judged in this stage and "
                     f"{summary['unrequested']} of pairs not requested in the current stage"
                     + (f" (e.g. {ex})" if ex else "") + f"; {summary['used']} used")
    _save_state(state, t, _input_options(inputs, state=state, judgments=list(judgments)))
    return t


def pairs_status(state: str, *, output: str = "-", verify: bool = False,
                 inputs: InputOptions | None = None) -> list[tuple]:
    """Per topic of a state file (``zelo_pairs status``): ``(topic, stage, pool, judged, pairs, outstanding,
    stages_left)``, written with a total line to ``output``. ``verify``: an adaptive state is also replayed
    from its judgments and refused (InputError) unless the replay gives the same state."""
    from .output.atomic import command_output
    from .output.pairs import write_status
    from .zelo.pair_state import load_state

    t = load_state(state, verify=verify)
    rows = t.status()
    with command_output(output, _input_options(inputs, output=output, state=state)) as out:
        write_status(out, rows, t.comparisons, t.ignored)
    return rows


def pairs_result(state: str, *, qrels: str | None = None, output: str = "-", verify: bool = True,
                 inputs: InputOptions | None = None) -> Any:
    """The result of a state file (``zelo_pairs result``): per finished topic its top set ``topic docno
    wins``, or with graded ``qrels`` prefj-style preference qrels; written to ``output``, the state returned.
    ``verify`` (default on, unlike :func:`pairs_status`): an adaptive state is replayed from its judgments
    first and refused unless the replay gives it byte for byte, so a result never comes from an edited state."""
    from .io.qrels import graded_documents
    from .output.atomic import command_output
    from .output.pairs import write_prefs_qrels, write_result
    from .zelo.pair_state import load_state

    t = load_state(state, verify=verify)
    if qrels and t.strategy == "adaptive-ranking":
        t.prefs_qrels({})  # refused, before the qrels are read
    prefs = None
    if qrels:
        grades = graded_documents(qrels)
        _check_result_qrels(t.topics, grades, qrels)
        prefs = t.prefs_qrels(grades)
    with command_output(output, _input_options(inputs, output=output, state=state, qrels=qrels)) as out:
        if prefs is not None:
            write_prefs_qrels(out, prefs)
        else:
            write_result(out, t.topics)
    return t


def _check_result_qrels(topics: dict[str, Any], grades: dict[str, dict[str, float]], qrels: str) -> None:
    """``result --qrels`` must get the qrels the state was started from: every topic of the state is in them
    and every document of a top set is one of their candidates (grade > 0). Else an InputError naming
    ``qrels`` (the preference qrels would silently lose the topic or its top documents)."""
    for topic, st in topics.items():
        g = grades.get(topic)
        if g is None:
            raise InputError(qrels, 0, f"topic {topic} of the state is not in this file; give the qrels the "
                                       "state was started from")
        top = (st["result"] or {}) if st["phase"] == "done" else {}
        for d in top:
            if g.get(d, 0) <= 0:
                raise InputError(qrels, 0, f"topic {topic}: document {d!r} of the top set is not graded > 0 in "
                                           "this file; give the qrels the state was started from")


def simulate(matrix: Any, reps: int = 1000, *, k: int = 1, p: int | None = None, f: int | None = None, seed: int = 0,
             final_phase: bool = False, output: str | None = None, log: Any = None,
             inputs: InputOptions | None = None) -> dict[str, Any]:
    """Clarke et al.'s pruning tournament against a preference matrix (``zelo_simulate tournament``).

    ``matrix[i][j]`` is the probability that item i is preferred to item j
    (an array, or a path read by :func:`pref_eval.io.matrix.read_probability_matrix`).
    Each of ``reps`` repetitions runs the tournament (Clarke, Vtyurina &
    Smucker, ICTIR 2021: pools of ``p``, ``f`` judgments per pair, top ``k``;
    ``final_phase``: Yan et al.'s extra final comparison) and records whether
    a best item (a Copeland winner of the matrix) was found and how many
    comparisons it took. Returns :func:`pref_eval.zelo.simulate.simulate_tournament`'s dict;
    with ``output`` (``-`` = stdout) the summary row ``zelo_simulate`` writes is written there.
    """
    from .zelo.simulate import simulate_tournament

    label = os.fspath(matrix) if isinstance(matrix, (str, os.PathLike)) else "matrix"
    m = _probability_matrix(matrix)
    r = simulate_tournament(m, reps, k=k, p=p, f=f, seed=seed, final_phase=final_phase,
                            progress=_percent_progress(log, "tournament"))
    if output is not None:
        from .output.atomic import command_output
        from .output.simulations import write_tournament

        with command_output(output, _input_options(inputs, output=output, matrix=label)) as out:
            write_tournament(out, label, reps, r)
    return r


def _probability_matrix(matrix: Any) -> Any:
    import numpy as np

    if isinstance(matrix, (str, os.PathLike)):
        from .io.matrix import read_probability_matrix

        return read_probability_matrix(os.fspath(matrix))
    return np.asarray(matrix, dtype=float)


def _percent_progress(log: Any, label: str) -> Any:
    """A progress callback ``(done, total)`` that tells ``log`` once per percent (and at the end)."""
    if log is None:
        return None
    state = {"last": -1}

    def cb(done: int, total: int) -> None:
        pct = int(100 * done / total)
        if pct != state["last"] or done == total:
            state["last"] = pct
            log.progress(label, done, total)

    return cb


SIGMA_MAX = 1e6
"""Largest ``--sigma`` of ``zelo_simulate recovery``: beyond a few hundred every simulated judgment is
already certain; the bound keeps the seed derived from round(1000 sigma) an integer."""


def _check_sigma(sigma: Sequence[float]) -> None:
    """Every ``--sigma`` in (0, SIGMA_MAX] (the truth's seed holds round(1000 sigma): a finite integer)."""
    for s in sigma:
        if not _is_number(s) or not 0 < s <= SIGMA_MAX:  # numpy scalars too (np.float32(0.6))
            raise UsageError(f"--sigma: expected numbers in (0, {SIGMA_MAX:g}], got {s!r}")


def simulate_recovery(*, ks: Sequence[int] = (25, 50, 100), sigma: Sequence[float] = (0.6, 1.5),
                      cycles: Sequence[int] = (2, 4, 8), trials: int = 100, seed: int = 0,
                      strategy: str = "cycles", window: int | None = None, start: str | None = None,
                      batch: int | None = None, criterion: str | None = None, output: str | None = None,
                      log: Any = None, inputs: InputOptions | None = None) -> list[dict[str, Any]]:
    """Recovery of Bradley–Terry rankings from sparse pairs (``zelo_simulate recovery``).

    For every (K documents, σ of the true scores, cycles) cell, ``trials``
    simulations (:func:`pref_eval.zelo.simulate.recovery`): judgments drawn
    for random cycles (``strategy="adaptive"``: adaptive pairs with the same
    budget), fitted, and compared with the dense-matrix fit and the truth by
    Kendall's τ and the top-10 overlap. Returns one dict per cell (its keys,
    and the per-trial arrays); with ``output`` each row is written (and
    flushed) as it is computed, a line on ``log`` per cell. The adaptive
    strategy's ``window``, ``start``, ``batch`` and ``criterion`` (None: its
    defaults) are refused with ``strategy="cycles"``.
    """
    from .zelo.simulate import recovery

    given = {k: v for k, v in {"window": window, "start": start, "batch": batch, "criterion": criterion}.items()
             if v is not None}
    if given and strategy != "adaptive":
        raise UsageError(f"--{next(iter(given))} applies only to --strategy adaptive")
    if strategy not in ("cycles", "adaptive"):
        raise UsageError(f"unknown strategy {strategy!r}")
    if start is not None and start not in ("matching", "cycle"):
        raise UsageError(f"--start: expected matching or cycle, got {start!r}")
    if criterion is not None and criterion not in ("discordance", "uncertainty", "rowsum"):
        raise UsageError(f"--criterion: expected discordance, uncertainty or rowsum, got {criterion!r}")
    for name in ("window", "batch"):
        v = given.get(name)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise UsageError(f"--{name}: expected an integer >= 1, got {v!r}")
    _check_sigma(sigma)
    params: dict[str, Any] = dict(given, strategy=strategy)
    cells = [(k, s, c) for k in ks for s in sigma for c in cycles]
    if strategy == "adaptive":
        for k, c in sorted({(k, c) for k, _, c in cells}):
            if c * k > k * (k - 1) // 2:
                hint = f"use --cycles ≤ {(k - 1) // 2}" if k >= 3 else "use --K ≥ 3 or --strategy cycles"
                raise UsageError(f"--cycles {c} with --K {k}: the adaptive strategy judges each pair at most once, "
                                 f"and {c}×{k} = {c * k} pairs exceed the {k * (k - 1) // 2} distinct pairs of "
                                 f"{k} documents ({hint})")
    got: list[dict[str, Any]] = []
    if output is None:
        for k, s, c in cells:
            got.append({"K": k, "sigma": s, "cycles": c, **recovery(k, s, c, trials, seed=seed, **params)})
        return got
    from .output.atomic import command_output
    from .output.simulations import RECOVERY_HEADER, recovery_row

    with command_output(output, _input_options(inputs, output=output)) as out:
        out.write(RECOVERY_HEADER)
        for i, (k, s, c) in enumerate(cells, start=1):
            r = recovery(k, s, c, trials, seed=seed, **params)
            got.append({"K": k, "sigma": s, "cycles": c, **r})
            out.write(recovery_row(k, s, c, trials, r))
            out.flush()
            if log is not None:
                log.info(f"recovery: {i}/{len(cells)} cells (K={k}, sigma={s:g}, cycles={c})")
    return got


_ALGO_PARAMS = {"dts": {"alpha"}, "mergedts": {"alpha", "batch", "c"}, "round-efficient": {"delta"}}
_BANDIT_DEFAULTS = {"dts": {"alpha": 0.8 ** 7}, "mergedts": {"alpha": 0.8 ** 6, "batch": 16, "c": 4_000_000.0},
                    "round-efficient": {"delta": 0.2}}


def _case_or_matrix(case: str | None, matrix: Any) -> tuple[Any, str]:
    """Yan et al.'s Case A/B matrix, or the given one (a path or an array): (matrix, its label)."""
    if (case is None) == (matrix is None):
        raise UsageError("give exactly one of --case and --matrix")
    if case is not None:
        from .zelo.bandits import case_matrix

        return case_matrix(case), case.upper()
    return _probability_matrix(matrix), (os.fspath(matrix) if isinstance(matrix, (str, os.PathLike)) else "matrix")


def _write_summary(rows: list[dict[str, Any]], output: str | None, inputs: InputOptions) -> None:
    if output is None:
        return
    from .output.atomic import command_output
    from .output.simulations import write_summary_rows

    with command_output(output, inputs) as out:
        write_summary_rows(out, rows)


def simulate_bandit(algorithm: str, *, case: str | None = None, matrix: Any = None, reps: int = 1000,
                    budget: int = 1000, seed: int = 0, alpha: float | None = None, batch: int | None = None,
                    c: float | None = None, delta: float | None = None, output: str | None = None,
                    log: Any = None, inputs: InputOptions | None = None) -> dict[str, Any]:
    """A dueling-bandit algorithm against a matrix (``zelo_simulate bandit``; Yan et al. 2022, Figure 3).

    ``algorithm``: ``dts`` (Double Thompson Sampling, Wu & Liu 2016),
    ``mergedts`` (Li et al. 2020) or ``round-efficient`` (Lin & Lu 2018),
    each with its own parameters (``alpha``; ``alpha``, ``batch``, ``c``;
    ``delta``; another algorithm's parameter is refused), ``budget``
    comparisons per repetition, against Case ``A``/``B`` or ``matrix``.
    Returns the summary row (:data:`pref_eval.zelo.figure3.COLUMNS`), written to ``output`` when given.
    """
    from .zelo.bandits import simulate_bandit as run_bandit
    from .zelo.figure3 import summarise

    if (case is None) == (matrix is None):
        raise UsageError("give exactly one of --case and --matrix")
    given = {k: v for k, v in {"alpha": alpha, "batch": batch, "c": c, "delta": delta}.items() if v is not None}
    extra = sorted(set(given) - _ALGO_PARAMS[algorithm])
    if extra:
        raise UsageError(f"--{extra[0]} does not apply to --algorithm {algorithm}")
    params = {**_BANDIT_DEFAULTS[algorithm], **given}
    if "c" in params:
        params["C"] = params.pop("c")
    m, label = _case_or_matrix(case, matrix)
    r = run_bandit(algorithm, m, reps, seed=seed, T=budget, progress=_percent_progress(log, algorithm), **params)
    row = summarise(algorithm, label, r)
    _write_summary([row], output, _input_options(inputs, output=output, matrix=None if case else label))
    return row


def simulate_adaptive(*, case: str | None = None, matrix: Any = None, reps: int = 1000, seed: int = 0,
                      lead: float = 2.0, batch: int = 1, max_per_pair: int = 6, max_per_match: int = 5,
                      lives: int = 2, final: int = 6, final_lead: float = 3.0, output: str | None = None,
                      log: Any = None, inputs: InputOptions | None = None) -> dict[str, Any]:
    """The adaptive best-item strategy against a matrix (``zelo_simulate adaptive``).

    Double elimination seeded by the Bradley–Terry posterior, matches that
    end at a ``lead`` of wins (at most ``max_per_match`` judgments, ``batch``
    per round, ``max_per_pair`` of one pair), ``lives`` losses, then an
    all-pairs final of ``final`` items to ``final_lead``
    (:mod:`pref_eval.zelo.adaptive`). Returns the summary row (columns as for
    :func:`simulate_bandit`), written to ``output`` when given.
    """
    from .zelo.adaptive import simulate_adaptive as run_adaptive
    from .zelo.figure3 import summarise

    m, label = _case_or_matrix(case, matrix)
    r = run_adaptive(m, reps, seed=seed, progress=_percent_progress(log, "adaptive"), lead=lead, batch=batch,
                     max_per_pair=max_per_pair, max_per_match=max_per_match, lives=lives, final=final,
                     final_lead=final_lead)
    row = summarise("adaptive", label, r)
    _write_summary([row], output, _input_options(inputs, output=output, matrix=None if case else label))
    return row


def simulate_figure3(reps: int = 1000, seed: int = 0,
                     algorithms: Sequence[str] = ("dts", "mergedts", "round-efficient", "tournament",
                                                  "tournament-final", "adaptive"), *,
                     output: str | None = None, log: Any = None,
                     inputs: InputOptions | None = None) -> list[dict[str, Any]]:
    """Yan et al.'s Figure 3 (``zelo_simulate figure3``): every algorithm of ``algorithms`` on Case A and
    Case B (T = 1,000; :func:`pref_eval.zelo.figure3.figure3`); the rows, written to ``output`` when given."""
    from .zelo.figure3 import ROWS, figure3

    algos = tuple(algorithms)
    if not algos:
        raise UsageError("--algorithms is empty")
    bad = [a for a in algos if a not in ROWS]
    if bad:
        raise UsageError(f"--algorithms: unknown {bad[0]!r} (expected some of {', '.join(ROWS)})")
    progress = None if log is None else (lambda label, d, t: log.progress(label, d, t))
    rows = figure3(reps, seed, algos, progress=progress)
    _write_summary(rows, output, _input_options(inputs, output=output))
    return rows


class PlotImage(NamedTuple):
    """Where and how ``zelo_plot`` draws: the image file (``-`` = standard output), its size in inches, its
    resolution (PNG), the title (``None``: one describing the data) and the format ``fmt`` (``png``, ``svg`` or
    ``pdf``; ``None``: by the file's extension; needed for ``-``; refused when it contradicts the extension)."""

    output: str
    width: float
    height: float
    dpi: float = 100.0
    title: str | None = None
    fmt: str | None = None


def _plot_check(image: PlotImage, own: InputOptions) -> None:
    """Refuse a bad extension, a PNG too large to draw (:func:`pref_eval.plot.png.check_png_size`) or an
    output that is an input before any work."""
    from .output.atomic import inputs_besides, preflight
    from .plot.output import image_format

    if image_format(image.output, image.fmt) == "png":
        from .plot.png import check_png_size

        check_png_size(image.width, image.height, image.dpi)
    preflight(image.output, inputs_besides(image.output, own))


def _plot_end(fig: Any, image: PlotImage, own: InputOptions, log: Any) -> None:
    """Save a :class:`pref_eval.plot.canvas.Canvas` (:func:`pref_eval.plot.output.save_canvas`)."""
    from .output.atomic import inputs_besides, is_stdout
    from .plot.output import save_canvas


    warned = save_canvas(fig, image.output, image.dpi, inputs_besides(image.output, own), image.fmt)
    if log is not None:
        for line in warned:
            log.warn(line)
        log.info("wrote the image to standard output" if is_stdout(image.output) else f"wrote {image.output}")


def plot_matrix(judgments: Sequence[str], image: PlotImage, *, fmt: str | None = None, ties: str = "half",
                qid: str | None = None, scores: str | None = None, prior: float = 0.5, log: Any = None,
                inputs: InputOptions | None = None) -> Any:
    """zbench's K×K comparison matrix of one query (``zelo_plot matrix``): cell (i, j) is the share of the
    comparisons between i and j that i won, documents in input and in zELO order (a Bradley–Terry fit
    with ``prior``, or the ``scores`` file of ``zelo_fit``); drawn on :class:`pref_eval.plot.canvas.Canvas`,
    saved to ``image`` and returned."""
    from .io.judgments import read_judgments
    from .plot.matrix import draw_matrix, share_matrix, win_matrix, zelo_order

    from .plot.fonts import TextMeasure

    own = _input_options(inputs, output=image.output, judgments=list(judgments), scores=scores)
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before reading
    judg = None
    for path in judgments:
        judg = read_judgments(path, fmt, ties=ties, into=judg)
    if judg is None or not judg.queries:
        raise UsageError("the judgment files hold no judgments")
    qid = qid or judg.queries[0]
    docs, wins = win_matrix(judg, qid)
    given = None
    if scores:
        from .plot.scores import read_scores_with_se

        table = read_scores_with_se(scores)
        if qid not in table:
            raise UsageError(f"query {qid!r} is not in {scores}")
        given = dict(zip(table[qid][0], table[qid][1], strict=False))
    order, x = zelo_order(judg, qid, docs, given, prior=prior)
    canvas = draw_matrix(docs, share_matrix(wins), order, x, qid, (image.width, image.height), image.title, measure)
    _plot_end(canvas, image, own, log)
    return canvas


def plot_scores(scores: str, image: PlotImage, *, queries: Sequence[str] = (), max_queries: int = 3,
                top: int | None = None, confidence: float = 0.95, log: Any = None,
                inputs: InputOptions | None = None) -> Any:
    """zELO scores with intervals score ± z·se, z = Φ⁻¹(1 − (1 − confidence)/2), one panel per query
    (``zelo_plot scores``; ``queries``, else the first ``max_queries``; the ``top`` documents).

    Drawn on pref_eval's own :class:`pref_eval.plot.canvas.Canvas` (PNG by Pillow, SVG as text, PDF through
    matplotlib), which is saved to ``image`` and returned."""
    from .plot.fonts import TextMeasure
    from .plot.scores import draw_scores, read_scores_and_scale, select_queries

    own = _input_options(inputs, output=image.output, scores=scores)
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before reading
    data, elo = read_scores_and_scale(scores)
    chosen = select_queries(list(data), tuple(queries), max_queries)
    canvas = draw_scores(data, chosen, confidence, top, (image.width, image.height), image.title, measure,
                         elo=elo)
    _plot_end(canvas, image, own, log)
    return canvas


class PlotValues(NamedTuple):
    """The per-query values ``zelo_plot systems|pairs`` test: runs evaluated against ``qrels`` with
    ``measure``, or the ``per_query`` table; the paired ``test``, ``correction``, ``alpha``, ``seed``."""

    qrels: str | None = None
    per_query: str | None = None
    runs: tuple[str, ...] = ()
    measure: str | None = None
    complete: bool = False
    test: str = "t"
    correction: str = "holm"
    alpha: float = 0.05
    seed: int = 0
    run_id_mode: str = "path"
    run_names: tuple[str, ...] = ()


def _plot_values(v: PlotValues, log: Any) -> tuple[Any, str]:
    from .plot.data import load_values

    if log is not None:
        log.stage(f"reading values ({len(v.runs)} runs)" if v.runs else "reading values")
    return load_values(v.qrels, v.runs, v.per_query, v.measure, v.complete, v.run_id_mode, v.run_names, log=log)


def plot_systems(values: PlotValues, image: PlotImage, *, ci: str = "t", confidence: float = 0.95,
                 log: Any = None, inputs: InputOptions | None = None) -> Any:
    """Runs ordered by a measure with ``confidence`` intervals of their means (Student t, or BCa
    bootstrap) and significance groups (``zelo_plot systems``): runs sharing a letter are not
    significantly different by ``values.test`` with ``values.correction`` over all pairs. Drawn on
    :class:`pref_eval.plot.canvas.Canvas` (as ``plot_scores``), saved to ``image`` and returned."""
    import numpy as np

    from .plot.data import paired_table, pairwise_tests
    from .plot.systems import draw_systems, letter_groups, mean_intervals, significant_matrix
    from .stats.compare import CORRECTION_LABELS, TEST_LABELS

    from .plot.fonts import TextMeasure

    own = _input_options(inputs, output=image.output, qrels=values.qrels, per_query=values.per_query,
                         runs=list(values.runs))
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before evaluating
    df, name = _plot_values(values, log)
    wide = paired_table(df, values.complete)
    run_list = list(wide.columns)
    means, low, high = mean_intervals(wide, confidence, ci, values.seed)
    order = np.argsort(-means, kind="stable")
    letters, legend = ["a"], f"{confidence:.0%} intervals"
    if len(run_list) >= 2:
        test, correction, alpha = values.test, values.correction, values.alpha
        if log is not None:
            log.stage(f"{test} tests over {len(run_list) * (len(run_list) - 1) // 2} pairs")
        records = pairwise_tests(df, test, correction, alpha, values.seed, values.complete)
        letters = letter_groups(significant_matrix(records, run_list, alpha), order)
        legend = (f"{confidence:.0%} {'t' if ci == 't' else 'bootstrap'} intervals; same letter = not "
                  f"significantly different ({TEST_LABELS.get(test, test)}, "
                  f"{CORRECTION_LABELS.get(correction, correction)}, α = {alpha:g})")
    canvas = draw_systems(run_list, means, low, high, letters, name, len(wide), legend,
                          (image.width, image.height), image.title, measure)
    _plot_end(canvas, image, own, log)
    return canvas


def plot_pairs(values: PlotValues, image: PlotImage, *, compare_file: str | None = None, value: str = "p_adjusted",
               log: Any = None, inputs: InputOptions | None = None) -> Any:
    """Heatmap of pairwise p-values or mean differences between runs (``zelo_plot pairs``): from a
    ``zelo_compare -o jsonl`` file, or computed from ``values`` with its paired test and correction.
    Drawn on :class:`pref_eval.plot.canvas.Canvas` (as ``plot_scores``), saved to ``image`` and returned."""
    from .plot.data import pairwise_tests, read_compare_jsonl, select_records
    from .plot.pairs import draw_pairs, pair_matrix

    from .plot.fonts import TextMeasure

    own = _input_options(inputs, output=image.output, compare=compare_file, qrels=values.qrels,
                         per_query=values.per_query, runs=list(values.runs))
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before reading
    if compare_file is not None:
        if values.qrels is not None or values.per_query is not None or values.runs:
            raise UsageError("give either -C COMPARE_JSONL or -R/-P, not both")
        records, name, test_used = select_records(read_compare_jsonl(compare_file), values.measure,
                                                  None if values.test == "t" else values.test, compare_file)
    else:
        df, name = _plot_values(values, log)
        n = len(set(df["run"]))
        if n < 2:
            raise UsageError("need at least two runs to compare")
        if log is not None:
            log.stage(f"{values.test} tests over {n * (n - 1) // 2} pairs")
        records = pairwise_tests(df, values.test, values.correction, values.alpha, values.seed, values.complete)
        test_used = values.test
    run_list, m = pair_matrix(records, value)
    pv = pair_matrix(records, "p_adjusted")[1] if value == "mean_diff" else None
    canvas = draw_pairs(run_list, m, value, values.alpha, name, test_used, (image.width, image.height),
                        image.title, pv, measure)
    _plot_end(canvas, image, own, log)
    return canvas


def plot_calibration(agree_file: str, image: PlotImage, *, judge: str | None = None, log: Any = None,
                     inputs: InputOptions | None = None) -> Any:
    """Reliability diagram of a judge from ``zelo_agree -o jsonl`` calibration records (``zelo_plot
    calibration``): the reference's observed mean against the judge's predicted μ per
    bucket, and the stacked shares of the reference's levels 0, (0,1/2), 1/2, (1/2,1), 1; drawn on
    :class:`pref_eval.plot.canvas.Canvas`, saved to ``image`` and returned."""
    from .io.agree_records import read_agree_jsonl
    from .plot.calibration import draw_calibration, select_calibration

    from .plot.fonts import TextMeasure

    own = _input_options(inputs, output=image.output, agree=agree_file)
    _plot_check(image, own)
    measure = TextMeasure()  # the font first: without the plot extra, stop before reading
    data = select_calibration(read_agree_jsonl(agree_file), judge, agree_file)
    canvas = draw_calibration(data, (image.width, image.height), image.title, measure)
    _plot_end(canvas, image, own, log)
    return canvas


def preferences(qrels: str | os.PathLike, runs: Sequence[str | os.PathLike],
                measures: Sequence[str] | None = None, *, binary: int | None = None, floor: int | None = None,
                per_query: bool = True, summary: bool = True) -> Any:
    """Preference evaluation of every pair of runs (``zelo_eval`` in preference mode, ``-o tsv``).

    Returns the DataFrame ``runi, runj, qid, measure, value`` with the rows of
    ``zelo_eval -R QRELS -o tsv [-q] [-m M ...] RUN ...``: metric rows (``runj``
    empty) per run, then preference rows per pair of runs i < j in the given
    order; ``qid == "all"`` rows are the means over queries. Measures are
    pref_eval.py's (RPP: Diaz & Ferraro, SIGIR 2022; lexicographic recall and
    precision: Diaz, Ekstrand & Mitra, TORS 2025; Diaz, EVIA 2023; formulas in
    ``docs/measures.md``); default: all of them. ``binary`` (``-b``) and
    ``floor`` (``-f``) as on the command line. A value > 0: run i is better.
    """
    import pandas as pd

    from .io.qrels import read_subtopic_qrels
    from .io.runs import read_run
    from .output.preferences import pref_rows
    from .run_preferences.data import prepare_qrels
    from .io.run_ids import run_ids
    from .run_preferences.evaluate import evaluate_preferences
    from .run_preferences.names import resolve

    paths = [os.fspath(r) for r in runs]
    names = run_ids(paths)
    sel = resolve(list(measures or ()), None if measures else "none")
    q = read_subtopic_qrels(os.fspath(qrels))
    rs = [read_run(p, name=n) for p, n in zip(paths, names, strict=True)]
    res = evaluate_preferences(prepare_qrels(q, binary, floor), rs, names, sel)
    rows = list(pref_rows(res, per_query=per_query, summary=summary))
    return pd.DataFrame(rows, columns=["runi", "runj", "qid", "measure", "value"])
