"""ranx's metric names (pref_eval/measures/ranx.py): ranx's values, live and by hand.

Live: every supported ranx metric, per query and mean, against ranx itself
(skipped when ranx is not importable) on trec_eval's test collection
(binary and graded qrels) and on random corner-case collections (ties,
grades -2..4, topics without relevant documents, run-only and qrels-only
topics, runs shorter than the cutoffs, runs of up to 250 documents). ranx orders tied documents by its
own sort (not the same for dicts and for ``ranx.Run``), so ranx is given
each run with its ties broken in trec_eval's order (score descending, docno
descending), the order pref_eval uses. ranx's mean is taken over every
qrels topic (as with ``make_comparable=True``) and compared with
``complete=True``. ranx's bpref stops at the first topic without a relevant
document (ZeroDivisionError inside its parallel loop: that topic and the
later ones get 0), so bpref is asked of ranx one topic at a time.

``python tests/test_ranx_names.py`` prints the counts of cases equal and
different.
"""
from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import warns_missing_topics

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.measures import parse_measure, parse_trec_measures

ROOT = Path(__file__).resolve().parents[1]
TE = ROOT / ".." / "shared" / "data" / "trec_eval_test"

KS = (1, 3, 5, 10, 50)
WITH_K = ("hits", "hit_rate", "precision", "recall", "f1", "mrr", "map", "dcg", "dcg_burges", "ndcg", "ndcg_burges")
TREC_BARE = ("map", "recall", "ndcg", "bpref", "dcg")


def ranx_metric_names() -> list[str]:
    """Every ranx metric the comparison covers, in ranx's spelling."""
    names = [f"{m}@{k}" for m in WITH_K for k in KS] + list(WITH_K) + ["r-precision", "bpref", "rbp.5", "rbp.95"]
    for lv in (0, 2):
        names += [f"{m}@5-l{lv}" for m in WITH_K] + [f"{m}-l{lv}" for m in WITH_K]
        names += [f"r-precision-l{lv}", f"bpref-l{lv}", f"rbp.8-l{lv}"]
    return names


def ours(name: str) -> str:
    """Our spelling: ranx's, with ``ranx:`` before a bare name trec_eval also has."""
    return "ranx:" + name if name in TREC_BARE else name


# ------------------------------------------------------------------ collections
def read_qrels(path: Path) -> dict:
    out: dict = {}
    for line in path.read_text().splitlines():
        q, _, d, g = line.split()
        out.setdefault(q, {})[d] = int(g)
    return out


def read_run(path: Path) -> dict:
    out: dict = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        out.setdefault(q, {})[d] = float(s)
    return out


def random_collection(seed: int) -> tuple[dict, dict]:
    """Corner cases: ties, grades -1..3, topics without relevant docs, run-only/qrels-only topics, short runs."""
    rng = np.random.default_rng(seed)
    docs = [f"d{i:02d}" for i in range(40)]
    qrels: dict = {}
    run: dict = {}
    for t in range(12):
        q = f"q{t}"
        judged = rng.choice(40, size=int(rng.integers(1, 25)), replace=False)
        grades = rng.choice([-1, 0, 0, 1, 1, 2, 3], size=len(judged))
        if t % 5 == 1:
            grades = np.minimum(grades, 0)  # no relevant document at any level ≥ 1
        if t % 6 == 2:
            grades = np.where(grades < 1, 1, grades)  # nothing judged below 1 (bpref's N = 0)
        if t != 11:  # q11: a run-only topic
            qrels[q] = {docs[i]: int(g) for i, g in zip(judged, grades, strict=True)}
        if t == 10:
            continue  # q10: a qrels-only topic
        n = int(rng.choice([1, 2, 3, 8, 30]))
        ret = rng.choice(40, size=n, replace=False)
        scores = rng.integers(0, 4, size=n).astype(float)  # many ties
        run[q] = {docs[i]: float(s) for i, s in zip(ret, scores, strict=True)}
    return qrels, run


