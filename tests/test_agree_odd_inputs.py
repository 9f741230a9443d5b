"""zelo_agree on odd inputs against outside oracles computed live (session 8, an outside user's trial).

Small random cases -- one to a few pairs, every label a tie, every label the same document, pairs judged
several times, written in either orientation, judges that share few or no pairs, two or three judges --
and the pair-level figures against statsmodels' ``cohens_kappa`` (plain and linear weights) and
``fleiss_kappa`` and the ``krippendorff`` package's ordinal ``alpha``. A figure the oracle cannot compute
(p_e = 1: every label in one category; a single value in the domain; no shared pair) must be missing in
ours too, never a number. sklearn is not a dependency of the environment, so statsmodels stands for it.
"""
from __future__ import annotations

import json
import math
import random
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from pref_eval.api import agree

krippendorff = pytest.importorskip("krippendorff")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
ROOT = Path(__file__).resolve().parents[1]


def _cat(s: float) -> int:
    return 0 if s < 0.5 else (1 if s == 0.5 else 2)


def _or_nan(f, *args, **kw) -> float:
    """The oracle's value, NaN where it cannot compute one (it raises or divides 0 by 0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return float(f(*args, **kw))
        except (ValueError, ZeroDivisionError):
            return math.nan


def _kappa(x, y, wt=None) -> float:
    t = np.zeros((3, 3))
    for a, b in zip(x, y, strict=True):
        t[a, b] += 1
    return _or_nan(lambda: inter_rater.cohens_kappa(t, wt=wt).kappa) if len(x) else math.nan


def _alpha(data) -> float:
    return _or_nan(krippendorff.alpha, reliability_data=np.array(data, float), level_of_measurement="ordinal",
                   value_domain=[0, 1, 2])


def _case(tmp_path: Path, seed: int):
    """Judgment files of a random odd case; returns paths, pairs and each judge's label per pair."""
    rng = random.Random(seed)
    n_judges = rng.choice([2, 2, 3])
    skew = rng.choice(["ties", "one-side", "mixed", "mixed"])
    pairs = []
    for q in range(rng.randint(1, 3)):
        docs = [f"d{i}" for i in range(rng.randint(2, 4))]
        cands = [(f"q{q}", a, b) for i, a in enumerate(docs) for b in docs[i + 1:]]
        pairs += rng.sample(cands, rng.randint(1, len(cands)))
    paths, labels = [], []
    for k in range(n_judges):
        lab: dict = {}
        lines = []
        for p in pairs:
            if rng.random() < 0.2 and len(pairs) > 1:
                continue  # absent from this judge
            scores = []
            for _ in range(rng.choice([1, 1, 2])):  # sometimes judged twice: the label is the mean's
                s = 0.5 if skew == "ties" else 1.0 if skew == "one-side" else rng.choice([0.0, 0.5, 1.0, 1.0])
                scores.append(s)
                a, b, v = (p[1], p[2], s) if rng.random() < 0.5 else (p[2], p[1], 1 - s)  # either orientation
                lines.append(json.dumps({"qid": p[0], "doc_a": a, "doc_b": b, "score": v}) + "\n")
            lab[p] = _cat(sum(scores) / len(scores))
        if not lines:
            p = pairs[0]
            lines.append(json.dumps({"qid": p[0], "doc_a": p[1], "doc_b": p[2], "score": 1.0}) + "\n")
            lab[p] = 2
        path = tmp_path / f"s{seed}j{k}.jsonl"
        path.write_text("".join(lines))
        paths.append(str(path))
        labels.append(lab)
    return paths, pairs, labels


def _same(ours, want) -> bool:
    ours = math.nan if ours is None else ours
    if math.isnan(want) or math.isnan(ours):
        return math.isnan(want) and math.isnan(ours)
    return abs(ours - want) < 1e-9


