#!/usr/bin/env python3
"""Differential fuzz of ranx's ``compare()`` (qrels and runs in, metrics and significance tests out) against
``pref_eval.evaluate`` + ``pref_eval.compare`` and ``zelo_compare -R`` on the same qrels and runs (ranx 0.3.21).

    python tools/fuzz_ranx.py                          # 20 s of cases, seed 0
    python tools/fuzz_ranx.py --seconds 300 --seed 3   # longer
    python tools/fuzz_ranx.py --case 3:41              # one case again, its findings printed in full

The options and the loop are tools/fuzz_common.py's. Each case is made from (seed, index) alone: 2-6 runs of 2-150
topics (qrels of 3-40 documents a topic, grades 0-3, a share of topics without a relevant document; runs of
judged and unjudged documents, distinct scores or, in a share of the runs, scores on a 1/10 grid with ties; a run
a copy of another, or another's ranking under other scores, in a share), 1-4 of ranx's metric names (which
pref_eval takes as they are: ``ndcg@10``, ``map@100``, ``mrr``, ``precision@5``, ``recall@10``, ``hits@5``,
``r-precision``, ``hit_rate@5``, ``f1@10``, ``bpref``, ``dcg@10``, ``dcg_burges@10``, ``ndcg_burges@10``,
``rbp.95``, ...), ``stat_test`` student or fisher, ``n_permutations``, ``random_seed`` and ``max_p``. Checks:

* **metrics** -- ranx's per-query values (``Run.scores`` after ``compare``) against ``pref_eval.evaluate`` on the
  same dicts (1e-9 relative), its means (``Report.results``) against the means of ours;
* **student** -- ranx's p (``scipy.stats.ttest_rel`` of the two runs' values) against ``pref_eval.compare(...,
  tests="t", correction="none")`` on ours' values (1e-9 relative), and its win/tie/loss counts against ours;
* **fisher** -- ranx's Fisher p (count/B of its own B permutations, no +1) within binomial error of ours'
  randomization p over B resamples (``seed`` = its ``random_seed``), and, for at most 32 non-zero differences
  (``fuzz_compare.flip_tails``: exact counts met in the middle), between the exact p with
  "as extreme" strict and with ties counted (ranx allows no round-off). Never exactly: ranx's ``random_seed``
  does not fix its draws (ranx issue #70; numba's worker threads draw from generators seeded by ``os.urandom``,
  docs/differences-stats.md 4.), so its p is a sample of B draws no stream of ours can reproduce;
* **command** -- in a share of the cases the qrels and runs written as TREC files and ``zelo_compare -R QRELS -m M...
  RUN... -o jsonl`` (a fresh process) with the same tests: its records equal ``pref_eval.compare``'s on ours'
  values, bit for bit.

Documented differences (counted, not reported): a topic's value where the run ties scores (ranx's order of tied
documents is not trec_eval's: docs/differences.md), ``bpref`` and the metrics of a topic without a relevant
document (ranx's value there, api.md's ranx notes), differences below 5e-13 that ours rounds to 0 (a tie,
docs/differences-stats.md 3.: then the t p-values and win/tie/loss counts may differ), and the Tukey HSD (ranx's is
scipy's unpaired ``tukey_hsd``, ours randomised within queries, docs/differences-stats.md 6.: not driven).
"""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from fuzz_common import main as fuzz_main, outcome  # noqa: E402
from fuzz_compare import binomial_close, flip_tails, ints12, slack_units  # noqa: E402

CHECKS = ("metrics", "student", "fisher", "command")
METRICS = ("ndcg@5", "ndcg@10", "ndcg", "map", "map@100", "mrr", "mrr@10", "precision@5", "precision@10",
           "recall@10", "recall@100", "hits@5", "r-precision", "hit_rate@5", "f1@10", "bpref", "dcg@10",
           "dcg_burges@10", "ndcg_burges@10", "rbp.95", "precision@1", "ndcg@3")


