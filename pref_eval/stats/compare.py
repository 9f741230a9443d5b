"""All-pairs (or vs-baseline) comparison of runs over per-query values.

:func:`compare` takes the long per-query table ``run, qid, measure, value``
(``pref_eval.evaluate(...)`` or :func:`pref_eval.io.perquery.read_per_query`)
and, for every measure, every pair of runs and every selected test, returns
one record with the keys ``measure, run_a, run_b, test, n_queries,
mean_diff (run_a - run_b), statistic, p_value, p_adjusted, correction,
ci_low, ci_high`` plus effect sizes (``d_z, wins, ties, losses``) and the
test's parameters.

Queries: for each measure, those that have a value for every compared run, in id order (so
that no result depends on the order of the input lines, not even in the last bits);
with ``complete=True`` the union of the queries seen for that measure, a
missing value counting as 0 (trec_eval ``-c``). The number used is
``n_queries``; the queries left out are listed in ``dropped_queries``.

Correction family: every pair compared for one measure and one test
(R(R-1)/2 pairs, or R-1 against a baseline). The ``tukey`` test (randomised
Tukey HSD, :mod:`pref_eval.stats.tukey`) is already family-wise over all
runs: its ``p_adjusted`` equals its ``p_value`` and ``correction`` is
``tukey-hsd``.

:func:`compare_differences` runs the same tests on a ready matrix of per-query
differences (rows = comparisons, e.g. the per-query values of a preference
measure for each pair of runs), each row tested against 0.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Sequence

import numpy as np

from ..errors import UsageError
from . import paired
from .correction import CORRECTIONS, adjust
from .effect import effect_sizes

ALL_TESTS = (*paired.TESTS, "tukey")
DEFAULT_TESTS = ("t", "wilcoxon", "sign")
RECORD_KEYS = ("measure", "run_a", "run_b", "test", "n_queries", "mean_diff", "statistic",
               "p_value", "p_adjusted", "correction", "ci_low", "ci_high", "significant",
               "d_z", "wins", "ties", "losses")
TEST_LABELS = {
    "t": "paired t-test (scipy.stats.ttest_rel)",
    "wilcoxon": "Wilcoxon signed-rank test (scipy.stats.wilcoxon)",
    "sign": "sign test (scipy.stats.binomtest on non-zero differences)",
    "randomization": "paired randomization test (sign flips)",
    "bootstrap": "bootstrap test of the mean difference (shift method)",
    "tukey": "randomised Tukey HSD (within-query permutations)",
}
CORRECTION_LABELS = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini-Hochberg",
                     "none": "no correction", "tukey-hsd": "family-wise by construction"}


@dataclass
class ComparisonResult:
    """Output of :func:`compare`.

    ``records``: pandas DataFrame, one row per (measure, pair, test) in the
    order measure, pair, test. ``means``: DataFrame runs x measures of the
    mean over the queries used. ``n_queries`` / ``dropped_queries``: per
    measure. ``params``: the settings (tests, correction, alpha, seed, ...).
    """

    records: Any
    means: Any
    runs: list[str]
    measures: list[str]
    n_queries: dict[str, int]
    dropped_queries: dict[str, list[str]]
    params: dict[str, Any] = field(default_factory=dict)


def parse_tests(spec: str | Sequence[str]) -> list[str]:
    """``"t,wilcoxon"`` -> ``["t", "wilcoxon"]``; aliases ``perm``/``permutation``/
    ``random`` = randomization, ``boot`` = bootstrap, ``student`` = t."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    alias = {"perm": "randomization", "permutation": "randomization", "random": "randomization",
             "fisher": "randomization", "boot": "bootstrap", "student": "t", "ttest": "t",
             "hsd": "tukey"}
    out: list[str] = []
    for it in items:
        name = alias.get(it.strip().lower(), it.strip().lower())
        if not name:
            continue
        if name not in ALL_TESTS:
            raise UsageError(f"unknown test {it!r}; expected some of {', '.join(ALL_TESTS)}")
        if name not in out:
            out.append(name)
    if not out:
        raise UsageError("no test selected")
    return out