def test_pair_level_figures_equal_the_oracles_on_odd_cases(tmp_path):
    compared, undefined = 0, 0
    for seed in range(60):
        paths, pairs, labels = _case(tmp_path, seed)
        names = [f"J{k}" for k in range(len(paths))]
        recs = agree(paths, names=names, levels=["pair"], resamples=0, seed=0)
        got = {(r.judge_a, r.judge_b, r.statistic): r.value for r in recs}
        want = {}
        for k in range(1, len(paths)):
            both = [p for p in pairs if p in labels[0] and p in labels[k]]
            x, y = [labels[0][p] for p in both], [labels[k][p] for p in both]
            want[("J0", f"J{k}", "cohen_kappa")] = _kappa(x, y)
            want[("J0", f"J{k}", "weighted_kappa")] = _kappa(x, y, "linear")
            want[("J0", f"J{k}", "krippendorff_alpha")] = _alpha([x, y]) if both else math.nan
            want[("J0", f"J{k}", "agreement")] = float(np.mean(np.equal(x, y))) if both else math.nan
        if len(paths) == 3:
            want[("all", "", "krippendorff_alpha")] = _alpha([[lab.get(p, math.nan) for p in pairs] for lab in labels])
            full = [p for p in pairs if all(p in lab for lab in labels)]
            rows = np.array([[sum(lab[p] == c for lab in labels) for c in range(3)] for p in full])
            want[("all", "", "fleiss_kappa")] = _or_nan(inter_rater.fleiss_kappa, rows) if len(full) else math.nan
        for key, w in want.items():
            assert _same(got[key], w), (seed, key, got[key], w)
            compared += 1
            undefined += math.isnan(w)
    assert compared >= 300 and 20 <= undefined < compared  # the sweep reaches the degenerate cases too


def _missing(v) -> bool:
    return v is None or math.isnan(v)


def test_named_odd_cases(tmp_path):
    """Every label a tie: agreement 1, kappa and alpha missing (p_e = 1); one pair judged oppositely:
    kappa = weighted kappa = alpha = 0 (statsmodels, krippendorff); no shared pair: nothing matched."""
    def write(name, rows):
        (tmp_path / name).write_text("".join(json.dumps(dict(zip(("qid", "doc_a", "doc_b", "score"), r, strict=True)))
                                             + "\n"
                                             for r in rows))
        return str(tmp_path / name)

    def figures(a, b):
        return {r.statistic: r.value for r in agree([a, b], levels=["pair"], resamples=0, names=["a", "b"])
                if r.judge_b == "b"}

    ties = [("q1", "a", "b", 0.5), ("q1", "a", "c", 0.5), ("q2", "x", "y", 0.5)]
    f = figures(write("t1.jsonl", ties), write("t2.jsonl", ties))
    assert f["agreement"] == 1.0 and _missing(f["cohen_kappa"]) and _missing(f["krippendorff_alpha"])
    assert math.isnan(_kappa([1, 1, 1], [1, 1, 1])) and math.isnan(_alpha([[1, 1, 1], [1, 1, 1]]))
    f = figures(write("s1.jsonl", [("q1", "a", "b", 1)]), write("s2.jsonl", [("q1", "b", "a", 1)]))
    assert f["agreement"] == 0.0 and f["cohen_kappa"] == _kappa([2], [0]) == 0.0
    assert f["weighted_kappa"] == _kappa([2], [0], "linear") == 0.0 and f["krippendorff_alpha"] == _alpha([[2], [0]])
    f = figures(write("n1.jsonl", [("q1", "a", "b", 1)]), write("n2.jsonl", [("q2", "a", "b", 1)]))
    assert f["matched"] == 0 and f["only_in_a"] == f["only_in_b"] == 1
    assert _missing(f["agreement"]) and _missing(f["cohen_kappa"])


def test_one_judge_is_refused_and_seeded_resampling_gives_the_same_bytes(tmp_path):
    """One judge: one line, exit 2. The bootstrap: the same seed gives the same bytes, another seed other
    intervals (20 queries: with the 3 topics of the shipped sample, 100 resamples reach every resample of the
    queries and seeds often give equal percentiles)."""
    rng = random.Random(0)
    for k in range(2):
        with open(tmp_path / f"j{k}.jsonl", "w") as fh:
            for q in range(20):
                for a, b in (("d1", "d2"), ("d1", "d3"), ("d2", "d3")):
                    fh.write(json.dumps({"qid": f"q{q}", "doc_a": a, "doc_b": b,
                                         "score": rng.choice([0, 0.5, 1, 1])}) + "\n")
    run = [sys.executable, "-m", "pref_eval.cli.agree"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    p = subprocess.run([*run, "-J", str(tmp_path / "j0.jsonl")], capture_output=True, text=True, env=env)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "at least two judgment files" in p.stderr, p.stderr
    outs = [subprocess.run([*run, "-J", str(tmp_path / "j0.jsonl"), "-J", str(tmp_path / "j1.jsonl"), "-l", "pair",
                            "--resamples", "100", "--seed", str(s), "-o", "jsonl"], capture_output=True,
                           env=env).stdout for s in (5, 5, 6)]
    assert outs[0] == outs[1] != outs[2] and outs[0].count(b"\n") > 20