def make_case(rng: np.random.Generator) -> dict:
    R = int(rng.integers(2, 7))
    Q = int(rng.choice([int(rng.integers(2, 13)), int(rng.integers(13, 61)), int(rng.integers(61, 151))]))
    qrels: dict = {}
    pools: dict = {}
    no_rel: list = []
    for q in range(Q):
        qid = f"q{q}" if rng.random() < 0.5 else str(q + 1)
        docs = [f"d{i}" for i in range(int(rng.integers(3, 41)))]
        g = rng.integers(0, 4, len(docs)) * (rng.random(len(docs)) < 0.6)
        if rng.random() < 0.05:
            g[:] = 0
            no_rel.append(qid)
        elif not (g > 0).any():
            g[int(rng.integers(0, len(docs)))] = int(rng.integers(1, 4))
        qrels[qid] = {d: int(x) for d, x in zip(docs, g, strict=True) if x > 0 or rng.random() < 0.7}
        pools[qid] = docs + [f"u{i}" for i in range(int(rng.integers(0, 15)))]
    runs: list[dict] = []
    tied: list[set] = []
    for r in range(R):
        grid = rng.random() < 0.2
        if r and rng.random() < 0.25:  # a copy of a run before, or its ranking under other scores
            src = int(rng.integers(0, r))
            same = rng.random() < 0.5
            run = {q: {d: (s if same else float(2 + i)) for i, (d, s) in
                       enumerate(sorted(docs.items(), key=lambda x: (x[1], x[0])))} for q, docs in runs[src].items()}
            runs.append(run)
            tied.append(set(tied[src]) if same else set())
            continue
        run, ties = {}, set()
        for qid, pool in pools.items():
            k = int(rng.integers(1, len(pool) + 1))
            sel = rng.permutation(len(pool))[:k]
            sc = np.round(rng.random(k), 1) if grid else rng.random(k)
            if np.unique(sc).size < k:
                ties.add(qid)
            run[qid] = {pool[i]: float(s) for i, s in zip(sel, sc, strict=True)}
        runs.append(run)
        tied.append(ties)
    metrics = [METRICS[i] for i in sorted(rng.choice(len(METRICS), int(rng.integers(1, 5)), replace=False))]
    # ours takes ranx's names as they are, or with the prefix ranx:; bare bpref is trec_eval's (measures.md)
    prefix = bool(rng.random() < 0.3)
    names = {m: "ranx:" + m if prefix or m == "bpref" else m for m in metrics}
    return {"qrels": qrels, "runs": runs, "tied": tied, "no_rel": no_rel, "metrics": metrics, "names": names,
            "stat_test": str(rng.choice(["student", "fisher"])), "B": int(rng.choice([100, 500, 1000, 2000])),
            "seed": int(rng.integers(0, 2**31)), "max_p": float(rng.choice([0.01, 0.05])),
            "command": bool(rng.random() < 0.2)}


def ours_values(case) -> dict:
    """{(run name, metric): {qid: value}} from pref_eval.evaluate on the same dicts."""
    import pref_eval

    vals: dict = {}
    back = {v: k for k, v in case["names"].items()}
    for i, run in enumerate(case["runs"]):
        df = pref_eval.evaluate(case["qrels"], run, list(case["names"].values()))
        for m, q, v in zip(df.measure, df.qid, df.value, strict=True):
            vals.setdefault((f"r{i}", back[str(m)]), {})[str(q)] = float(v)
    return vals


def untied(run: dict) -> dict:
    """The run with its ties broken as trec_eval breaks them (docno descending), as distinct scores: ranx orders
    tied documents by its sort (measures.md, "Coming from ranx"), so it is given the order ours uses."""
    out = {}
    for q, docs in run.items():
        ranked = sorted(docs.items(), key=lambda x: (x[1], x[0]), reverse=True)
        out[q] = {d: float(len(ranked) - k) for k, (d, _) in enumerate(ranked)}
    return out


def run_ranx(case):
    import ranx

    qrels = ranx.Qrels(case["qrels"])
    runs = [ranx.Run(untied(r) if case["tied"][i] else r, name=f"r{i}") for i, r in enumerate(case["runs"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = ranx.compare(qrels, runs, case["metrics"], stat_test=case["stat_test"], n_permutations=case["B"],
                           max_p=case["max_p"], random_seed=case["seed"], rounding_digits=17)
    return rep, runs


def check_metrics(case, rep, runs, vals, out) -> None:
    """Per-query values (ranx given the runs' ties broken as ours breaks them) and means."""
    documented = set()
    for i, run in enumerate(runs):
        name = f"r{i}"
        for m in case["metrics"]:
            theirs = {str(q): float(v) for q, v in run.scores[m].items()}
            mine = vals[(name, m)]
            ok_all = set(theirs) == set(mine)
            for q in sorted(set(theirs) | set(mine)):
                x, y = theirs.get(q, math.nan), mine.get(q, math.nan)
                if math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) or (math.isnan(x) and math.isnan(y)):
                    continue
                ctx = {"run": name, "metric": m, "qid": q}
                if m == "bpref" and case["no_rel"]:  # ranx's ZeroDivisionError zeroes the topics after it
                    out("metric_bpref_no_relevant_documented", None, ctx, y, x)
                else:
                    out("metric_value", False, {**ctx, "qrels": case["qrels"][q], "run_topic": case["runs"][i][q]},
                        y, x)
                    ok_all = False
                documented.add((name, m))
            if (name, m) in documented:  # (its mean too)
                continue
            out("metric_values", ok_all, {"run": name, "metric": m}, None, None)
            mean = float(np.mean([mine[q] for q in sorted(mine)]))
            want = float(rep.results[name][m])
            ok = math.isclose(mean, want, rel_tol=1e-12, abs_tol=1e-15) or (math.isnan(mean) and math.isnan(want))
            out("metric_mean", ok, {"run": name, "metric": m}, mean, want)


def our_records(case, vals, tests: str, resamples: int = 1000, seed: int = 0) -> dict:
    """pref_eval.compare's records on ours' values: {(metric, run_a, run_b, test): record}."""
    import pandas as pd

    import pref_eval

    keep = finite_metrics(case, vals)
    rows = [(r, q, m, v) for (r, m), qv in vals.items() for q, v in qv.items() if m in keep]
    frame = pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])
    res = pref_eval.compare(frame, tests=tests, correction="none", resamples=resamples, seed=seed,
                            runs=[f"r{i}" for i in range(len(case["runs"]))], measures=keep)
    return {(r["measure"], r["run_a"], r["run_b"], r["test"]): r for r in res.records.to_dict("records")}