def _run_tests(D: np.ndarray, tests: Sequence[str], p: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    k = D.shape[0]
    nan = np.full(k, np.nan)
    for t in tests:
        if t == "t":
            r = paired.t_test(D, confidence=p["confidence"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": r["ci_low"],
                      "ci_high": r["ci_high"], "extra": {"df": r["df"]}}
        elif t == "wilcoxon":
            r = paired.wilcoxon_test(D, zero_method=p["zero_method"], method=p["wilcoxon_method"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": nan, "ci_high": nan,
                      "extra": {"zero_method": p["zero_method"], "method": r["method_used"],
                                "n_zero": r["n_zero"]}}
        elif t == "sign":
            r = paired.sign_test(D, min_diff=p["sign_min_diff"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": nan, "ci_high": nan,
                      "extra": {"n_nonzero": r["n_nonzero"], "min_diff": p["sign_min_diff"]}}
        elif t == "randomization":
            r = paired.randomization_test(D, resamples=p["resamples"], seed=p["seed"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": nan, "ci_high": nan,
                      "extra": {"resamples": r["resamples"], "exact": r["exact"], "seed": p["seed"]}}
        elif t == "bootstrap":
            r = paired.bootstrap_test(D, resamples=p["resamples"], seed=p["seed"],
                                      confidence=p["confidence"], ci_method=p["ci_method"])
            out[t] = {"statistic": r["statistic"], "p_value": r["p_value"], "ci_low": r["ci_low"],
                      "ci_high": r["ci_high"], "extra": {"resamples": r["resamples"], "seed": p["seed"],
                                                         "ci_method": p["ci_method"]}}
    return out


def _params(tests, correction, alpha, resamples, seed, zero_method, wilcoxon_method,
            confidence, ci_method, sign_min_diff: float = 0.0) -> dict[str, Any]:
    if correction not in CORRECTIONS:
        raise UsageError(f"unknown correction {correction!r}; expected one of {', '.join(CORRECTIONS)}")
    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must be in (0, 1), got {alpha}")
    if not 0 < confidence < 1:
        raise UsageError(f"confidence level must be in (0, 1), got {confidence}")
    if resamples < 1:
        raise UsageError(f"--resamples must be at least 1, got {resamples}")
    if zero_method not in ("wilcox", "pratt", "zsplit"):
        raise UsageError(f"unknown Wilcoxon zero method {zero_method!r}; expected wilcox, pratt or zsplit")
    if wilcoxon_method not in ("auto", "exact", "asymptotic"):
        raise UsageError(f"unknown Wilcoxon method {wilcoxon_method!r}; expected auto, exact or asymptotic")
    if ci_method.lower() not in ("bca", "percentile", "basic"):
        raise UsageError(f"unknown bootstrap interval {ci_method!r}; expected BCa, percentile or basic")
    if not sign_min_diff >= 0:
        raise UsageError(f"--sign-min-diff must be >= 0, got {sign_min_diff}")
    return {"sign_min_diff": float(sign_min_diff), "tests": parse_tests(tests), "correction": correction,
            "alpha": float(alpha),
            "resamples": int(resamples), "seed": seed, "zero_method": zero_method,
            "wilcoxon_method": wilcoxon_method, "confidence": float(confidence), "ci_method": ci_method}


EXTRA_KEYS = ("df", "zero_method", "method", "n_zero", "n_nonzero", "min_diff", "resamples", "exact", "seed",
              "ci_method", "confidence")


def _assemble(measure: str, a_names, b_names, n_q: int, D, results, tests, params, tukey_p=None):
    """One DataFrame block for one measure (or one difference matrix)."""
    import pandas as pd

    k = D.shape[0]
    eff = effect_sizes(D)
    frames = []
    for ti, t in enumerate(tests):
        if t == "tukey":
            pv = tukey_p if tukey_p is not None else np.full(k, np.nan)
            res = {"statistic": eff["mean_diff"], "p_value": pv, "ci_low": np.full(k, np.nan),
                   "ci_high": np.full(k, np.nan),
                   "extra": {"resamples": params["resamples"], "seed": params["seed"]}}
            padj = np.asarray(pv, float)
            corr = "tukey-hsd"
        else:
            res = results[t]
            padj = adjust(res["p_value"], params["correction"])
            corr = params["correction"]
        cols = {
            "measure": [measure] * k, "run_a": list(a_names), "run_b": list(b_names), "test": [t] * k,
            "n_queries": np.full(k, n_q), "mean_diff": eff["mean_diff"],
            "statistic": np.asarray(res["statistic"], float), "p_value": np.asarray(res["p_value"], float),
            "p_adjusted": padj, "correction": [corr] * k,
            "ci_low": np.asarray(res["ci_low"], float), "ci_high": np.asarray(res["ci_high"], float),
            "significant": padj < params["alpha"], "d_z": eff["d_z"], "wins": eff["wins"],
            "ties": eff["ties"], "losses": eff["losses"],
        }
        for key in EXTRA_KEYS:
            val = res["extra"].get(key)
            if isinstance(val, np.ndarray):
                cols[key] = val
            else:
                cols[key] = [val] * k
        if t == "bootstrap" or t == "t":
            cols["confidence"] = [params["confidence"]] * k
        cols["_pair"] = np.arange(k)
        cols["_test"] = np.full(k, ti)
        frames.append(pd.DataFrame(cols))
    return frames


def _frame(blocks: list):
    import pandas as pd

    if not blocks:
        return pd.DataFrame(columns=[*RECORD_KEYS, *EXTRA_KEYS])
    parts = []
    for bi, frames in enumerate(blocks):
        for f in frames:
            parts.append(f.assign(_block=bi))
    df = pd.concat(parts, ignore_index=True)
    order = np.lexsort((df["_test"].to_numpy(), df["_pair"].to_numpy(), df["_block"].to_numpy()))
    df = df.iloc[order].drop(columns=["_block", "_pair", "_test"])
    return df.reset_index(drop=True)


def _matrix(sub, runs: list[str], complete: bool):
    """(runs x queries) matrix of one measure, the queries used and those dropped.

    The queries are in id order (code points = UTF-8 byte order, trec_eval's): every sum, mean and
    resampling over queries then sees them in one canonical order, whatever the order of the input.
    """
    qids_all = sorted(set(sub["qid"]))
    table = sub.pivot(index="run", columns="qid", values="value").reindex(index=runs, columns=qids_all)
    X = table.to_numpy(dtype=float)
    present = ~np.isnan(X)
    if complete:
        keep = np.ones(len(qids_all), bool)
        X = np.where(present, X, 0.0)
    else:
        keep = present.all(axis=0)
        X = X[:, keep]
    used = [q for q, k in zip(qids_all, keep, strict=False) if k]
    dropped = [q for q, k in zip(qids_all, keep, strict=False) if not k]
    return X, used, dropped


def _measure_block(piece):
    """The tests of one measure (one process's share of ``compare(jobs=N)``)."""
    m, X, n_used, ia, ib, a_names, b_names, tests, params = piece
    D = paired.differences(X[ia], X[ib])
    results = _run_tests(D, [t for t in tests if t != "tukey"], params)
    tukey_p = None
    if "tukey" in tests:
        from .tukey import randomised_tukey_hsd

        P = randomised_tukey_hsd(X, resamples=params["resamples"], seed=params["seed"])
        tukey_p = P[ia, ib]
    return _assemble(m, a_names, b_names, n_used, D, results, tests, params, tukey_p)


def compare(values, *, tests: str | Sequence[str] = DEFAULT_TESTS, correction: str = "holm",
            alpha: float = 0.05, baseline: str | None = None, resamples: int = 10_000,
            seed: int | None = 0, zero_method: str = "wilcox", wilcoxon_method: str = "auto",
            confidence: float = 0.95, ci_method: str = "BCa", complete: bool = False,
            runs: Sequence[str] | None = None, measures: Sequence[str] | None = None,
            sign_min_diff: float = 0.0,
            progress: Callable[[int, int], None] | None = None, jobs: int = 1) -> ComparisonResult:
    """Compare every pair of runs (or each run with ``baseline``) on every measure.

    ``values``: DataFrame with columns run, qid, measure, value (per query).
    ``runs`` / ``measures`` select and order them (default: order of first
    appearance). See the module docstring for the query set, the correction
    family and the record keys. ``sign_min_diff``: the sign test's delta
    (|d| < delta counts as a tie). ``progress(done, total)`` is called after
    each measure. ``jobs``: test the measures in that many processes (every
    measure's resampling has its own seeded stream, so the result is the same).
    """
    import pandas as pd

    params = _params(tests, correction, alpha, resamples, seed, zero_method, wilcoxon_method,
                     confidence, ci_method, sign_min_diff)
    tests = params["tests"]
    missing_cols = [c for c in ("run", "qid", "measure", "value") if c not in values.columns]
    if missing_cols:
        raise UsageError(f"per-query table lacks column(s) {', '.join(missing_cols)}")
    df = values[values["qid"].astype(str) != "all"]
    all_runs = list(dict.fromkeys(df["run"].astype(str)))
    all_measures = list(dict.fromkeys(df["measure"].astype(str)))
    run_list = list(runs) if runs else all_runs
    measure_list = list(measures) if measures else all_measures
    for r in run_list:
        if r not in all_runs:
            raise UsageError(f"run {r!r} not in the per-query values (runs: {', '.join(all_runs)})")
    for m in measure_list:
        if m not in all_measures:
            raise UsageError(f"measure {m!r} not in the per-query values (measures: {', '.join(all_measures)})")
    if len(run_list) < 2:
        raise UsageError("need at least two runs to compare")
    if baseline is not None and baseline not in run_list:
        raise UsageError(f"baseline {baseline!r} is not one of the runs ({', '.join(run_list)})")
    df = df.assign(run=df["run"].astype(str), qid=df["qid"].astype(str), measure=df["measure"].astype(str))
    df = df[df["run"].isin(run_list)]
    R = len(run_list)
    if baseline is None:
        ia, ib = np.triu_indices(R, 1)
    else:
        bi = run_list.index(baseline)
        ia = np.array([i for i in range(R) if i != bi], dtype=int)
        ib = np.full(ia.size, bi, dtype=int)
    a_names = [run_list[i] for i in ia]
    b_names = [run_list[i] for i in ib]
    blocks = []
    means = {}
    n_queries: dict[str, int] = {}
    dropped: dict[str, list[str]] = {}
    pieces = []
    for m in measure_list:
        sub = df[df["measure"] == m]
        X, used, drop = _matrix(sub, run_list, complete)
        n_queries[m] = len(used)
        dropped[m] = drop
        with np.errstate(all="ignore"):
            means[m] = X.mean(axis=1) if X.shape[1] else np.full(R, np.nan)
        pieces.append((m, X, len(used), ia, ib, a_names, b_names, tests, params))
    if jobs > 1 and len(pieces) > 1:
        from ..parallel import ordered_map

        blocks = ordered_map(_measure_block, pieces, jobs=jobs)  # each measure has its own seeded streams
        if progress is not None:
            progress(len(blocks), len(measure_list))
    else:
        for piece in pieces:
            blocks.append(_measure_block(piece))
            if progress is not None:
                progress(len(blocks), len(measure_list))
    records = _frame(blocks)
    means_df = pd.DataFrame(means, index=run_list)
    params.update({"baseline": baseline, "complete": complete})
    return ComparisonResult(records=records, means=means_df, runs=run_list, measures=measure_list,
                            n_queries=n_queries, dropped_queries=dropped, params=params)


def compare_differences(D: np.ndarray, *, labels: Sequence[str] | None = None, measure: str = "",
                        run_a: Sequence[str] | None = None, run_b: Sequence[str] | None = None,
                     tests: str | Sequence[str] = DEFAULT_TESTS, correction: str = "holm",
                     alpha: float = 0.05, resamples: int = 10_000, seed: int | None = 0,
                     zero_method: str = "wilcox", wilcoxon_method: str = "auto",
                     confidence: float = 0.95, ci_method: str = "BCa", sign_min_diff: float = 0.0):
    """Test each row of a (comparisons x queries) difference matrix against 0.

    For preference measures, whose per-query value for a pair of runs is
    already a signed difference: row r = that pair's per-query values.
    ``labels`` name the rows (``"A:B"`` style names are split into run_a /
    run_b at the first ``:``; otherwise run_a = label, run_b = None), or
    give ``run_a`` and ``run_b`` lists directly.
    Correction family = all rows, per test. ``tukey`` is not available here
    (it needs the per-run values). Returns a DataFrame of records (same keys
    as :func:`compare`).
    """
    params = _params(tests, correction, alpha, resamples, seed, zero_method, wilcoxon_method,
                     confidence, ci_method, sign_min_diff)
    tests = params["tests"]
    if "tukey" in tests:
        raise UsageError("the randomised Tukey HSD needs per-run values, not differences")
    D = np.asarray(D, dtype=float)
    if D.ndim == 1:
        D = D[None, :]
    if np.isnan(D).any():
        raise UsageError("the difference matrix contains NaN")
    k = D.shape[0]
    labels = list(labels) if labels is not None else [str(i) for i in range(k)]
    if len(labels) != k:
        raise UsageError(f"{len(labels)} labels for {k} rows")
    a_names, b_names = [], []
    if run_a is not None and run_b is not None:
        a_names, b_names = list(run_a), list(run_b)
        if len(a_names) != k or len(b_names) != k:
            raise UsageError(f"run_a/run_b lengths differ from the {k} rows")
    else:
        for lab in labels:
            a, sep, b = str(lab).partition(":")
            a_names.append(a if sep else str(lab))
            b_names.append(b if sep else None)
    results = _run_tests(D, tests, params)
    block = _assemble(measure, a_names, b_names, D.shape[1], D, results, tests, params)
    return _frame([block])


def compare_preferences(values, *, complete: bool = False, measures: Sequence[str] | None = None,
                        runs: Sequence[str] | None = None, **kwargs):
    """Test per-query preference values against 0, per measure.

    ``values``: DataFrame with columns run (= run_a), run_b, qid, measure,
    value (the runi/runj layout of ``zelo_eval -q -o tsv``), value = the
    preference of run over run_b on that query. Queries: those present for
    every pair of that measure (``complete``: the union, missing = 0).
    ``runs`` keeps the pairs whose two runs are both listed. Other keyword
    arguments as :func:`compare_differences`. Returns (records DataFrame,
    {measure: n_queries}, {measure: dropped qids}).
    """
    import pandas as pd

    df = values[values["qid"].astype(str) != "all"]
    if runs:
        df = df[df["run"].isin(list(runs)) & df["run_b"].isin(list(runs))]
    all_measures = list(dict.fromkeys(df["measure"]))
    measure_list = [m for m in (measures or all_measures) if m in all_measures]
    frames, nq, dropped = [], {}, {}
    for m in measure_list:
        sub = df[df["measure"] == m]
        pairs = list(dict.fromkeys(zip(sub["run"], sub["run_b"], strict=False)))
        qids = sorted(set(sub["qid"]))  # canonical order, as in _matrix
        table = sub.pivot_table(index=["run", "run_b"], columns="qid", values="value", aggfunc="first")
        table = table.reindex(index=pd.MultiIndex.from_tuples(pairs), columns=qids)
        X = table.to_numpy(dtype=float)
        present = ~np.isnan(X)
        keep = np.ones(len(qids), bool) if complete else present.all(axis=0)
        X = np.where(present, X, 0.0)[:, keep]
        nq[m] = int(keep.sum())
        dropped[m] = [q for q, kk in zip(qids, keep, strict=False) if not kk]
        frames.append(compare_differences(np.round(X, 12), measure=m, run_a=[p[0] for p in pairs],
                                          run_b=[p[1] for p in pairs], **kwargs))
    records = pd.concat(frames, ignore_index=True) if frames else None
    return records, nq, dropped
