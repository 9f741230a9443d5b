"""Rank order, grades, -M and duplicate checks of the collection against brute force.

Oracle: plain Python per query -- ``sorted`` by (score, docno bytes), both
descending (trec_eval's ``comp_sim_docno``), a dict lookup of the qrels, and
a set for duplicates -- on generated runs with heavy ties, written in every
layout the fast paths special-case (presorted, query blocks out of order,
shuffled lines).
"""
from __future__ import annotations

import numpy as np
import pytest

from pref_eval.collection import NONPOOL, UNJUDGED, build_collection
from pref_eval.errors import InputError
from pref_eval.io.qrels import qrels_from_records
from pref_eval.io.runs import run_from_bytes

ALPHA = list(b"abcABC019dD")


def _docno(rng) -> bytes:
    return bytes(rng.choice(ALPHA, size=int(rng.integers(1, 5))).tolist())


def make_case(rng, layout: str):
    qids = [b"%d" % q for q in rng.choice(200, size=int(rng.integers(1, 8)), replace=False)]
    per_q = {}
    for q in qids:
        docs = list(dict.fromkeys(_docno(rng) for _ in range(int(rng.integers(1, 40)))))
        scores = rng.choice([1.0, 2.0, 2.5, 0.0, -1.0, 3.0000001, 3.0000002], size=len(docs))
        per_q[q] = list(zip(docs, scores.tolist(), strict=False))
    lines = []
    for q in qids:
        ranked = sorted(per_q[q], key=lambda x: (x[1], x[0]), reverse=True)
        if layout == "presorted":
            items = ranked
        else:
            items = [per_q[q][i] for i in rng.permutation(len(per_q[q]))] if layout == "shuffled" else ranked
        lines += [(q, d, s) for d, s in items]
    if layout == "blocks":
        pass  # query blocks in generation order (not strcmp order), each block presorted
    elif layout == "shuffled":
        lines = [lines[i] for i in rng.permutation(len(lines))]
    else:
        lines.sort(key=lambda x: x[0])
    data = b"".join(b"%s Q0 %s 0 %r t\n" % (q, d, s) for q, d, s in lines)
    judg = {}
    for q in qids[:-1] if len(qids) > 1 else qids:  # one run topic may lack qrels
        for d, _ in per_q[q]:
            if rng.random() < 0.5:
                judg[(q, d)] = int(rng.choice([-1, 0, 1, 2, 3]))
    judg[(b"999", b"x")] = 1  # a qrels topic the run lacks
    return data, per_q, judg


def brute(per_q, judg, depth=None, trec9=False):
    out = {}
    for q, items in per_q.items():
        if not any(k[0] == q for k in judg):
            continue
        key = (lambda x: (float(np.float32(x[1])), x[0])) if trec9 else (lambda x: (x[1], x[0]))
        r = sorted(items, key=key, reverse=True)
        if depth is not None:
            r = r[:depth]
        grades = []
        for d, _ in r:
            g = judg.get((q, d))
            grades.append(NONPOOL if g is None else UNJUDGED if g < 0 else g)
        out[q] = ([d for d, _ in r], grades, [s for _, s in r])
    return out


@pytest.mark.parametrize("layout", ["presorted", "blocks", "shuffled"])
def test_order_and_grades_match_brute_force(layout):
    rng = np.random.default_rng({"presorted": 1, "blocks": 2, "shuffled": 3}[layout])
    for _ in range(40):
        data, per_q, judg = make_case(rng, layout)
        run = run_from_bytes(data, "run")
        qrels = qrels_from_records([(q.decode(), d.decode(), g) for (q, d), g in judg.items()])
        for depth in (None, 3):
            for trec9 in (False, True):
                r = build_collection(qrels, [run], depth=depth, trec9=trec9).runs[0]
                want = brute(per_q, judg, depth, trec9)
                assert [q for q in r.qids.tolist()] == sorted(want)
                docno, score = r.docno, r.score
                for i, q in enumerate(r.qids.tolist()):
                    a, b = r.ptr[i], r.ptr[i + 1]
                    assert docno[a:b].tolist() == want[q][0], (layout, q, depth, trec9)
                    assert r.grade[a:b].tolist() == want[q][1]
                    assert score[a:b].tolist() == want[q][2]
                    assert r.pos[a:b].tolist() == list(range(b - a))
                    assert set(r.qidx[a:b].tolist()) <= {i}


