"""Narrowed ranks cannot overflow: every measure at the int16 bound, and deep rankings against pytrec_eval.

``rank_run`` stores ranks (``Ranked.pos``) as int16 when no query has more than
``NARROW_MAX`` = 16,384 documents and query indices (``Ranked.qidx``) as int16 for
at most 16,384 queries. NumPy 2 does not widen ``int16 + Python int`` (NEP 50), so
a measure that computed, say, ``(pos + 1) * (pos + 2)`` or ``pos + 20000`` on them
would wrap silently. Two checks:

* registry-wide: on a collection exactly at both bounds (one query of 16,384
  documents with relevant ones at the deepest ranks, 16,384 queries), every
  registered measure gives the same values as on the same rankings with
  ``pos``/``qidx`` widened to int64;
* past the bound: rankings of 40,000 and 70,000 documents (ranks beyond 32,767 and
  65,535, where int16 / uint16 would wrap) give trec_eval's values, computed live
  by pytrec_eval.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_measures_registry import _request, _specs, best_lines, judgment_lines

from pref_eval.collection import NARROW_MAX, build_collection
from pref_eval.engine import evaluate_ranked
from pref_eval.io.qrels import qrels_from_records
from pref_eval.io.runs import run_from_records
from pref_eval.measures import EvalContext


def _bound_case() -> tuple[list[tuple], list[tuple]]:
    """(qrels records (qid, subtopic, doc, grade), run records (qid, doc, score)) at both int16 bounds."""
    rng = np.random.default_rng(16384)
    qrels, run = [], []
    deep = [f"d{i}" for i in range(NARROW_MAX)]
    for i, d in enumerate(deep):  # relevant at the top, in the middle and at the very bottom
        if i < 3 or i % 997 == 0 or i >= NARROW_MAX - 40:
            for st in ("1", "2"):
                qrels.append(("0", st, d, int(rng.integers(0, 4))))
        elif i % 5 == 0:
            qrels.append(("0", "1", d, -1))
    run += [("0", d, float(NARROW_MAX - i)) for i, d in enumerate(deep)]
    for q in range(1, NARROW_MAX):  # 16,383 small queries: query indices up to 16,383
        qid = f"q{q}"
        qrels += [(qid, "1", "a", int(q % 3)), (qid, "2", "a", 1), (qid, "1", "b", 2)]
        run += [(qid, "b", 2.0), (qid, "a", 1.0), (qid, "x", 0.5)]
    return qrels, run


@pytest.fixture(scope="module")
def bound_case(tmp_path_factory):
    qrels_recs, run_recs = _bound_case()
    plain = build_collection(qrels_from_records([(q, d, g) for q, st, d, g in qrels_recs if st == "1"]),
                             [run_from_records(run_recs, name="r")]).runs[0]
    subtopics = build_collection(qrels_from_records(qrels_recs, subtopics=True),
                                 [run_from_records(run_recs, name="r")]).runs[0]
    for r in (plain, subtopics):
        assert r.pos.dtype == np.int16 and int(r.pos.max()) == NARROW_MAX - 1
        assert r.qidx.dtype == np.int16 and int(r.qidx.max()) == NARROW_MAX - 1
    tmp = tmp_path_factory.mktemp("bound")
    (tmp / "judgments.txt").write_text("".join(judgment_lines(qrels_recs)))
    (tmp / "best.qrels").write_text("".join(best_lines(qrels_recs)))
    return plain, subtopics, tmp


def _wide(r):
    return dataclasses.replace(r, pos=r.pos.astype(np.int64), qidx=r.qidx.astype(np.int64))


@pytest.mark.parametrize("spec", _specs(extra=False), ids=lambda s: s.name)
def test_every_measure_same_on_int16_and_int64_ranks(spec, bound_case):
    plain, subtopics, tmp = bound_case
    req = _request(spec)
    ctx = EvalContext()
    inputs: dict = {}
    if "judgments" in spec.needs:
        inputs.update(judgments=str(tmp / "judgments.txt"), judgments_format="clarke3")
    if "best" in spec.needs:
        inputs["best"] = str(tmp / "best.qrels")
    if inputs:
        from pref_eval.api import extra_inputs

        ctx = EvalContext(extra=extra_inputs([req], **inputs))
    r = subtopics if "subtopics" in spec.needs else plain
    narrow, wide = evaluate_ranked(r, [req], ctx), evaluate_ranked(_wide(r), [req], ctx)
    for a, b in zip(narrow.columns, wide.columns, strict=True):
        assert a.name == b.name
        if a.value_type == "str":
            assert list(a.values) == list(b.values), a.name
            continue
        va, vb = np.asarray(a.values, dtype=float), np.asarray(b.values, dtype=float)
        assert np.array_equal(va, vb, equal_nan=True), (a.name, np.flatnonzero(~((va == vb) | np.isnan(vb)))[:5])
        assert a.summary == b.summary or (a.summary != a.summary and b.summary != b.summary), a.name


@pytest.mark.parametrize("depth", [40_000, 70_000])
def test_rankings_deeper_than_int16_and_uint16_equal_trec_eval(depth):
    """Ranks past 32,767 / 65,535: trec_eval's measures (pytrec_eval, live) on relevant documents placed there."""
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from pref_eval import evaluate

    rng = np.random.default_rng(depth)
    docs = [f"d{i}" for i in range(depth)]
    deep_rel = [i for i in (5, 30_000, 32_766, 32_767, 32_768, 40_000, 65_534, 65_535, 65_536, 69_999) if i < depth]
    qrels = {"1": {docs[i]: int(rng.integers(1, 4)) for i in deep_rel}, "2": {"d3": 1, "x": 2}}
    qrels["1"].update({docs[i]: 0 for i in range(100, depth, 7919)})
    run = {"1": {d: float(depth - i) for i, d in enumerate(docs)}, "2": {"d3": 1.0, "d4": 0.5}}
    names = ["map", "P.1000", "recall.1000", "ndcg", "ndcg_cut.1000", "Rprec", "bpref", "recip_rank",
             "num_rel_ret", "num_ret", "num_rel", "infAP", "iprec_at_recall.0.50", "iprec_at_recall.1.00"]
    te_names = {n.split(".")[0] if not n.startswith("iprec") else "iprec_at_recall" for n in names}
    want = pytrec_eval.RelevanceEvaluator(qrels, te_names).evaluate(run)
    df = evaluate(qrels, run, names, trec9=True)  # pytrec_eval is trec_eval 9
    got = {(r.qid, r.measure): r.value for r in df.itertuples()}
    for qid in ("1", "2"):
        for name in names:
            key = name.replace(".", "_", 1) if not name.startswith("iprec") else name.replace("recall.", "recall_")
            assert got[(qid, key)] == pytest.approx(want[qid][key], abs=1e-12), (qid, name)
