"""zelo_agree's pair-level figures *and their bootstrap intervals* against outside oracles computed live
(session 12, j21: an outside trial).

Random judgment files (2 or 3 judges, 1 to 12 queries) with the corner cases a user meets: ties, a pair
judged several times, written in either orientation, an ensemble's failed votes (``null``), judgments whose
votes all failed (the pair is named but not judged), pairs only one judge names, one pair in all, one label
used by every judge, judges that never share a pair. The labels are computed here from the raw lines with
``fractions`` (no pref_eval code); then

* Cohen's kappa and linear weighted kappa: ``statsmodels.stats.inter_rater.cohens_kappa``;
* Krippendorff's alpha (ordinal): the ``krippendorff`` package;
* agreement (ties a third category), agreement on decided pairs (ties dropped), coverage counts, tie,
  missing and failed-vote rates, confidence: by hand;
* the intervals: ``scipy.stats.bootstrap(method="percentile")`` resampling the *queries* with the same
  seed (scipy draws ``rng.integers(0, n, (resamples, n))`` as zelo_agree does, checked below), the
  statistic recomputed by the oracles above on each resample's pairs. A resample where the oracle cannot
  compute the statistic (0/0, a single category) is left out by zelo_agree (documented); then the oracle's
  interval is the percentile of the defined resamples (numpy's linear interpolation, scipy's too).
"""
from __future__ import annotations

import json
import math
import random
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from pref_eval.api import agree

krippendorff = pytest.importorskip("krippendorff")
inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
scipy_stats = pytest.importorskip("scipy.stats")

RESAMPLES = 40
CONF = 0.9


def _quiet(f, *a, **kw) -> float:
    """The oracle's value, NaN where it cannot compute one (raises, or divides 0 by 0)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            v = float(f(*a, **kw))
        except (ValueError, ZeroDivisionError, IndexError):
            return math.nan
    return v


def _cat(x: Fraction) -> int:
    return 0 if x < Fraction(1, 2) else (1 if x == Fraction(1, 2) else 2)


def _vote_score(v) -> Fraction:
    """One vote (-1..1, None = failed) as a judgment score under --ties half."""
    if v is None or v == 0:
        return Fraction(1, 2)
    return Fraction(1) if v > 0 else Fraction(0)


# ---- generation: files and what an outside reader makes of them ---------------------------------------------

def _case(tmp_path: Path, seed: int):
    rng = random.Random(seed)
    kind = ["mixed", "mixed", "mixed", "one-pair", "one-label", "disjoint", "ties", "sparse"][seed % 8]
    n_judges = 3 if seed % 3 == 0 else 2
    n_q = 1 if kind == "one-pair" else rng.randint(2, 12)
    queries = [f"q{i:02d}" for i in range(n_q)]
    pairs = []
    for qid in queries:
        docs = [f"d{i}" for i in range(rng.randint(2, 5))]
        cands = [(qid, a, b) for i, a in enumerate(docs) for b in docs[i + 1:]]
        pairs += sorted(rng.sample(cands, rng.randint(1, len(cands))))
    if kind == "one-pair":
        pairs = pairs[:1]
    files, judged, detail = [], [], []
    for k in range(n_judges):
        lines = []
        scores: dict = {}  # canonical pair -> list of judgment scores (lo-hi orientation)
        named: set = set()
        votes_of: dict = {}  # canonical pair -> [(category of each vote, lo-hi orientation, or None; lo shown first)]
        for p in pairs:
            if kind == "disjoint":
                if pairs.index(p) % n_judges != k:  # every pair named by one judge only
                    continue
            elif kind != "one-pair" and rng.random() < (0.4 if kind == "sparse" else 0.15):
                continue
            named.add(p)
            for _ in range(rng.choice([1, 1, 1, 2, 3])):
                flip = rng.random() < 0.5
                a, b = (p[2], p[1]) if flip else (p[1], p[2])
                if kind == "one-label":
                    s = Fraction(0) if not flip else Fraction(1)  # always the lo document
                    rec = {"qid": p[0], "doc_a": a, "doc_b": b, "score": float(s)}
                    scores.setdefault(p, []).append(Fraction(0))
                    votes_of.setdefault(p, []).append((0, not flip))
                elif kind == "ties":
                    rec = {"qid": p[0], "doc_a": a, "doc_b": b, "score": 0.5}
                    scores.setdefault(p, []).append(Fraction(1, 2))
                    votes_of.setdefault(p, []).append((1, not flip))
                elif rng.random() < 0.5:
                    s = rng.choice([Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(1)])
                    rec = {"qid": p[0], "doc_a": a, "doc_b": b, "score": float(s)}
                    scores.setdefault(p, []).append(1 - s if flip else s)
                    votes_of.setdefault(p, []).append((_cat(1 - s if flip else s), not flip))
                else:  # an ensemble's votes, some failed
                    votes = [rng.choice([None, -1.0, -0.4, 0.0, 0.3, 0.9]) for _ in range(rng.randint(1, 3))]
                    rec = {"qid": p[0], "doc_a": a, "doc_b": b, "votes": votes}
                    for v in votes:
                        c = None if v is None else _cat(_vote_score(v))
                        votes_of.setdefault(p, []).append((None if c is None else 2 - c if flip else c, not flip))
                    if any(v is not None for v in votes):
                        s = sum(map(_vote_score, votes), Fraction(0)) / len(votes)
                        scores.setdefault(p, []).append(1 - s if flip else s)
                lines.append((p[0], json.dumps(rec) + "\n"))
        if not lines:  # a judge names at least one pair
            p = pairs[-1]
            named.add(p)
            lines.append((p[0], json.dumps({"qid": p[0], "doc_a": p[1], "doc_b": p[2], "score": 1.0}) + "\n"))
            scores[p] = [Fraction(1)]
            votes_of[p] = [(2, True)]
        path = tmp_path / f"s{seed}j{k}.jsonl"
        path.write_text("".join(line for _, line in sorted(lines, key=lambda t: t[0])))
        files.append(str(path))
        judged.append({p: _cat(sum(s, Fraction(0)) / len(s)) for p, s in scores.items()} | {
            p: None for p in named if p not in scores})
        detail.append({"votes": votes_of, "mu": {p: sum(x, Fraction(0)) / len(x) for p, x in scores.items()}})
    return kind, files, judged, detail


def _query_order(judged) -> list[str]:
    """Queries as zelo_agree numbers them (the bootstrap resamples these): by id, whatever the files' order."""
    return sorted({p[0] for lab in judged for p in lab})


