"""Python API mirroring the command lines.

>>> import pref_eval
>>> df = pref_eval.evaluate("qrels/sample.qrels", ["runs/bm25.run"], ["map", "nDCG@10"])
>>> list(df.columns)
['run', 'qid', 'measure', 'value']
"""
from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from .errors import UsageError


def _is_number(x: Any) -> bool:
    """A real number, numpy scalars included (``np.float32(0.5)``), not a bool."""
    import numbers

    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def _load_qrels(qrels: Any, subtopics: bool = False):
    from .io.qrels import Qrels, qrels_from_records, read_qrels, with_subtopics

    if isinstance(qrels, Qrels):
        return with_subtopics(qrels) if subtopics and qrels.subtopics is None else qrels
    if isinstance(qrels, (str, os.PathLike)):
        return read_qrels(qrels, subtopics=subtopics)
    return qrels_from_records(qrels, subtopics=subtopics)


def _is_record(x: Any) -> bool:
    """One run line: a ScoredDoc-like namedtuple or a (qid, docno, score) tuple."""
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


def _load_runs(runs: Any) -> list:
    """Runs in every shape ir-measures takes, or several of them.

    One run: a path, a :class:`~pref_eval.io.runs.Run`, a DataFrame
    (``query_id, doc_id, score``), a dict ``{qid: {doc: score}}`` (numpy
    scalars allowed), a list or generator of ``ScoredDoc`` namedtuples or
    ``(qid, doc, score)`` tuples (what ``ir_measures.read_trec_run`` yields).
    Several runs: a mapping ``{name: run}`` or a list of paths/Runs/DataFrames/dicts.
    An empty run is refused as the command lines refuse an empty run file.
    """
    from .io.runs import Run, read_run, run_from_records

    def one(x: Any, name: str | None = None) -> Run:
        if isinstance(x, Run):
            return x
        if isinstance(x, (str, os.PathLike)):
            return read_run(x, name=name)
        r = run_from_records(x, name=name or "run")
        if len(r.docno) == 0:
            from .errors import InputError

            raise InputError(name or "run", 0, "empty run (expected (qid, docno, score) records)")
        return r

    if isinstance(runs, (str, os.PathLike)):
        from .io.run_ids import run_ids

        return [one(runs, run_ids([os.fspath(runs)])[0])]
    if isinstance(runs, Run) or hasattr(runs, "columns"):
        return [one(runs)]
    if isinstance(runs, Mapping):
        if _is_run_dict(runs):
            return [one(runs)]  # a single {qid: {doc: score}}
        return [one(v, str(k)) for k, v in runs.items()]
    if isinstance(runs, Iterator) or not isinstance(runs, Sequence):
        if not isinstance(runs, Iterable):
            raise UsageError("runs: expected a path, a DataFrame, a dict or a list of those")
        runs = list(runs)  # a generator of ScoredDoc records is one run
    if not runs or _is_record(runs[0]):
        return [one(runs)]
    from .io.run_ids import shortest_unique_suffixes

    paths = [i for i, x in enumerate(runs) if isinstance(x, (str, os.PathLike))]
    ids = dict(zip(paths, shortest_unique_suffixes([os.fspath(runs[i]) for i in paths]), strict=True))
    return [one(x, ids.get(i)) for i, x in enumerate(runs)]


def _measure_names(measures: Any) -> list[str]:
    """Names as strings: ir-measures measure objects are taken by their ``str`` (``nDCG@10``)."""
    if isinstance(measures, str) or not isinstance(measures, Iterable):
        measures = [measures]
    return [m if isinstance(m, str) else str(m) for m in measures]


