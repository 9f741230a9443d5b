"""Properties of every preference measure (issue 3) and hand-worked examples.

Examples follow the definitions of the three papers: RPP (Diaz & Ferraro,
SIGIR 2022), lexicographic recall (Diaz, Ekstrand & Mitra), lexicographic
precision (Diaz, 2023); each expected value is worked out by hand below.
"""
from __future__ import annotations

import numpy as np
import pytest

from pref_eval.io.qrels import qrels_from_records
from pref_eval.io.runs import run_from_records
from pref_eval.run_preferences.data import prepare_qrels
from pref_eval.run_preferences.evaluate import evaluate_preferences
from pref_eval.run_preferences.names import resolve

PREFS = ["rpp", "invrpp", "dcgrpp", "lexirecall", "lexiprecision", "rrlexiprecision"]


def evaluate(qrels: dict, runs: dict, measures=PREFS, binary=None):
    q = qrels_from_records(qrels)
    rs = [run_from_records(r, name=n) for n, r in runs.items()]
    return evaluate_preferences(prepare_qrels(q, binary), rs, list(runs), resolve(list(measures), None))


def ranking(*docs):
    """{doc: score} with the given order (first = best)."""
    return {d: float(len(docs) - i) for i, d in enumerate(docs)}


def random_collection(seed: int, nq=8, nruns=5, ndocs=30, pool=50):
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {f"r{k}": {} for k in range(nruns)}
    for q in range(nq):
        qid = f"q{q}"
        qrels[qid] = {f"d{d}": int(rng.integers(0, 4)) for d in rng.choice(pool, 25, replace=False)}
        qrels[qid]["d0"] = 2  # at least one relevant
        for k in range(nruns):
            if rng.random() < 0.1:
                continue  # missing query
            docs = rng.choice(pool, int(rng.integers(5, ndocs)), replace=False)
            runs[f"r{k}"][qid] = {f"d{d}": float(np.round(rng.normal(), 1)) for d in docs}
    runs["copy"] = {q: dict(v) for q, v in runs["r0"].items()}
    return qrels, runs


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_antisymmetric_identity_bounded(seed):
    qrels, runs = random_collection(seed)
    fwd = evaluate(qrels, runs)
    rev = evaluate(qrels, dict(reversed(list(runs.items()))))
    names = list(runs)
    R = len(names)
    for m in PREFS:
        a = fwd.prefs[m]
        assert np.all(np.abs(a) <= 1 + 1e-12)
        b = rev.prefs[m]
        for p in range(len(fwd.run_i)):
            i, j = names[fwd.run_i[p]], names[fwd.run_j[p]]
            # in the reversed order the pair is (j, i)
            ri, rj = R - 1 - fwd.run_j[p], R - 1 - fwd.run_i[p]
            pr = np.flatnonzero((ri == rev.run_i) & (rj == rev.run_j))[0]
            np.testing.assert_allclose(a[p], -b[pr], atol=1e-12, err_msg=f"{m} {i} {j}")
            if {i, j} == {"r0", "copy"}:
                assert np.all(a[p] == 0), m


def test_invariant_to_line_order():
    qrels, runs = random_collection(7)
    a = evaluate(qrels, runs)
    rng = np.random.default_rng(0)
    q2 = {q: dict(sorted(v.items(), key=lambda _: rng.random())) for q, v in sorted(qrels.items(), reverse=True)}
    r2 = {n: {q: dict(sorted(v.items(), key=lambda _: rng.random())) for q, v in sorted(r.items(), reverse=True)}
          for n, r in runs.items()}
    b = evaluate(q2, r2)
    order = [b.qids.index(q) for q in a.qids]
    for m in PREFS:
        np.testing.assert_array_equal(a.prefs[m], b.prefs[m][:, order])