# ---- the oracles ------------------------------------------------------------------------------------------

def _table(x, y) -> np.ndarray:
    t = np.zeros((3, 3))
    for a, b in zip(x, y, strict=True):
        t[a, b] += 1
    return t


def _versus(x, y) -> dict[str, float]:
    t = _table(x, y)
    n = t.sum()
    dec = t[0, 0] + t[0, 2] + t[2, 0] + t[2, 2]
    return {
        "agreement": np.trace(t) / n if n else math.nan,
        "agreement_decided": (t[0, 0] + t[2, 2]) / dec if dec else math.nan,
        "cohen_kappa": _quiet(lambda: inter_rater.cohens_kappa(t).kappa) if n else math.nan,
        "weighted_kappa": _quiet(lambda: inter_rater.cohens_kappa(t, wt="linear").kappa) if n else math.nan,
        "krippendorff_alpha": _quiet(krippendorff.alpha, reliability_data=np.array([x, y], float),
                                     level_of_measurement="ordinal", value_domain=[0, 1, 2]) if n else math.nan,
    }


def _alone(lab: dict) -> dict[str, float]:
    labels = [v for v in lab.values() if v is not None]
    return {"tie_rate": float(np.mean([v == 1 for v in labels])) if labels else math.nan,
            "missing_rate": float(np.mean([v is None for v in lab.values()])) if lab else math.nan}


def _pairs_of(sample_queries, by_q):
    """The pairs of a resample of queries, a query drawn twice giving its pairs twice."""
    return [p for q in sample_queries for p in by_q.get(q, [])]


def _same(ours, want, tol=1e-9) -> bool:
    ours = math.nan if ours is None else ours
    if math.isnan(want) or math.isnan(ours):
        return math.isnan(want) and math.isnan(ours)
    return abs(ours - want) <= tol


def _interval(values: list[float]) -> tuple[float, float]:
    v = np.array([x for x in values if math.isfinite(x)])
    if len(v) == 0:
        return math.nan, math.nan
    tail = (1 - CONF) / 2 * 100
    lo, hi = np.percentile(v, [tail, 100 - tail])
    return float(lo), float(hi)