def evaluate_run_group(piece: tuple) -> list:
    """Metric evaluation of some runs: ``[(result, topics missing, qrels topics, topics evaluated)]`` per run.

    ``piece`` = (:class:`~pref_eval.io.qrels.Qrels`, runs (paths or
    :class:`~pref_eval.io.runs.Run`), run ids, measure names, complete, level,
    depth[, judged_only, trec9, extra inputs]). Each run is ranked against the
    qrels on its own, so groups of runs can be evaluated in other processes
    (``--jobs``) or on dask workers without changing a result: the unit of
    work of :func:`pref_eval.parallel.ordered_map` for ``zelo_eval`` and
    :func:`evaluate`.
    """
    from .collection import build_collection
    from .engine import evaluate_ranked
    from .io.runs import read_run
    from .measures import EvalContext, parse_measures

    q, runs, ids, names, complete, level, depth, *more = piece
    judged_only, trec9, extra = (list(more) + [False, False, None][len(more):])[:3]
    rs = [read_run(r, name=n) if isinstance(r, (str, os.PathLike)) else r for r, n in zip(runs, ids, strict=True)]
    col = build_collection(q, rs, complete=complete, depth=depth, judged_only=judged_only, trec9=trec9)
    ctx = EvalContext(level=level, trec9=trec9, complete=complete, extra=extra or {})
    requests = parse_measures(list(names))
    return [(evaluate_ranked(r, requests, ctx), len(miss), col.qrels.nq, r.nq)
            for r, miss in zip(col.runs, col.missing, strict=True)]


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

    from .collection import build_collection
    from .engine import evaluate_ranked
    from .measures import EvalContext, parse_measures
    from .measures.base import needs_subtopics
    from .output.table import HEADER, long_rows

    requests = parse_measures(_measure_names(measures))
    q = _load_qrels(qrels, subtopics=needs_subtopics(requests))
    rs = _load_runs(runs)
    names = [r.name for r in rs]
    if len(set(names)) != len(names):
        raise UsageError(f"two runs share a name: {sorted(n for n in set(names) if names.count(n) > 1)}")
    extra = extra_inputs(requests, judgments=judgments, judgments_format=judgments_format, best=best)
    if jobs > 1 and len(rs) > 1:
        from .parallel import ordered_map, split_even

        mnames = _measure_names(measures)
        pieces = [(q, rs[a:b], names[a:b], mnames, complete, level, depth, judged_only, trec9, extra)
                  for a, b in split_even([len(r.docno) for r in rs], jobs)]
        results = [x[0] for part in ordered_map(evaluate_run_group, pieces, jobs=jobs) for x in part]
    else:
        col = build_collection(q, rs, complete=complete, depth=depth, judged_only=judged_only, trec9=trec9)
        ctx = EvalContext(level=level, trec9=trec9, complete=complete, extra=extra)
        results = [evaluate_ranked(r, requests, ctx) for r in col.runs]
    rows = list(long_rows(results, per_query=True, summary=summary, print_missing=not trec9))
    return pd.DataFrame(rows, columns=list(HEADER))


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
                  prompt=prompt, both_orders=both_orders, ties=ties or "half", api_key_env=api_key_env,
                  retry_failed=retry_failed, dry_run=dry_run, limits=limits, progress=log.interactive, warn=log.warn)
    if dry_run:
        import sys

        sess = run(setup)
        for line in summary_lines(sess):
            sys.stdout.write(line + "\n")
        return sess
    from .output.atomic import output_file

    inputs = {k: [v] for k, v in (("PAIRS", pairs), ("--state", state), ("--queries", queries), ("--docs", docs),
                                  ("--prompt", prompt), ("--store", store)) if v}
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
                 prompt: str | None = None) -> int:
    """Write the store's answers as canonical JSONL (``zelo_judge export``); returns the number of pairs."""
    from .cli.common import output_stream
    from .judge.export import export_lines
    from .judge.prompt import prompt_hash
    from .judge.run import read_template
    from .judge.spec import parse_spec
    from .judge.store import Store

    phash = prompt_hash(read_template(prompt))
    names = [parse_spec(s).name for s in judges] if judges else None
    st = Store(store, readonly=True)
    n = 0
    try:
        with output_stream(output) as out:
            for line in export_lines(st, phash, names):
                out.write(line)
                n += 1
    finally:
        st.close()
    return n


class Metric(NamedTuple):
    """One per-query value, as ir-measures' ``Metric`` (``query_id, measure, value``)."""

    query_id: str
    measure: str
    value: float


def iter_calc(measures: Any, qrels: Any, run: Any, **options: Any) -> Iterator[Metric]:
    """Per-query values of one run, as ``ir_measures.iter_calc(measures, qrels, run)``.

    ``measures`` as for :func:`evaluate` (names or ir-measures objects),
    ``qrels``/``run`` in any shape :func:`evaluate` takes; ``options`` are
    :func:`evaluate`'s keywords. Yields :class:`Metric` in query order.
    """
    df = evaluate(qrels, {"run": run}, measures, **options)
    for q, m, v in zip(df.qid, df.measure, df.value, strict=True):
        yield Metric(str(q), str(m), v)


def calc_aggregate(measures: Any, qrels: Any, run: Any, **options: Any) -> dict[str, Any]:
    """Summary value of each measure column for one run, as ``ir_measures.calc_aggregate``.

    The summary is trec_eval's (mean over the evaluated queries for most
    measures, a sum for counts, a geometric mean for ``gm_*``); keys are the
    printed names (``nDCG@10``, ``P_5``).
    """
    df = evaluate(qrels, {"run": run}, measures, summary=True, **options)
    allrows = df[df.qid == "all"]
    return dict(zip(allrows.measure, allrows.value, strict=True))


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
):
    """How far a judge can be trusted: agreement of judgment files with the first one (``zelo_agree``).

    ``judgments``: two or more files in any format ``zelo_fit`` reads (the
    first is the reference). Returns a list of
    :class:`pref_eval.agree.records.Record` (``judge_a, judge_b, level,
    statistic, value, ci_low, ci_high, n``); see ``docs/zelo_agree.md``.
    """
    from .agree.report import agreement_report

    return agreement_report(
        list(judgments), names=None if names is None else list(names), fmt=fmt, ties=ties, levels=list(levels),
        resamples=resamples, seed=seed, confidence=confidence, buckets=buckets, calibration=calibration,
        consensus_min=consensus_min, prior=prior, top_k=top_k, runs=list(runs), measure=measure, grades=grades,
        tests=tests, correction=correction, alpha=alpha)


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