def test_complete_adds_placeholder_for_missing_topics():
    data = b"1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n"
    qrels = qrels_from_records([("1", "a", 1), ("2", "z", 1)])
    r = build_collection(qrels, [run_from_bytes(data, "run")], complete=True).runs[0]
    assert r.qids.tolist() == [b"1", b"2"]
    assert r.docno.tolist() == [b"b", b"a", b""]
    assert r.score.tolist() == [1.0, 1.0, 1.0]
    assert r.grade.tolist() == [NONPOOL, 1, NONPOOL]
    assert r.present.tolist() == [True, False]


@pytest.mark.parametrize("layout", ["equal", "padded", "ragged"])
def test_duplicates_found_exactly_and_only_above_depth(layout):
    """Each layout takes one path of the duplicate check: equal query lengths (a reshape),
    nearly equal (a padded grid), one long query (one global sort)."""
    rng = np.random.default_rng(5)
    lines = []
    for q in range(30):
        n = 400 if (layout == "ragged" and q == 0) else 19 + q % 2 if layout == "padded" else 20
        lines += [(b"q%02d" % q, b"d%d" % i, float(n - i)) for i in range(n)]
    dup_at = 300 if layout == "ragged" else 250  # line index of the duplicate (query 0 or 12)
    q, _, _ = lines[dup_at]
    first = next(i for i, x in enumerate(lines) if x[0] == q)
    lines[dup_at] = (q, lines[first][1], -5.0)  # same docno as the query's best, ranked last
    data = b"".join(b"%s Q0 %s 0 %r t\n" % x for x in lines)
    qrels = qrels_from_records([(x[0].decode(), x[1].decode(), 1) for x in lines[::7]])
    run = run_from_bytes(data, "run")
    with pytest.raises(InputError) as ei:
        build_collection(qrels, [run])
    assert ei.value.line == dup_at + 1 and f"first at line {first + 1}" in ei.value.message
    build_collection(qrels, [run], depth=5)  # below the -M depth: accepted, as trec_eval
    assert rng is not None


def test_grades_exact_when_docno_keys_collide(monkeypatch):
    """Force 64-bit docno keys to collide (keys mod 3): the exact byte-order join
    that takes over must still give the brute-force grades."""
    import pref_eval.collection as collection
    import pref_eval.io.keys as keys

    real = keys.string_keys
    monkeypatch.setattr(keys, "string_keys", lambda s: real(s) % np.uint64(3))
    monkeypatch.setattr(collection, "string_keys", lambda s: real(s) % np.uint64(3))
    rng = np.random.default_rng(7)
    for _ in range(20):
        data, per_q, judg = make_case(rng, "shuffled")
        run = run_from_bytes(data, "run")
        qrels = qrels_from_records([(q.decode(), d.decode(), g) for (q, d), g in judg.items()])
        r = build_collection(qrels, [run]).runs[0]
        want = brute(per_q, judg)
        for i, q in enumerate(r.qids.tolist()):
            a, b = r.ptr[i], r.ptr[i + 1]
            assert r.grade[a:b].tolist() == want[q][1]


def test_narrow_int16_ranks_and_numpy2_arithmetic():
    """The Ranked docstring's claims on narrowed ranks, checked on the installed NumPy (NEP 50 rules).

    ``pos`` is int16 up to 16,384 entries per query and wider beyond; measures
    add small Python ints (stays int16, exact within the bound), compute in
    float, combine with int64 arrays (widens) or compare with any Python int.
    """
    def ranked(n_docs: int):
        run = run_from_bytes(b"".join(b"1 Q0 d%d 1 %d r\n" % (i, n_docs - i) for i in range(n_docs)), "r")
        col = build_collection(qrels_from_records([("1", "d0", 1)]), [run])
        return col.runs[0]

    small, big = ranked(16384), ranked(16385)
    assert small.pos.dtype == np.int16 and small.qidx.dtype == np.int16
    assert big.pos.dtype != np.int16 and np.iinfo(big.pos.dtype).max >= 16384
    top = small.pos[-1:]
    assert int(top[0]) == 16383
    two = top + 2
    assert two.dtype == np.int16 and int(two[0]) == 16385      # no widening, and exact within the bound
    assert (top + 1.0).dtype == np.float64
    assert (top + np.array([2**40], dtype=np.int64)).dtype == np.int64
    assert bool((top < 2**63 - 1)[0]) and not bool((top > 2**40)[0])   # comparisons with large Python ints
    with np.errstate(over="ignore"):
        assert int((np.array([32767], np.int16) + 1)[0]) == -32768   # why the bound matters