def test_scipy_bootstrap_draws_what_zelo_agree_draws():
    """The premise of the interval oracle: scipy.stats.bootstrap's resamples of n items (seeded Generator)
    are numpy's integers(0, n, (resamples, n)), the draws of pref_eval.agree.records.Bootstrap."""
    from pref_eval.agree.records import Bootstrap

    seen = []
    scipy_stats.bootstrap((np.arange(7),), lambda i: seen.append(np.bincount(i, minlength=7)) or 0.0,
                          vectorized=False, n_resamples=40, method="percentile",
                          random_state=np.random.default_rng(11))
    assert (np.array(seen[-40:]) == Bootstrap(7, 40, seed=11).weights).all()


@pytest.mark.parametrize("block", [0, pytest.param(1, marks=pytest.mark.slow)])  # seeds 16-31: slow (s30)
def test_values_and_intervals_equal_the_oracles(tmp_path, block):
    compared = undefined = intervals = 0
    kinds = set()
    for seed in range(block * 16, block * 16 + 16):
        kind, files, judged, _ = _case(tmp_path, seed)
        kinds.add(kind)
        names = [f"J{k}" for k in range(len(files))]
        recs = agree(files, names=names, levels=["pair"], resamples=RESAMPLES, seed=seed, confidence=CONF)
        got = {(r.judge_a, r.judge_b, r.statistic): r for r in recs}
        order = _query_order(judged)
        for k, lab in enumerate(judged):
            want = _alone(lab)
            by_q: dict = {}
            for p in sorted(lab):
                by_q.setdefault(p[0], []).append(p)
            for stat, w in want.items():
                r = got[(f"J{k}", "", stat)]
                assert _same(r.value, w), (seed, kind, k, stat, r.value, w)
                compared += 1
        for k in range(1, len(files)):
            ref, oth = judged[0], judged[k]
            both = sorted(p for p in ref if p in oth)
            assert got[("J0", f"J{k}", "matched")].value == len(both)
            assert got[("J0", f"J{k}", "only_in_a")].value == len([p for p in ref if p not in oth])
            assert got[("J0", f"J{k}", "only_in_b")].value == len([p for p in oth if p not in ref])
            scored = [p for p in both if ref[p] is not None and oth[p] is not None]
            want = _versus([ref[p] for p in scored], [oth[p] for p in scored])
            by_q = {}
            for p in scored:
                by_q.setdefault(p[0], []).append(p)
            # the bootstrap oracle: scipy draws the queries, every statistic is recomputed from scratch on
            # each resample's pairs (all five from one draw; scipy's own interval is checked on "agreement")
            thetas: list[dict[str, float]] = []
            index = np.arange(len(order))

            def theta(i, sink=thetas, by_q=by_q, ref=ref, oth=oth, order=order):
                ps = _pairs_of([order[j] for j in i], by_q)
                sink.append(_versus([ref[p] for p in ps], [oth[p] for p in ps]))
                return sink[-1]["agreement"]

            if len(index) < 2:  # scipy wants two observations; every resample is the one query
                res = None
                for _ in range(RESAMPLES):
                    theta(index)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = scipy_stats.bootstrap((index,), theta, vectorized=False, n_resamples=RESAMPLES,
                                                method="percentile", confidence_level=CONF,
                                                random_state=np.random.default_rng(seed))
            draws = thetas[-RESAMPLES:]
            if res is not None and all(math.isfinite(d["agreement"]) for d in draws):
                ci = res.confidence_interval  # scipy's own interval where every resample is defined
                assert _interval([d["agreement"] for d in draws]) == pytest.approx((ci.low, ci.high), abs=1e-12)
            for stat, w in want.items():
                r = got[("J0", f"J{k}", stat)]
                assert _same(r.value, w), (seed, kind, k, stat, r.value, w)
                compared += 1
                undefined += math.isnan(w)
                lo, hi = _interval([d[stat] for d in draws])
                assert _same(r.ci_low, lo) and _same(r.ci_high, hi), (seed, kind, k, stat, (r.ci_low, r.ci_high),
                                                                      (lo, hi))
                intervals += math.isfinite(lo)
    assert compared >= 60 and 0 < undefined < compared and intervals >= 30, (compared, undefined, intervals)
    assert len(kinds) >= 4