def fit(judgments: str | os.PathLike | Sequence[str | os.PathLike], *, judgment_format: str | None = None,
        ties: str = "half", prior: float = 0.5, weight_power: float = 1.0, agreement_weights: bool = False,
        tol: float = 1e-9, max_iter: int = 100, scale: str = "logit", elo_offset: float = 1500.0) -> Any:
    """zELO scores from pairwise judgments (``zelo_fit``): a DataFrame ``qid, docno, score, se``.

    Bradley–Terry (Bradley & Terry 1952): P(b beats a) = σ(x_b − x_a); the
    scores maximise Σ_k w_k [s_k log σ(x_b − x_a) + (1 − s_k) log σ(x_a − x_b)]
    with a ``prior`` (pseudo-judgments against a virtual average document,
    0 = pure maximum likelihood per strongly connected component), per query,
    by Newton's method to gradient tolerance ``tol`` (:mod:`pref_eval.zelo.fit`).
    ``judgments``: one path or several (every format ``zelo_fit`` reads,
    autodetected unless ``judgment_format``); ``ties``: the vote rule;
    ``agreement_weights``: weight each judgment by |2s − 1| (``--weights
    agreement``); ``scale``: ``logit`` (natural log, centred per query) or
    ``elo`` (400/ln 10 · x + ``elo_offset``). Documents in order of first
    appearance per query, queries in order of first appearance; the values
    are the ones ``zelo_fit`` prints.
    """
    import numpy as np
    import pandas as pd

    from .io.judgments import read_judgments
    from .zelo.fit import fit_bt, id_ranks, to_scale
    from .zelo.judgments import from_dataset

    if prior < 0:
        raise UsageError("prior must be >= 0")
    if weight_power < 0:
        raise UsageError("weight_power must be >= 0")
    paths = [judgments] if isinstance(judgments, (str, os.PathLike)) else list(judgments)
    table = from_dataset([])
    for path in paths:
        read_judgments(os.fspath(path), judgment_format, ties=ties, into=table)
    q, a, b, s, w = table.arrays()
    if agreement_weights:
        w = w * np.abs(2.0 * s - 1.0)
    sizes = np.array([len(table.docs[qid]) for qid in table.queries], dtype=np.int64)
    res = fit_bt(sizes, q, a, b, s, w, prior=prior, weight_power=weight_power, tol=tol, max_iter=max_iter,
                 doc_rank=id_ranks([table.docs[qid] for qid in table.queries]))  # independent of line order
    score, se = to_scale(res.score, res.se, scale, elo_offset)
    return pd.DataFrame({"qid": np.repeat(np.array(table.queries, dtype=object), sizes),
                         "docno": [d for qid in table.queries for d in table.docs[qid]],
                         "score": score, "se": se})


def pairs(queries: Iterable[tuple[str, Sequence[str]]], cycles: int = 4, seed: int | None = 0, *,
          dedup: bool = False, limit: int | None = None) -> list[tuple[str, str, str]]:
    """Pairs to judge (``zelo_pairs cycles``): ``(qid, doc_a, doc_b)`` from random cycles per query.

    For each query with documents d_1..d_n, ``cycles`` random permutations π
    give the pairs (π_i, π_{i+1 mod n}) -- every document is compared twice
    per cycle, which keeps the Bradley–Terry comparison graph connected
    (zELO, Pipitone et al. 2025). ``dedup`` drops repeated pairs, ``limit``
    uses only the first ``limit`` documents of each query; same ``seed`` →
    same pairs.
    """
    from .zelo.pairs import random_cycles

    return random_cycles(((q, list(d)) for q, d in queries), cycles, seed, dedup=dedup, limit=limit)


def simulate(matrix: Any, reps: int = 1000, *, k: int = 1, p: int = 7, f: int = 9, seed: int = 0,
             final_phase: bool = False) -> dict[str, Any]:
    """Clarke et al.'s pruning tournament against a preference matrix (``zelo_simulate tournament``).

    ``matrix[i][j]`` is the probability that item i is preferred to item j.
    Each of ``reps`` repetitions runs the tournament (Clarke, Vtyurina &
    Smucker, ICTIR 2021: pools of ``p``, ``f`` judgments per pair, top ``k``;
    ``final_phase``: Yan et al.'s extra final comparison) and records whether
    a best item (a Copeland winner of the matrix) was found and how many
    comparisons it took. Returns :func:`pref_eval.zelo.simulate.simulate_tournament`'s dict.
    """
    import numpy as np

    from .zelo.simulate import simulate_tournament

    return simulate_tournament(np.asarray(matrix, dtype=float), reps, k=k, p=p, f=f, seed=seed,
                               final_phase=final_phase)


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