@pytest.mark.parametrize("seed", [4, 5])
def test_lexi_signs_agree_with_rr_and_recall(seed):
    qrels, runs = random_collection(seed)
    res = evaluate(qrels, runs, PREFS + ["rr"])
    rr = res.metrics["rr"]
    lp = res.prefs["lexiprecision"]
    lr = res.prefs["lexirecall"]
    rrd = rr[res.run_i] - rr[res.run_j]
    mask = rrd != 0
    assert mask.any()
    assert np.all(np.sign(rrd[mask]) == lp[mask])
    # number of relevant documents retrieved, per run and query
    from pref_eval.run_preferences.data import BIG
    from pref_eval.run_preferences.evaluate import build_vectors

    q = qrels_from_records(qrels)
    rv = build_vectors(prepare_qrels(q), [run_from_records(r, name=n) for n, r in runs.items()], list(runs), None)
    nrr = np.stack([np.bincount(rv.slot_query(), weights=(rv.ranks[k] < BIG), minlength=rv.nq)
                    for k in range(rv.nruns)])
    d = nrr[res.run_i] - nrr[res.run_j]
    mask = d != 0
    assert mask.any()
    assert np.all(np.sign(d[mask]) == lr[mask])


def test_hand_worked_rpp():
    """RPP (Diaz & Ferraro 2022): m = 3 relevant; x ranks them at 1, 4, 10; y at 2, 3, 20.
    Recall levels: 1 → x better (+), 2 → y better (−), 3 → x better (+).
    rpp = (1 − 1 + 1)/3 = 1/3; invrpp = (1 − 1/2 + 1/3)/(1 + 1/2 + 1/3) = 5/11;
    dcgrpp = (1 − 1/log2 3 + 1/2)/(1 + 1/log2 3 + 1/2)."""
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "n": 0}}
    fill = [f"z{i}" for i in range(20)]
    x = ranking("a", *fill[:2], "b", *fill[2:7], "c")
    y = ranking("z0", "a", "b", *fill[3:19], "c")
    res = evaluate(qrels, {"x": {"q": x}, "y": {"q": y}})
    assert res.prefs["rpp"][0, 0] == pytest.approx(1 / 3)
    assert res.prefs["invrpp"][0, 0] == pytest.approx(5 / 11)
    l3 = np.log2(3)
    assert res.prefs["dcgrpp"][0, 0] == pytest.approx((1 - 1 / l3 + 0.5) / (1 + 1 / l3 + 0.5))


def test_hand_worked_lexiprecision_breaks_rr_ties():
    """Lexicographic precision (Diaz 2023): both rank a relevant document first (RR tie);
    x's second relevant is at 5, y's at 3 → y preferred: sgnLP(x, y) = −1,
    rrLP = 1/5 − 1/3 = −2/15."""
    qrels = {"q": {"a": 1, "b": 1}}
    x = ranking("a", "z1", "z2", "z3", "b")
    y = ranking("a", "z1", "b")
    res = evaluate(qrels, {"x": {"q": x}, "y": {"q": y}}, ["lexiprecision", "rrlexiprecision", "rr"])
    assert res.diffs["rr"][0, 0] == 0.0
    assert res.prefs["lexiprecision"][0, 0] == -1
    assert res.prefs["rrlexiprecision"][0, 0] == pytest.approx(-2 / 15)


def test_hand_worked_lexirecall():
    """Lexicographic recall (Diaz, Ekstrand & Mitra): worst-off user first.
    x retrieves both relevant documents (at 1 and 9), y only one (at 1): x wins (+1)
    although y's precision is higher. z retrieves both at 2 and 8: z beats x (the
    last relevant document, 8 < 9, decides), although x is better at the top."""
    qrels = {"q": {"a": 1, "b": 1}}
    f = [f"n{i}" for i in range(10)]
    x = ranking("a", *f[:7], "b")
    y = ranking("a", *f[:9])
    z = ranking("n0", "a", *f[1:6], "b")
    res = evaluate(qrels, {"x": {"q": x}, "y": {"q": y}, "z": {"q": z}}, ["lexirecall"])
    vals = {(res.runs[i], res.runs[j]): v
            for i, j, v in zip(res.run_i, res.run_j, res.prefs["lexirecall"][:, 0], strict=True)}
    assert vals[("x", "y")] == 1 and vals[("x", "z")] == -1 and vals[("y", "z")] == -1


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_rpp_levels_at_once_equal_levels_in_turn(seed, monkeypatch):
    """Small blocks sum all levels in one array (start-up, #13); large ones loop over the levels:
    the RPP values are the same bits either way (graded qrels, missing queries, tied runs)."""
    from pref_eval.run_preferences import pairwise

    qrels, runs = random_collection(seed, nq=6, nruns=4)
    at_once = evaluate(qrels, runs, ["rpp", "invrpp", "dcgrpp"])
    monkeypatch.setattr(pairwise, "LEVEL_CELLS", 0)
    in_turn = evaluate(qrels, runs, ["rpp", "invrpp", "dcgrpp"])
    for k in ("rpp", "invrpp", "dcgrpp"):
        a, b = at_once.pair_values(k), in_turn.pair_values(k)
        assert a.tobytes() == b.tobytes(), k