def long_collection(seed: int) -> tuple[dict, dict]:
    """Longer runs (up to 250 documents: ranx's sort is no longer an insertion sort), grades -2..4, rounded scores."""
    rng = np.random.default_rng(1000 + seed)
    docs = [f"doc{i:03d}" for i in range(300)]
    qrels: dict = {}
    run: dict = {}
    for t in range(20):
        q = f"t{t:02d}"
        judged = rng.choice(300, size=int(rng.integers(1, 120)), replace=False)
        grades = rng.choice([-2, -1, 0, 0, 0, 1, 1, 2, 3, 4], size=len(judged))
        if rng.random() < 0.15:
            grades = np.minimum(grades, 0)
        if rng.random() < 0.9 or not qrels:
            qrels[q] = {docs[i]: int(g) for i, g in zip(judged, grades, strict=True)}
        if rng.random() < 0.1:
            continue
        n = int(rng.integers(1, 250))
        ret = rng.choice(300, size=n, replace=False)
        scores = np.round(rng.normal(size=n), int(rng.integers(0, 3)))
        run[q] = {docs[i]: float(s) for i, s in zip(ret, scores, strict=True)}
    return qrels, run


# ------------------------------------------------------------------ ranx
def trec_order_scores(run: dict) -> dict:
    """The run with scores n, n-1, ... in trec_eval's order (ties: docno descending), so ranx sees no tie."""
    out = {}
    for q, docs in run.items():
        order = sorted(docs.items(), key=lambda kv: (kv[1], kv[0].encode()), reverse=True)
        out[q] = {d: float(len(order) - i) for i, (d, _) in enumerate(order)}
    return out