def _judge_alone(pairs: list, lab: dict, det: dict, M: int | None = None) -> dict[str, float]:
    """A judge's own figures on ``pairs`` (a resample: a pair may come several times), by hand and by the
    packages: votes, failed-vote rate, confidence, position bias, alpha and Fleiss' kappa among its votes."""
    votes = [v for p in pairs for v in det["votes"].get(p, [])]
    judged = [p for p in pairs if lab[p] is not None]
    both = [p for p in pairs if {f for _, f in det["votes"][p]} == {True, False}]
    decisive = [(c, first) for p in both for c, first in det["votes"][p] if c in (0, 2)]
    multi = [[c for c, _ in det["votes"][p] if c is not None] for p in pairs]
    multi = [m for m in multi if len(m) >= 2]
    out = {
        "pairs": float(len(pairs)), "votes": float(len(votes)),
        "tie_rate": sum(lab[p] == 1 for p in judged) / len(judged) if judged else math.nan,
        "missing_rate": (len(pairs) - len(judged)) / len(pairs) if pairs else math.nan,
        "failed_vote_rate": sum(c is None for c, _ in votes) / len(votes) if votes else math.nan,
        "confidence": float(np.mean([abs(2 * det["mu"][p] - 1) for p in judged])) if judged else math.nan,
        "position_bias": (sum((c == 0) == first for c, first in decisive) / len(decisive)) if decisive else math.nan,
    }
    if multi:
        data = np.full((max(map(len, multi)), len(multi)), np.nan)
        for u, m in enumerate(multi):
            data[:len(m), u] = m
        out["votes_alpha"] = _quiet(krippendorff.alpha, reliability_data=data, level_of_measurement="ordinal",
                                    value_domain=[0, 1, 2])
        sizes = [len(m) for m in multi]
        if M is None:  # the most common count (the smallest of equally common ones); a resample keeps the data's
            M = min(c for c in set(sizes) if sizes.count(c) == max(map(sizes.count, sizes)))
        rows = np.array([[m.count(c) for c in range(3)] for m in multi if len(m) == M])
        out[f"votes_fleiss_kappa_m{M}"] = _quiet(inter_rater.fleiss_kappa, rows)
    return out


def test_each_judges_own_figures_and_intervals_equal_the_oracles(tmp_path):
    """votes, failed_vote_rate, confidence, position_bias (on the pairs shown in both orders: the share of
    decisive votes for the document shown first), votes_alpha (krippendorff, coders = a pair's k-th vote) and
    votes_fleiss_kappa_mM (statsmodels' fleiss_kappa on the pairs with the most common number M >= 2 of valid
    votes), values and percentile intervals over scipy's resamples of the queries."""
    compared = intervals = 0
    seen = set()
    for seed in range(16):
        kind, files, judged, detail = _case(tmp_path, seed)
        names = [f"J{k}" for k in range(len(files))]
        recs = agree(files, names=names, levels=["pair"], resamples=RESAMPLES, seed=seed, confidence=CONF)
        got = {(r.judge_a, r.statistic): r for r in recs if r.judge_b == ""}
        order = _query_order(judged)
        draws = np.random.default_rng(seed).integers(0, len(order), size=(RESAMPLES, len(order)))
        for k, (lab, det) in enumerate(zip(judged, detail, strict=True)):
            pairs = sorted(lab)
            by_q: dict = {}
            for p in pairs:
                by_q.setdefault(p[0], []).append(p)
            want = _judge_alone(pairs, lab, det)
            fixed = [int(x.rsplit("_m", 1)[1]) for x in want if x.startswith("votes_fleiss")]
            thetas = [_judge_alone(_pairs_of([order[j] for j in d], by_q), lab, det, *fixed) for d in draws]
            for stat, w in want.items():
                r = got[(f"J{k}", stat)]
                assert _same(r.value, w), (seed, kind, k, stat, r.value, w)
                compared += 1
                if math.isfinite(w):
                    seen.add(stat.split("_m")[0])
                if stat in ("pairs", "votes"):
                    continue  # counts: no interval
                lo, hi = _interval([t.get(stat, math.nan) for t in thetas])
                assert _same(r.ci_low, lo) and _same(r.ci_high, hi), (seed, kind, k, stat, (r.ci_low, r.ci_high),
                                                                      (lo, hi))
                intervals += math.isfinite(lo)
            assert not any(s.startswith("votes_fleiss") for s in want) or len(
                [x for (j, x) in got if j == f"J{k}" and x.startswith("votes_fleiss")]) == 1
    assert compared >= 150 and intervals >= 60, (compared, intervals)
    assert {"position_bias", "votes_alpha", "votes_fleiss_kappa"} <= seen