def finite_metrics(case, vals) -> list[str]:
    """The metrics without a NaN value (bpref's 0/0 where a topic has no judged non-relevant document, NaN in ranx
    and ours alike: measures.md; compare refuses a non-finite value)."""
    return [m for m in case["metrics"] if all(not math.isnan(v) for (_, mm), qv in vals.items() if mm == m
                                              for v in qv.values())]


def noisy(x: np.ndarray, y: np.ndarray) -> bool:
    raw = x - y
    return bool(((raw != 0) & (np.abs(raw) < 5e-13)).any())


def check_tests(case, rep, runs, out) -> None:
    """ranx's p-values against ours on ranx's own per-query values (the same values in both tests)."""
    R = len(case["runs"])
    fisher = case["stat_test"] == "fisher"
    theirs = {(f"r{i}", m): {str(q): float(v) for q, v in run.scores[m].items()} for i, run in enumerate(runs)
              for m in case["metrics"]}
    recs = our_records(case, theirs, "randomization" if fisher else "t", case["B"], case["seed"])
    keep = finite_metrics(case, theirs)
    for m in case["metrics"]:
        if m not in keep:
            out("test_nan_value_documented", None, {"metric": m}, None, None)
            continue
        for a in range(R):
            for b in range(a + 1, R):
                na, nb = f"r{a}", f"r{b}"
                qs = sorted(theirs[(na, m)])
                x = np.array([theirs[(na, m)][q] for q in qs])
                y = np.array([theirs[(nb, m)][q] for q in qs])
                ctx = {"metric": m, "pair": [na, nb], "x": x.tolist(), "y": y.tolist()}
                if noisy(x, y):
                    out("test_noise_rounded_documented", None, ctx, None, None)
                    continue
                p_theirs = float(rep.comparisons[frozenset([na, nb])][m]["p_value"])
                rec = recs[(m, na, nb, "randomization" if fisher else "t")]
                wtl = rep.win_tie_loss[(na, nb)][m]
                out("win_tie_loss", [rec["wins"], rec["ties"], rec["losses"]] == [wtl["W"], wtl["T"], wtl["L"]], ctx,
                    [rec["wins"], rec["ties"], rec["losses"]], wtl)
                p = float(rec["p_value"])
                if not fisher:
                    ok = math.isclose(p, p_theirs, rel_tol=1e-9, abs_tol=1e-13) or (math.isnan(p)
                                                                                   and math.isnan(p_theirs))
                    out("student", ok, ctx, p, p_theirs)
                    continue
                B = case["B"]
                strict, ties, ties_slack, M = fisher_reference(np.round(x - y, 12), case["seed"])
                # ranx compares the permuted means without a round-off allowance: where a permutation's mean
                # difference equals the observed one it may count or not (between "> obs" and ">= obs"); ours
                # counts it (docs/differences-stats.md 4.)
                band = 5 * math.sqrt(max(ties * (1 - ties), 1 / B) * (1 / B + 1 / M)) + 2 / B
                ok = strict - band <= p_theirs <= ties + band
                ok = ok and (bool(rec["exact"]) and ties - 1e-12 <= p <= ties_slack + 1e-12
                             or any(binomial_close(p, v, B, M) for v in (ties, ties_slack)))
                out("fisher", ok, {**ctx, "B": B}, p, p_theirs)


