"""System level: would my conclusions change if another judge made the qrels?

For every judge, graded qrels are derived exactly as ``zelo_fit --qrels`` does:
the judge's own judgments are fitted (:func:`pref_eval.zelo.fit.fit_bt`, same
``prior``), and per query the scores of the judge's documents are cut into
equal-size quantile bins (:func:`pref_eval.output.qrels.grade_bins`) labelled
with ``grades``. The runs are evaluated with each judge's qrels
(:func:`pref_eval.api.evaluate`, measure ``-m``) on the topics every judge's
qrels contain. Then, for each judge against the reference (the first):

* the system orderings by mean: Kendall's tau_b (``scipy.stats.kendalltau``)
  and tau_AP (Yilmaz et al. 2008; ties broken at random in expectation,
  :func:`pref_eval.stats.orderings.tau_ap_a`), with percentile intervals from
  resampling the topics with replacement (the same draws for both judges; all
  resamples at once: :func:`pref_eval.stats.orderings.kendall_tau_b_rows`, the
  same values as scipy's, and :func:`~pref_eval.stats.orderings.tau_ap_a_rows`);
* every pair of runs compared with ``zelo_compare``'s paired test and
  correction (:func:`pref_eval.stats.compare.compare`) under each judge's qrels:
  the number of significant pairs under each, the pairs whose decision
  differs (significant under one judge only, or significant in opposite
  directions), and one ``flip:RUN_X>RUN_Y`` record per such pair
  (value 1 = RUN_X significantly better than RUN_Y under ``judge_a`` only,
  -1 = under ``judge_b`` only, 2 = significant in opposite directions).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import UsageError, command_running, option_name, shown
from .matching import Matched, Vocabulary
from .records import Record, count

if TYPE_CHECKING:
    from ..zelo.judgments import Judgments

LEVEL = "system"


def judge_qrels(table: Judgments, prior: float, grades: list[int]) -> dict[str, dict[str, int]]:
    """``{qid: {docno: grade}}`` from one judge's table, as ``zelo_fit --qrels`` (quantile bins)."""
    from ..zelo.fit import fit_bt, id_ranks
    from ..output.qrels import grade_bins

    q, a, b, s, w = table.arrays()
    sizes = np.array([len(table.docs[qid]) for qid in table.queries], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    res = fit_bt(sizes, q, a, b, s, w, prior=prior, compute_se=False,
                 doc_rank=id_ranks([table.docs[qid] for qid in table.queries]))  # zelo_fit's canonical order
    out: dict[str, dict[str, int]] = {}
    for k, qid in enumerate(table.queries):
        bins = grade_bins(res.score[offsets[k]:offsets[k + 1]], len(grades), "quantile")
        out[qid] = {d: grades[int(g)] for d, g in zip(table.docs[qid], bins, strict=True)}
    return out


def _parse_int_grades(text: str) -> list[int]:
    from ..output.qrels import parse_grades

    parts = parse_grades(text)
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise UsageError(f"{option_name('grades')} must be integers for qrels, got {shown(text)}") from None


def _resampled_means(ref: np.ndarray, other: np.ndarray, draws: np.ndarray,
                     max_cells: int = 1 << 24) -> tuple[np.ndarray, np.ndarray]:
    """Per resample (row of ``draws``: topic indices), every system's mean over the drawn topics, for the
    reference's and the other judge's values (systems x topics): two resamples x systems arrays, in blocks of
    at most ``max_cells`` gathered values (the same means, bit for bit, as one resample at a time)."""
    n_sys, n_top = ref.shape
    R = len(draws)
    step = max(1, max_cells // max(1, n_sys * n_top))
    A = np.empty((R, n_sys))
    B = np.empty((R, n_sys))
    for r0 in range(0, R, step):
        d = draws[r0:r0 + step]
        A[r0:r0 + step] = ref[:, d].mean(axis=2).T
        B[r0:r0 + step] = other[:, d].mean(axis=2).T
    return A, B


def _tau_ap(ref: np.ndarray, other: np.ndarray) -> float:
    from ..stats.orderings import tau_ap_a

    return float(tau_ap_a(ref, other))


def system_records(mt: Matched, vocab: Vocabulary, runs: list[str], measure: str | None, *, prior: float = 0.5,
                   grades: str = "0,1,2,3", tests: str = "t", correction: str = "holm", alpha: float = 0.05,
                   resamples: int = 1000, seed: int = 0, confidence: float = 0.95,
                   judged_depth: int | None = None) -> list[Record]:
    """Orderings and significance decisions of ``runs`` under each judge's qrels (see module docstring);
    ``judged_depth`` K: each judge's coverage of the runs as ``judged@K:RUN`` (ir-measures' Judged@K) instead of
    ``judged:RUN`` (every retrieved document)."""
    from ..api._inputs import _load_runs
    from ..api.measures import _evaluate_rows
    from ..io.frames import frame
    from ..output.table import HEADER
    from ..stats.compare import compare, parse_tests
    from ..stats.orderings import kendall_tau_b, kendall_tau_b_rows, tau_ap_a_rows

    if not runs or not measure:
        raise UsageError("the system level needs --runs RUN... and -m MEASURE" if command_running() else
                         "the system level needs runs=[RUN, ...] and measure=NAME")
    test_list = parse_tests(tests)
    if len(test_list) != 1:
        raise UsageError(f"{option_name('tests')}: the system level uses one test (e.g. t)")
    if len(runs) < 2:
        raise UsageError("the system level needs at least two runs")
    grade_list = _parse_int_grades(grades)
    run_objs = _load_runs(list(runs))
    names = [r.name for r in run_objs]
    if len(set(names)) != len(names):
        raise UsageError("two runs share a name")
    qrels_of = [judge_qrels(j.table, prior, grade_list) for j in mt.votes]
    _refuse_disjoint_judges(mt.names, qrels_of)
    # a run lacking a topic compared counts 0 there (X below, as trec_eval -c): evaluate's warning "averaging over
    # the topics in both" (a Python warning with its source line, before session 26) said otherwise
    values = [_per_query(frame(_evaluate_rows(qrels, run_objs, [measure], warn_missing=False), list(HEADER)),
                         measure) for qrels in qrels_of]  # frame: pandas' strings cannot hold a Latin-1 topic
    common = set.intersection(*[set(df["qid"]) for df in values])
    topics = sorted(common)
    if len(topics) < 2:
        raise UsageError("the judges' qrels and the runs share fewer than two topics")
    X = [_wide(df, names, topics) for df in values]
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(topics), size=(resamples, len(topics))) if resamples > 0 else None
    tail = (1.0 - confidence) / 2.0 * 100.0
    out: list[Record] = []
    ref = X[0]
    for k in range(1, len(mt.names)):
        a, b = mt.names[0], mt.names[k]
        out.append(count(a, b, LEVEL, "topics", len(topics)))
        out.append(count(a, b, LEVEL, "systems", len(names)))
        for j in (0, k) if k == 1 else (k,):  # each judge's own figures once, before its first comparison
            out += _own_records(mt.names[j], names, run_objs, qrels_of[j], topics, X[j], judged_depth)
        ma, mb = ref.mean(1), X[k].mean(1)
        boot = _resampled_means(ref, X[k], draws) if draws is not None else None
        for stat, fn, rows in (("kendall_tau_b", lambda x, y: kendall_tau_b(x, y)[0], kendall_tau_b_rows),
                               ("tau_ap", _tau_ap, tau_ap_a_rows)):
            value = fn(ma, mb)
            lo = hi = float("nan")
            if boot is not None:
                bs = rows(*boot)
                bs = bs[np.isfinite(bs)]
                if len(bs):
                    lo, hi = (float(v) for v in np.percentile(bs, [tail, 100.0 - tail]))
            out.append(Record(a, b, LEVEL, stat, float(value), lo, hi, len(names)))
        out += _flips(a, b, names, topics, ref, X[k], measure, test_list[0], correction, alpha, seed, compare)
    return out


def _per_query(df, measure: str):
    """The per-query rows of one measure's evaluation; a measure that cannot order runs by its mean refused."""
    import pandas as pd

    df = df[df["qid"] != "all"]
    mnames = list(dict.fromkeys(df["measure"]))
    if not mnames:
        raise UsageError(f"{_measure(measure)} has no value per query (trec_eval prints it for 'all' only): the "
                         "system level orders the runs by the mean of a per-query measure (e.g. ndcg_cut.10, map)")
    if len(mnames) != 1:
        raise UsageError(f"{_measure(measure)}: the system level needs a measure with one value per query "
                         f"(got {', '.join(mnames)})")
    if not pd.api.types.is_numeric_dtype(df["value"]):  # relstring: a string of grades per query
        raise UsageError(f"{_measure(measure)}: its per-query value is text ({shown(df['value'].iloc[0])}), "
                         f"not a number "
                         "to order the runs by")
    return df


def _measure(measure: str) -> str:
    """The measure as the caller gave it: ``-m NAME`` / ``measure='NAME'``."""
    return f"-m {shown(measure)}" if command_running() else f"measure={shown(measure)}"


def _refuse_disjoint_judges(names: list[str], qrels_of: list[dict]) -> None:
    """Two judges sharing no query (a judgment file of another collection): nothing to compare at this level."""
    ref = set(qrels_of[0])
    for name, qrels in zip(names[1:], qrels_of[1:], strict=True):
        if not ref & set(qrels):
            def some(q: dict) -> str:
                first = sorted(q)[:3]
                return f"{len(q)} topics: {', '.join(map(repr, first))}{', ...' if len(q) > 3 else ''}"

            raise UsageError(f"{names[0]} and {name} share no topic ({names[0]} {some(qrels_of[0])}; {name} "
                             f"{some(qrels)}): judgments of another collection?")


def _own_records(judge: str, names: list[str], run_objs: list, qrels: dict, topics: list[str],
                 X: np.ndarray, depth: int | None = None) -> list[Record]:
    """A judge's own figures per run: ``mean:RUN`` (the run's mean measure over the topics compared, under this
    judge's qrels: the ordering the taus compare) and ``judged:RUN`` (ir-measures' ``Judged``: per topic the share
    of the run's documents this judge judged, averaged over the topics compared; 0: its measure is 0 on every
    topic, whatever the run is worth) -- or, with ``depth`` K, ``judged@K:RUN`` (``Judged@K``): :func:`_judged_at`."""
    means = [Record(judge, "", LEVEL, f"mean:{name}", float(X[i].mean()), float("nan"), float("nan"), len(topics))
             for i, name in enumerate(names)]
    return means + _judged_at(judge, names, run_objs, qrels, topics, depth)


def _judged_at(judge: str, names: list[str], run_objs: list, qrels: dict, topics: list[str],
               depth: int | None) -> list[Record]:
    """``judged@K:RUN``: ir-measures' Judged@K (``judged.K``: of the run's top K documents of a topic, ties in
    docno order, the share this judge judged; K counts the documents retrieved when fewer) under this judge's
    qrels, averaged over the topics compared (``n``), 0 on a topic the run lacks (as ir-measures counts it, and as
    ``mean:RUN`` does); ``depth`` None: ``judged:RUN``, ir-measures' ``Judged`` (every document retrieved)."""
    from ..api.measures import _evaluate_rows

    on = set(topics)
    measure = "Judged" if depth is None else f"judged.{depth}"
    rows = _evaluate_rows({q: qrels[q] for q in topics}, run_objs, [measure], warn_missing=False)
    per_run: dict[str, dict[str, float]] = {name: {} for name in names}
    for run, qid, _, value in rows:  # a row per run and topic (a handful of topics: not per document)
        if qid in on:
            per_run[run][qid] = float(value)
    out = []
    for name in names:
        vals = np.array([per_run[name].get(q, 0.0) for q in topics], dtype=float)
        label = "judged" if depth is None else f"judged@{depth}"
        out.append(Record(judge, "", LEVEL, f"{label}:{name}", float(vals.mean()), float("nan"),
                          float("nan"), len(topics)))
    return out



def _wide(df: Any, names: list[str], topics: list[str]) -> np.ndarray:
    """runs x topics of ``df``'s values (the first value of a cell; a missing or NaN one 0), without a pandas pivot:
    pandas' strings cannot hold a topic that is not UTF-8 (a Latin-1 id kept as its bytes)."""
    row = {n: i for i, n in enumerate(names)}
    col = {t: j for j, t in enumerate(topics)}
    X = np.full((len(names), len(topics)), np.nan)
    for r, q, v in zip(df["run"].tolist(), df["qid"].tolist(), df["value"].tolist(), strict=True):
        i, j = row.get(r), col.get(q)
        if i is not None and j is not None and np.isnan(X[i, j]):
            X[i, j] = v
    return np.nan_to_num(X, nan=0.0)


def _decisions(names, topics, X, measure, test, correction, alpha, seed, compare):
    from ..stats.compare import LongTable

    df = LongTable.from_rows((r, t, measure, X[i, j]) for i, r in enumerate(names) for j, t in enumerate(topics))
    res = compare(df, tests=[test], correction=correction, alpha=alpha, seed=seed, runs=names)
    out = {}
    for rec in res.records.itertuples():
        sign = int(np.sign(rec.mean_diff)) if bool(rec.significant) else 0
        out[(rec.run_a, rec.run_b)] = sign
    return out


def _flips(a, b, names, topics, XA, XB, measure, test, correction, alpha, seed, compare) -> list[Record]:
    da = _decisions(names, topics, XA, measure, test, correction, alpha, seed, compare)
    db = _decisions(names, topics, XB, measure, test, correction, alpha, seed, compare)
    n = len(da)
    out = [Record(a, b, LEVEL, "significant_a", float(sum(v != 0 for v in da.values())), float("nan"),
                  float("nan"), n),
           Record(a, b, LEVEL, "significant_b", float(sum(v != 0 for v in db.values())), float("nan"),
                  float("nan"), n)]
    flips = []
    for (x, y), sa in da.items():
        sb = db[(x, y)]
        if sa == sb:
            continue
        if sa != 0 and sb != 0:
            win, lose, v = (x, y, 2.0) if sa > 0 else (y, x, 2.0)
        elif sa != 0:
            win, lose, v = (x, y, 1.0) if sa > 0 else (y, x, 1.0)
        else:
            win, lose, v = (x, y, -1.0) if sb > 0 else (y, x, -1.0)
        flips.append(Record(a, b, LEVEL, f"flip:{win}>{lose}", v, float("nan"), float("nan"), len(topics)))
    out.append(Record(a, b, LEVEL, "decision_changes", float(len(flips)), float("nan"), float("nan"), n))
    return out + flips