def _all_judges(pairs: list, judged: list) -> dict[str, float]:
    """Every judge's label as one coder: alpha over the pairs (missing where a judge has no label), Fleiss' kappa
    on the pairs every judge labelled."""
    data = np.array([[lab.get(p) if lab.get(p) is not None else np.nan for p in pairs] for lab in judged], float)
    full = [p for p in pairs if all(lab.get(p) is not None for lab in judged)]
    rows = np.array([[sum(lab[p] == c for lab in judged) for c in range(3)] for p in full])
    return {"krippendorff_alpha": _quiet(krippendorff.alpha, reliability_data=data, level_of_measurement="ordinal",
                                         value_domain=[0, 1, 2]) if pairs else math.nan,
            "fleiss_kappa": _quiet(inter_rater.fleiss_kappa, rows) if full else math.nan}


def test_all_judges_together_values_and_intervals(tmp_path):
    """Three judges: the 'all' records against krippendorff / statsmodels, intervals over scipy's resamples."""
    compared = intervals = 0
    for seed in range(0, 48, 3):  # the cases with three judges
        kind, files, judged, _ = _case(tmp_path, seed)
        assert len(files) == 3
        recs = agree(files, names=["J0", "J1", "J2"], levels=["pair"], resamples=RESAMPLES, seed=seed,
                     confidence=CONF)
        got = {r.statistic: r for r in recs if r.judge_a == "all"}
        order = _query_order(judged)
        union = sorted(set().union(*judged))
        by_q: dict = {}
        for p in union:
            by_q.setdefault(p[0], []).append(p)
        want = _all_judges(union, judged)
        draws = np.random.default_rng(seed).integers(0, len(order), size=(RESAMPLES, len(order)))
        thetas = [_all_judges(_pairs_of([order[j] for j in d], by_q), judged) for d in draws]
        for stat, w in want.items():
            r = got[stat]
            assert _same(r.value, w), (seed, kind, stat, r.value, w)
            lo, hi = _interval([t[stat] for t in thetas])
            assert _same(r.ci_low, lo) and _same(r.ci_high, hi), (seed, kind, stat, (r.ci_low, r.ci_high), (lo, hi))
            compared += 1
            intervals += math.isfinite(lo)
    assert compared == 32 and intervals >= 12, (compared, intervals)


def test_document_top_figures_take_ties_at_random_not_by_line_order(tmp_path):
    """A reference whose every judgment is a tie fits six equal scores; the other judge orders the six strictly.
    Taking tied documents in a random order: top-1 agreement 1/6, top-2 overlap (2 x 1/3) / 2 = 1/3, the other's
    top inside the reference's interval 1. Before session 12 the first document read won the tie: the same
    judgments written in reverse order gave top-2 overlap 1.0 instead of 0.0. Also: shuffled lines of random
    cases give the same document-level records."""
    docs = [f"d{i}" for i in range(6)]
    pairs = [(a, b) for i, a in enumerate(docs) for b in docs[i + 1:]]
    rows = {"ref": [{"qid": "q1", "doc_a": a, "doc_b": b, "score": 0.5} for a, b in pairs],
            "oth": [{"qid": "q1", "doc_a": a, "doc_b": b, "score": 1.0} for a, b in pairs]}
    got = []
    for k, flip in enumerate((False, True)):
        files = []
        for name, rs in rows.items():
            path = tmp_path / f"{name}{k}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in (rs[::-1] if flip else rs)))
            files.append(str(path))
        recs = agree(files, names=["r", "o"], levels=["document"], resamples=0, top_k=2)
        got.append({r.statistic: r.value for r in recs})
    assert repr(got[0]) == repr(got[1]) and math.isnan(got[0]["kendall_tau_b"])  # tau_b of a constant: undefined
    assert got[0]["top1_agreement"] == pytest.approx(1 / 6, abs=1e-15)
    assert got[0]["top2_overlap"] == pytest.approx(1 / 3, abs=1e-15) and got[0]["top1_in_ref_interval"] == 1.0
    for seed in range(6):
        _, files, _, _ = _case(tmp_path, seed)
        base = agree(files, levels=["document"], resamples=30, seed=1, names=[f"J{k}" for k in range(len(files))])
        rng = random.Random(seed)
        for f in files:
            lines = Path(f).read_text().splitlines(keepends=True)
            rng.shuffle(lines)
            Path(f).write_text("".join(lines))
        again = agree(files, levels=["document"], resamples=30, seed=1, names=[f"J{k}" for k in range(len(files))])
        assert [repr(r.row()) for r in again] == [repr(r.row()) for r in base], seed