def fisher_reference(d: np.ndarray, seed: int) -> tuple[float, float, float, float]:
    """(P(|sum of the sign-flipped d| > |sum d|), P(... >= ...), P(... >= ... - the round-off ours allows), M):
    exact over all sign vectors where at most FLIP_EXACT_MAX (32) differences are non-zero (a zero flips to itself;
    fuzz_compare.flip_tails, M = inf), else over M = 20,000 own random sign vectors; sums in exact integers (units
    of 1e-12)."""
    n = d.size
    di = np.array(ints12(d), dtype=np.int64)
    nz = di[di != 0]
    obs = abs(int(di.sum()))
    slack = slack_units(di.tolist())
    counts = flip_tails(nz, [obs + 1, obs, obs - slack])
    if counts is not None:
        return counts[0] / (1 << nz.size), counts[1] / (1 << nz.size), counts[2] / (1 << nz.size), math.inf
    S = 1 - 2 * np.random.default_rng([seed, 7]).integers(0, 2, (20_000, n))
    sums = np.abs(S.astype(np.int64) @ di)
    return float((sums > obs).mean()), float((sums >= obs).mean()), float((sums >= obs - slack).mean()), 20_000


def check_command(case, vals, out) -> None:
    """zelo_compare -R on the TREC files: the records of pref_eval.compare on ours' values, bit for bit."""
    with tempfile.TemporaryDirectory(prefix="fuzz_ranx_") as tmp:
        qpath = os.path.join(tmp, "qrels")
        with open(qpath, "w", encoding="utf-8") as f:
            f.writelines(f"{q} 0 {d} {g}\n" for q, docs in case["qrels"].items() for d, g in docs.items())
        paths = []
        for i, run in enumerate(case["runs"]):
            paths.append(os.path.join(tmp, f"r{i}"))
            with open(paths[-1], "w", encoding="utf-8") as f:
                for q, docs in run.items():
                    ranked = sorted(docs.items(), key=lambda x: (-x[1], x[0]))
                    f.writelines(f"{q} Q0 {d} {k + 1} {s!r} r{i}\n" for k, (d, s) in enumerate(ranked))
        tests = "t,randomization"
        args = [sys.executable, str(ROOT / "bin" / "zelo_compare"), "-R", qpath, "-o", "jsonl", "-Q", "--tests", tests,
                "--correction", "none", "--resamples", str(case["B"]), "--seed", str(case["seed"])]
        keep = finite_metrics(case, vals)
        if not keep:
            return
        for m in keep:
            args += ["-m", case["names"][m]]
        p = subprocess.run(args + paths, capture_output=True, text=True, timeout=600,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    ctx = {"args": args[2:]}
    if p.returncode != 0 or "Traceback" in p.stderr:
        out("command_exit", False, ctx, [p.returncode, p.stderr[-2000:]], 0)
        return
    got = [json.loads(line) for line in p.stdout.splitlines()]
    back = {v: k for k, v in case["names"].items()}
    for r in got:
        r["measure"] = back.get(r["measure"], r["measure"])
    want = our_records(case, vals, tests, case["B"], case["seed"])
    # (the order of the measures is the evaluation's with -R, as zelo_eval prints them, not -m's: keyed here)
    keys = [(r["measure"], r["run_a"], r["run_b"], r["test"]) for r in got]
    if sorted(keys) != sorted(want) or len(set(keys)) != len(keys):
        out("command_records", False, ctx, sorted(keys)[:10], sorted(want)[:10])
        return
    diff = []
    for r in got:
        w = want[(r["measure"], r["run_a"], r["run_b"], r["test"])]
        for k, v in r.items():
            wv = w.get(k, 0.05 if k == "alpha" else None)  # (the report's level: compare's records leave it out)
            if isinstance(wv, float) and (math.isnan(wv) or math.isinf(wv)):
                same = v is None if math.isnan(wv) else v == ("inf" if wv > 0 else "-inf")
            else:
                same = v == wv
            if not same:
                diff.append([r["measure"], r["run_a"], r["run_b"], r["test"], k, v, wv])
    out("command_records", not diff, ctx, diff[:5], None)


def run_case(seed: int, index: int, checks, counts: Counter, findings: list) -> None:
    out = outcome(counts, findings, f"{seed}:{index}")
    try:
        import ranx  # noqa: F401
    except ImportError:
        out("ranx_missing", None, {}, None, None)
        return
    case = make_case(np.random.default_rng([seed, index]))
    vals = ours_values(case)
    if {"metrics", "student", "fisher"} & set(checks):
        rep, runs = run_ranx(case)
        if "metrics" in checks:
            check_metrics(case, rep, runs, vals, out)
        if case["stat_test"] in checks:
            check_tests(case, rep, runs, out)
    if "command" in checks and case["command"]:
        check_command(case, vals, out)


def main(argv: list[str] | None = None) -> int:
    return fuzz_main("fuzz_ranx", __doc__, CHECKS, run_case, argv)


if __name__ == "__main__":
    sys.exit(main())