def ranx_values(qrels: dict, run: dict, names: list[str], untie: bool = True) -> dict[str, dict[str, float]]:
    """ranx's per-query values {name: {qid: value}} over every qrels topic.

    ``untie``: give ranx the run with its ties broken in trec_eval's order (see the module docstring).
    ranx is given plain dicts (its ``ranx.Qrels`` compiles its numba functions again for every length
    of doc ids: minutes in a fresh environment), so the topics are made comparable here as
    ``make_comparable=True`` does: a qrels topic the run lacks gets a one-document ranking of a
    document absent from the qrels, on which every ranx metric is 0 as on the empty ranking
    (checked below with ranx's own make_comparable on one such topic).
    """
    import ranx

    run = trec_order_scores(run) if untie else run
    comparable = {q: run.get(q) or {"__not_in_the_qrels__": 0.0} for q in qrels}  # qrels' key order
    out: dict[str, dict[str, float]] = {}
    plain = [n for n in names if not n.startswith("bpref")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ranx.evaluate(qrels, comparable, plain, return_mean=False) if plain else {}
        if len(plain) == 1:
            res = {plain[0]: res}
        for n in plain:
            out[n] = dict(zip(qrels, map(float, res[n]), strict=True))
        for n in (n for n in names if n.startswith("bpref")):  # one topic at a time (ranx's bpref bug)
            out[n] = {q: float(ranx.evaluate({q: qrels[q]}, {q: comparable[q]}, n)) for q in qrels}
    return out


def our_values(qrels: dict, run: dict, names: list[str], complete: bool) -> dict[str, dict[str, float]]:
    with warns_missing_topics(qrels, {} if complete else {"run": run}):
        df = pref_eval.evaluate(qrels, run, [ours(n) for n in names], complete=complete, summary=True)
    out: dict[str, dict[str, float]] = {}
    for n in names:
        sub = df[df.measure == ours(n)]
        out[n] = dict(zip(sub.qid, sub.value.astype(float), strict=True))
    return out


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def compare(qrels: dict, run: dict, names: list[str], untie: bool = True) -> tuple[int, list[str]]:
    """(cases compared, differences): per query (the topics of run and qrels) and mean (every qrels topic)."""
    rx = ranx_values(qrels, run, names, untie)
    ours_q = our_values(qrels, run, names, complete=False)
    ours_c = our_values(qrels, run, names, complete=True)
    n, bad = 0, []
    shared = sorted(set(qrels) & set(run))
    for name in names:
        for q in shared:
            n += 1
            if not same(ours_q[name][q], rx[name][q]):
                bad.append(f"{name} {q}: ours {ours_q[name][q]!r} ranx {rx[name][q]!r}")
        for q in qrels:
            n += 1
            if not same(ours_c[name][q], rx[name][q]):
                bad.append(f"{name} {q} (complete): ours {ours_c[name][q]!r} ranx {rx[name][q]!r}")
        n += 1
        mean = float(np.mean([rx[name][q] for q in qrels]))
        if not same(ours_c[name]["all"], mean):
            bad.append(f"{name} mean: ours {ours_c[name]['all']!r} ranx {mean!r}")
    return n, bad


def collections() -> list[tuple[str, dict, dict]]:
    out = []
    if TE.is_dir():
        run = read_run(TE / "results.test")
        out.append(("trec_eval qrels.test", read_qrels(TE / "qrels.test"), run))
        out.append(("trec_eval qrels.rel_level", read_qrels(TE / "qrels.rel_level"), run))
    for seed in range(4):
        out.append((f"random seed {seed}", *random_collection(seed)))
    for seed in range(2):
        out.append((f"long runs seed {seed}", *long_collection(seed)))
    return out


@pytest.mark.slow  # ranx's numba functions compile on first use (≈ 1 min CPU in a fresh venv)
@pytest.mark.parametrize("label,qrels,run", collections(), ids=lambda x: x if isinstance(x, str) else "")
def test_live_against_ranx(label, qrels, run):
    pytest.importorskip("ranx")
    n, bad = compare(qrels, run, ranx_metric_names())
    assert n > 0
    assert not bad, f"{label}: {len(bad)} of {n} differ:\n" + "\n".join(bad[:20])


@pytest.mark.slow
def test_live_comparison_sees_tie_order():
    """The comparison can fail: ranx given the tied scores as they are orders the ties its own way."""
    pytest.importorskip("ranx")
    qrels, run = random_collection(0)
    n, bad = compare(qrels, run, ["mrr@3", "ndcg@3", "precision@1"], untie=False)
    assert bad, "random_collection(0) has ties that change these values"
    # a qrels topic the run lacks: ranx's make_comparable gives 0, as the stand-in ranking of ranx_values
    import ranx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        q1 = {"q": {"d01": 1, "d02": 0}, "z": {"d01": 2, "d03": 0}}  # 3-character ids as random_collection's:
        mc = ranx.evaluate(ranx.Qrels(q1), ranx.Run({"q": {"d01": 1.0}}),  # ranx.Qrels compiles once per id length
                           ["ndcg@3", "precision", "bpref", "rbp.5"], return_mean=False, make_comparable=True)
    stand_in = ranx_values(q1, {"q": {"d01": 1.0}}, ["ndcg@3", "precision", "bpref", "rbp.5"])
    assert all(stand_in[n]["z"] == float(mc[n][1]) == 0.0 for n in mc)
    # the docs' claim: ranx orders ties differently for a ranx.Run and for a dict (here: bpref 0.25 and 0)

    q = {"q": {"d01": 1, "d02": 0, "d03": 2, "d04": -1}}
    r = {"q": {"d04": 2.0, "d05": 1.0, "d01": 1.0, "d02": 1.0, "d03": 0.5}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        as_run = ranx.evaluate(ranx.Qrels(q), ranx.Run(r), "bpref")
        as_dict = ranx.evaluate(q, r, "bpref")
    assert as_run != as_dict
    ours_v = pref_eval.calc_aggregate(["ranx:bpref"], q, r)["ranx:bpref"]  # ties by docno desc: d04 d05 d02 d01 d03
    assert ours_v == ranx.evaluate(ranx.Qrels(q), ranx.Run(trec_order_scores(r)), "bpref") == 0.0


# ------------------------------------------------------------------ by hand
# One query. Qrels: a:2, b:0, c:1, n:-1, e:3 (not retrieved). Ranking (no ties): n, x, a, b, c.
HAND_QRELS = {"q": {"a": 2, "b": 0, "c": 1, "n": -1, "e": 3}}
HAND_RUN = {"q": {"n": 5.0, "x": 4.0, "a": 3.0, "b": 2.0, "c": 1.0}}
L2, L3, L5 = math.log2(2), math.log2(3), math.log2(4)  # discounts at ranks 1..3 (L2 = 1)
D4, D5, D6 = math.log2(5), math.log2(6), math.log2(7)
HAND = {
    # Rel (≥1) = {a, c, e}, R = 3; relevant at ranks 3 (a) and 5 (c)
    "hits@3": 1.0, "hits": 2.0, "hit_rate@2": 0.0, "hit_rate@3": 1.0,
    "precision@3": 1 / 3, "precision@10": 2 / 10, "precision": 2 / 5,
    "recall@3": 1 / 3, "ranx:recall": 2 / 3,
    "f1@3": 2 * (1 / 3 * 1 / 3) / (2 / 3), "f1": 2 * (2 / 5 * 2 / 3) / (2 / 5 + 2 / 3),
    "r-precision": 1 / 3, "mrr": 1 / 3, "mrr@2": 0.0,
    "map@3": (1 / 3) / 3, "ranx:map": (1 / 3 + 2 / 5) / 3,
    "dcg@3": 2 / L5, "ranx:dcg": 2 / L5 + 1 / D5,
    "dcg_burges@3": 3 / L5, "dcg_burges": 3 / L5 + 1 / D5,
    "ndcg@3": (2 / L5) / (3 / L2 + 2 / L3 + 1 / L5),
    "ranx:ndcg": (2 / L5 + 1 / D5) / (3 / L2 + 2 / L3 + 1 / L5),
    "ndcg_burges@2": 0.0, "ndcg_burges": (3 / L5 + 1 / D5) / (7 / L2 + 3 / L3 + 1 / L5),
    # ranx's bpref: x (not in the qrels) removed → n, a, b, c; N = |{b, n}| = 2 judged below 1
    # a: 1 non-relevant above → 1 − 1/2; c: 2 above → 1 − 2/2
    "ranx:bpref": (0.5 + 0.0) / 3,
    "rbp.5": 0.5 * (2 * 0.5 ** 2 + 1 * 0.5 ** 4),
    # level 2: Rel = {a, e}, R = 2; gains of grade-1 c become 0
    "hits-l2": 1.0, "recall@5-l2": 0.5, "mrr-l2": 1 / 3, "map-l2": (1 / 3) / 2,
    "ndcg-l2": (2 / L5) / (3 / L2 + 2 / L3),
    "bpref-l2": (1 - 1 / 2) / 2,  # N = |{n, b, c}| = 3; above a: n only (x removed) → 1 − min(1, 2)/min(2, 3)
    "rbp.5-l2": 0.5 * 2 * 0.5 ** 2,
    # level 0: Rel = {a, b, c, e}, R = 4 (the -1 grade is not relevant)
    "hits-l0": 3.0, "precision@2-l0": 0.0, "r-precision-l0": 2 / 4, "map-l0": (1 / 3 + 2 / 4 + 3 / 5) / 4,
}


@pytest.mark.parametrize("name", sorted(HAND))
def test_hand_worked(name):
    v = pref_eval.calc_aggregate([name], HAND_QRELS, HAND_RUN)
    assert math.isclose(v[name], HAND[name], rel_tol=1e-12, abs_tol=1e-15), (name, v[name], HAND[name])


def test_bpref_without_judged_nonrelevant_is_nan_as_in_ranx():
    # N = 0: min(R, N) = 0 and a retrieved relevant document gives 0/0 (ranx's value); none retrieved gives 0
    q = {"q1": {"a": 1}, "q2": {"a": 1}}
    r = {"q1": {"a": 1.0}, "q2": {"x": 1.0}}
    df = pref_eval.evaluate(q, r, ["ranx:bpref", "bpref"])
    v = {(m, qid): val for m, qid, val in zip(df.measure, df.qid, df.value, strict=True)}
    assert math.isnan(v["ranx:bpref", "q1"]) and v["ranx:bpref", "q2"] == 0.0
    assert v["bpref", "q1"] == 1.0  # trec_eval's bpref: a relevant document with nothing above counts 1


def test_rbp_is_graded_as_ranx_computes_it_and_binary_rbp_is_irm_rbp_with_rel():
    q = {"q": {"a": 2, "b": 1, "c": 0}}
    r = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    v = pref_eval.calc_aggregate(["rbp.5", "RBP(p=0.5, rel=1)"], q, r)
    assert v["rbp.5"] == 0.5 * (2 + 1 * 0.5) and v["RBP(p=0.5, rel=1)"] == 0.5 * (1 + 0.5)


def test_no_relevant_document_gives_zero():
    q = {"q": {"a": 0, "b": -1}}
    r = {"q": {"a": 2.0, "b": 1.0}}
    names = [ours(n) for n in ranx_metric_names() if not n.endswith("-l0")]
    v = pref_eval.calc_aggregate(names, q, r)
    assert all(x == 0.0 for x in v.values()), {k: x for k, x in v.items() if x != 0.0}


# ------------------------------------------------------------------ same values as trec_eval's measures
EQUAL = [("map@10", "map_cut.10"), ("precision@5", "P.5"), ("recall@10", "recall.10"), ("hit_rate@5", "success.5"),
         ("mrr", "recip_rank"), ("r-precision", "Rprec"), ("ndcg@10", "ndcg_cut.10"), ("ranx:map", "map"),
         ("ranx:ndcg", "ndcg"), ("ranx:dcg", "dcg"), ("precision", "set_P"), ("ranx:recall", "set_recall"),
         ("f1", "set_F"), ("ndcg_burges@10", "nDCG(dcg='exp-log2')@10"), ("map-l2", "AP(rel=2)"),
         ("precision@5-l2", "P(rel=2)@5"), ("precision@5-l0", "P(rel=0)@5"), ("map@5-l0", "AP(rel=0)@5"),
         ("hit_rate@5-l2", "Success(rel=2)@5"), ("recall@10-l2", "R(rel=2)@10"), ("r-precision-l2", "Rprec(rel=2)"),
         ("mrr-l2", "RR(rel=2)"), ("precision-l2", "SetP(rel=2)"), ("recall-l0", "SetR(rel=0)"),
         ("hit_rate@3-l0", "Success(rel=0)@3")]


def test_same_as_claims_are_tested():
    from pref_eval.measures.ranx import NAMES, SAME_AS

    assert set(SAME_AS) == set(NAMES)
    tested = {a.removeprefix("ranx:").split("@")[0].split("-l")[0] for a, _ in EQUAL}
    claimed = {n for n, text in SAME_AS.items() if "`" in text.split("none:")[0]}
    assert claimed <= tested, claimed - tested


@pytest.mark.parametrize("seed", range(4))
def test_equal_to_trec_eval_measures(seed):
    """The docs' "same value as" column: per query equal on graded corner cases (levels as written)."""
    qrels, run = random_collection(seed)
    with warns_missing_topics(qrels, {"run": run}):
        df = pref_eval.evaluate(qrels, run, [n for pair in EQUAL for n in pair])
    col = {m: dict(zip(g.qid, g.value, strict=True)) for m, g in df.groupby("measure")}
    trec_name = {"map_cut.10": "map_cut_10", "P.5": "P_5", "recall.10": "recall_10", "success.5": "success_5",
                 "ndcg_cut.10": "ndcg_cut_10", "set_F": "set_F"}
    for a, b in EQUAL:
        va, vb = col[a], col[trec_name.get(b, b)]
        assert va.keys() == vb.keys()
        for q in va:
            assert same(va[q], vb[q]), (a, b, q, va[q], vb[q])


def test_bare_trec_names_keep_trec_eval_meaning():
    # bpref differs (negative grades are unjudged in trec_eval, judged non-relevant in ranx)
    q = {"q": {"a": 1, "n": -1, "b": 0, "c": 0}}
    r = {"q": {"n": 3.0, "a": 2.0, "b": 1.0}}
    v = pref_eval.calc_aggregate(["bpref", "ranx:bpref", "recall", "ranx:recall"], q, r)
    # ranx: n counts as judged non-relevant above a: 1 − min(1, R)/min(R, N) = 0; trec_eval skips n: 1
    assert v["bpref"] == 1.0 and v["ranx:bpref"] == 0.0
    assert "recall_5" in v and v["ranx:recall"] == 1.0
    for name in TREC_BARE:
        (req,) = [x for x in parse_measure(name) if x.label is None][:1]
        assert req.spec.name == name
        assert parse_measure("ranx:" + name)[0].spec.name == "ranx:" + name


def test_names_in_zelo_trec_parser():
    reqs = parse_trec_measures(["map", "ndcg@10", "ranx:bpref", "hit_rate@5-l2"])
    by = {r.label or r.spec.name: r for r in reqs}
    assert sorted(by) == ["hit_rate@5-l2", "map", "ndcg@10", "ranx:bpref"]
    assert by["hit_rate@5-l2"].level == 2 and by["hit_rate@5-l2"].params == (5,)
    assert by["map"].spec.name == "map" and by["ranx:bpref"].spec.name == "ranx:bpref"


@pytest.mark.parametrize("bad,part", [
    ("ndcg@0", "cutoff @0 must be an integer ≥ 1"), ("hits@-3", "must be an integer ≥ 1"),
    ("bpref@5", "takes no cutoff"), ("r-precision@10", "takes no cutoff"), ("ranx:mrr.5", "as @k"),
    ("precision.5", "as @k"), ("ndcg@10-l-1", "level -l-1"), ("map-lx", "level -lx"), ("ranx:rbp", "persistence"),
    ("ranx:rbp.0", "persistence must be > 0"), ("ranx:foo@10", "unknown ranx metric 'foo@10'"),
    ("ndcg@10@5", "expected ranx's ndcg[@k][-lN]"), ("rbp@x", "persistence"),
])
def test_malformed_names_are_one_line_usage_errors(bad, part):
    with pytest.raises(UsageError) as e:
        parse_measure(bad)
    assert part in str(e.value) and "\n" not in str(e.value)


def test_rbp_persistence_spellings():
    for text in ("rbp.95", "rbp@95", "ranx:rbp.95", "rbp.950"):
        (req,) = parse_measure(text)
        assert req.params == (0.95,) and req.label == text


if __name__ == "__main__":
    total = total_bad = 0
    for label, qrels, run in collections():
        n, bad = compare(qrels, run, ranx_metric_names())
        total, total_bad = total + n, total_bad + len(bad)
        print(f"{label}: {n} cases, {n - len(bad)} equal, {len(bad)} different")
        for b in bad[:10]:
            print("   ", b)
    print(f"{len(ranx_metric_names())} ranx metric names; all: {total} cases, {total - total_bad} equal, "
          f"{total_bad} different")


class _FakeRanx:
    """Stands for ranx.Qrels / ranx.Run (taken by module name and to_dict()) where ranx is not wanted."""

    __module__ = "ranx.data_structures.run"

    def __init__(self, d: dict, name: str | None = None):
        self.d, self.name = d, name

    def to_dict(self) -> dict:
        return self.d


def test_ranx_shaped_objects_as_input():
    qrels, run = random_collection(1)
    names = ["ndcg@10", "map@100", "P.5"]
    # an unnamed ranx.Run in a list of several is numbered by position, as other data (docs/api.md)
    with warns_missing_topics(qrels, {"sys": run, "run2": run}):
        want = pref_eval.evaluate(qrels, {"sys": run, "run2": run}, names)
    with warns_missing_topics(qrels, {"sys": run, "run2": run}):
        got = pref_eval.evaluate(_FakeRanx(qrels), [_FakeRanx(run, "sys"), _FakeRanx(run)], names)
    assert got.sort_values(["run", "qid", "measure"], ignore_index=True).equals(
        want.sort_values(["run", "qid", "measure"], ignore_index=True))


@pytest.mark.slow  # ranx's Qrels/Run compile numba functions on first use
def test_ranx_objects_as_input():
    ranx = pytest.importorskip("ranx")
    qrels, run = random_collection(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rq, rr = ranx.Qrels(qrels), ranx.Run({q: d for q, d in run.items()}, name="sys")
        rr2 = ranx.Run(run)  # no name
    names = ["ndcg@10", "map@100", "mrr", "P.5"]
    with warns_missing_topics(qrels, {"sys": run}):
        want = pref_eval.evaluate(qrels, {"sys": run}, names)
    with warns_missing_topics(qrels, {"sys": run}):
        got = pref_eval.evaluate(rq, rr, names)
    assert got.equals(want)
    with warns_missing_topics(qrels, {"sys": run, "run2": run}):  # unnamed: numbered by position
        both = pref_eval.evaluate(rq, [rr, rr2], names)
    assert sorted(set(both.run)) == ["run2", "sys"]


def test_iter_calc_and_cli(tmp_path):
    import subprocess
    import sys

    got = {(m.query_id, m.measure): m.value for m in pref_eval.iter_calc(["mrr", "ndcg@3-l2"], HAND_QRELS, HAND_RUN)}
    assert got == pytest.approx({("q", "mrr"): HAND["mrr"], ("q", "ndcg@3-l2"): (2 / L5) / (3 / L2 + 2 / L3)})
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("".join(f"q 0 {d} {g}\n" for d, g in HAND_QRELS["q"].items()))
    run.write_text("".join(f"q Q0 {d} {i} {s} t\n" for i, (d, s) in enumerate(HAND_RUN["q"].items())))
    env_cmd = [sys.executable, "-m", "pref_eval.cli.eval", "-R", str(qrels), "-o", "tsv"]
    p = subprocess.run([*env_cmd, "-m", "hits", "-m", "rbp.5-l2", str(run)], capture_output=True, text=True,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr
    rows = {ln.split("\t")[2]: float(ln.split("\t")[3]) for ln in p.stdout.splitlines()[1:]}
    assert rows == pytest.approx({"hits": HAND["hits"], "rbp.5-l2": HAND["rbp.5-l2"]})
    p = subprocess.run([*env_cmd, "-m", "bpref@10", str(run)], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "'bpref@10'" in p.stderr and "no cutoff" in p.stderr
    p = subprocess.run([*env_cmd[:3], "--list-measures"], capture_output=True, text=True, cwd=ROOT)
    assert "ranx names" in p.stdout and " hit_rate " in p.stdout


def test_global_level_is_the_default_of_ranx_names():
    qrels, run = random_collection(2)
    with warns_missing_topics(qrels, {"run": run}):
        a = pref_eval.calc_aggregate(["ndcg@10", "ranx:bpref", "mrr"], qrels, run, level=2)
    with warns_missing_topics(qrels, {"run": run}):
        b = pref_eval.calc_aggregate(["ndcg@10-l2", "bpref-l2", "mrr-l2"], qrels, run)
    with warns_missing_topics(qrels, {"run": run}):
        c = pref_eval.calc_aggregate(["ndcg@10-l2"], qrels, run, level=3)  # the suffix wins over level=
    assert a["ndcg@10"] == b["ndcg@10-l2"] == c["ndcg@10-l2"] and a["mrr"] == b["mrr-l2"]
    assert same(a["ranx:bpref"], b["bpref-l2"])
    with pytest.raises(UsageError, match="relevance level ≥ 0"):
        pref_eval.calc_aggregate(["ndcg@10"], qrels, run, level=-1)


def random_ranx_names(seed: int, n: int) -> list[str]:
    """ranx names with random cutoffs (beyond the runs too), rbp persistences and -l levels (f32)."""
    import random

    rng = random.Random(seed)
    out = []
    for _ in range(n):
        u = rng.random()
        if u < 0.7:
            name = rng.choice(WITH_K) + (f"@{rng.choice([1, 2, 3, 5, 7, 10, 20, 50, 100, 249, 250, 1000])}"
                                         if rng.random() < 0.8 else "")
        else:
            name = "r-precision" if u < 0.8 else "bpref" if u < 0.87 else \
                f"rbp.{rng.choice(['5', '8', '95', '99', '1', '05', '333', '9', '75'])}"
        if rng.random() < 0.5:
            name += f"-l{rng.choice([0, 1, 2, 3, 4])}"
        out.append(name)
    return list(dict.fromkeys(out))


@pytest.mark.slow  # ranx's numba functions compile on first use
@pytest.mark.parametrize("seed", [3, 10, 397])
def test_random_names_live_against_ranx(seed):
    """Session 23 (f32) ran seeds 0-399, 25 names each: 270,342 values, 0 different."""
    pytest.importorskip("ranx")
    qrels, run = (random_collection if seed % 2 else long_collection)(seed)
    n, bad = compare(qrels, run, random_ranx_names(seed, 25))
    assert not bad, bad[:10]
    assert n > 200