def test_resample_weights_drawn_in_blocks_are_one_draw_and_a_huge_request_is_refused(tmp_path):
    """The weights are drawn a block of rows at a time (memory: the weights and one block); they equal one
    ``integers(0, n, (R, n))`` draw counted per row. A request whose weights would pass 2 GB is one line, exit 2
    (100,000,000 resamples of 3 queries ran out of memory or time before)."""
    from pref_eval.agree.records import Bootstrap
    from pref_eval.errors import UsageError

    n, R = 5000, 1000  # blocks of 838 rows
    draws = np.random.default_rng(7).integers(0, n, size=(R, n))
    want = np.zeros((R, n))
    np.add.at(want, (np.repeat(np.arange(R), n), draws.ravel()), 1)
    assert (Bootstrap(n, R, seed=7).weights == want).all()
    with pytest.raises(UsageError, match=r"^resamples=100000000 x 3 queries: the resample weights would take 2\.4"):
        Bootstrap(3, 100_000_000)
    (tmp_path / "a.jsonl").write_text('{"qid": "q", "doc_a": "a", "doc_b": "b", "score": 1}\n')
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "pref_eval.cli.agree", "-J", str(tmp_path / "a.jsonl"), "-J",
                        str(tmp_path / "a.jsonl"), "--resamples", "300000000"], capture_output=True, text=True,
                       env={"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "PATH": "/usr/bin:/bin"})
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "give fewer --resamples" in p.stderr, p.stderr


def _calibration(pairs: list, mu: dict, y: dict, n_buckets: int = 20) -> dict[str, float]:
    """Brier score, log loss (mu clipped to [1e-15, 1 - 1e-15]) and ECE over the buckets of the
    pairs taken in both orientations, by hand (the buckets by the rule written out in
    test_agree_calibration.reference_parts)."""
    from test_agree_calibration import reference_parts

    if not pairs:
        return {"brier": math.nan, "log_loss": math.nan}
    # the pair scores as zelo_agree keeps them: rounded to 12 decimals (documented)
    mu = {p: np.round(float(mu[p]), 12) for p in pairs}
    y = {p: np.round(float(y[p]), 12) for p in pairs}
    m = np.array([mu[p] for p in pairs])
    t = np.array([y[p] for p in pairs])
    c = np.clip(m, 1e-15, 1 - 1e-15)
    out = {"brier": float(np.mean((m - t) ** 2)),
           "log_loss": float(-np.mean(t * np.log(c) + (1 - t) * np.log(1 - c)))}
    m2 = np.concatenate([m, np.round(1 - m, 12)])
    t2 = np.concatenate([t, np.round(1 - t, 12)])
    parts = reference_parts(m2, n_buckets)
    out["ece"] = float(sum(len(p) / len(m2) * abs(m2[p].mean() - t2[p].mean()) for p in parts))
    return out


@pytest.mark.parametrize("block", [0, pytest.param(1, marks=pytest.mark.slow)])  # seeds 8-15: slow (s30)
def test_calibration_figures_equal_a_hand_computation(tmp_path, block):
    """ece, brier, log_loss (values; brier and log_loss intervals over the resamples) against the exact pair
    scores of the generated files."""
    compared = intervals = 0
    for seed in range(block * 8, block * 8 + 8):
        kind, files, judged, detail = _case(tmp_path, seed)
        recs = agree(files, names=[f"J{k}" for k in range(len(files))], levels=["calibration"], calibration="always",
                     resamples=RESAMPLES, seed=seed, confidence=CONF)
        got = {(r.judge_b, r.statistic): r for r in recs}
        order = _query_order(judged)
        draws = np.random.default_rng(seed).integers(0, len(order), size=(RESAMPLES, len(order)))
        y = detail[0]["mu"]
        for k in range(1, len(files)):
            mu = detail[k]["mu"]
            pairs = sorted(p for p in mu if p in y)
            by_q: dict = {}
            for p in pairs:
                by_q.setdefault(p[0], []).append(p)
            want = _calibration(pairs, mu, y)
            if not pairs:
                assert (f"J{k}", "brier") not in got or math.isnan(got[(f"J{k}", "brier")].value)
                continue
            for stat, w in want.items():
                r = got[(f"J{k}", stat)]
                assert _same(r.value, w, 1e-12), (seed, kind, k, stat, r.value, w)
                compared += 1
                if stat == "ece":
                    continue
                lo, hi = _interval([_calibration(_pairs_of([order[j] for j in d], by_q), mu, y)[stat] for d in draws])
                assert _same(r.ci_low, lo, 1e-12) and _same(r.ci_high, hi, 1e-12), (seed, k, stat)
                intervals += math.isfinite(lo)
    assert compared >= 20 and intervals >= 10, (compared, intervals)