def test_rpp_weights_equal_sequential_python():
    """The flat weights are pref_eval.py's: v_i / (v_0 + v_1 + ... summed in order), per group."""
    import math

    from pref_eval.run_preferences.pairwise import rpp_weights

    sizes = np.array([3, 1, 7, 3, 40, 2, 7])
    values = {"rpp": lambda i: 1.0, "invrpp": lambda i: 1.0 / float(i + 1), "dcgrpp": lambda i: 1.0 / math.log2(i + 2)}
    for scheme, val in values.items():
        want = []
        for m in sizes.tolist():
            v = [val(i) for i in range(m)]
            mass = 0.0
            for x in v:
                mass += x
            want += [x / mass for x in v]
        assert rpp_weights(sizes, scheme).tolist() == want, scheme
    assert len(rpp_weights(np.zeros(0, dtype=np.int64), "rpp")) == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rpp_levels_compiled_equal_numpy_loop(seed, monkeypatch):
    """The compiled level sums (``_kernels.rpp_levels``) are the numpy loop's bits: collections through
    ``evaluate`` (levels in turn) and random grids (int32 and int64 ranks, ties, zero weights, a group
    ending at each level) through ``_levels_in_turn`` directly."""
    from pref_eval.native import kernels
    from pref_eval.run_preferences import pairwise

    if kernels() is None or not hasattr(kernels(), "rpp_levels"):
        pytest.skip("compiled kernels not built")
    qrels, runs = random_collection(seed, nq=6, nruns=5)
    monkeypatch.setattr(pairwise, "LEVEL_CELLS", 0)
    compiled = evaluate(qrels, runs, ["rpp", "invrpp", "dcgrpp"])
    monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
    loop = evaluate(qrels, runs, ["rpp", "invrpp", "dcgrpp"])
    for k in ("rpp", "invrpp", "dcgrpp"):
        assert compiled.pair_values(k).tobytes() == loop.pair_values(k).tobytes(), k
    rng = np.random.default_rng(seed)
    depth, NG, R, Pc = 9, 7, 6, 15
    active = np.sort(rng.integers(0, NG + 1, depth))[::-1].copy()
    Ib, Jb = rng.integers(0, R, Pc), rng.integers(0, R, Pc)
    W = {sc: rng.choice([0.0, 0.1, 1 / 3, 2.5e-300, 7.0], (depth, NG, 1)) for sc in ("a", "b", "c")}
    for dt in (np.int32, np.int64):
        grid = rng.integers(0, 4, (depth, NG, R)).astype(dt)
        if dt is np.int64:
            grid[0, 0, 0] = 2**40
        for schemes in (["a", "b"], ["a", "b", "c"]):  # 3: the two-pairs-at-a-time path (Pc odd: its tail)
            want = pairwise._levels_in_turn(grid, W, Ib, Jb, schemes, active)
            monkeypatch.delenv("PREF_EVAL_PURE_PYTHON")
            got = pairwise._levels_in_turn(grid, W, Ib, Jb, schemes, active)
            monkeypatch.setenv("PREF_EVAL_PURE_PYTHON", "1")
            for sc in schemes:
                assert got[sc].tobytes() == want[sc].tobytes(), (dt, sc)
