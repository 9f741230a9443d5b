"""The C/W/L family against cwl_eval (through ir-measures' cwl_eval provider), run live; hand-worked examples.

Generated qrels with grades -1..3 (negative = gain 0), a query without a
relevant document, qrels queries the run lacks; runs with score ties, given
to cwl_eval in pref_eval's order (score desc, docno desc) since cwl_eval
keeps its input order for ties.
"""
from __future__ import annotations

import contextlib
import io
import math

import pytest

from family_data import make, ours, write_qrels, write_run

ir_measures = pytest.importorskip("ir_measures")
pytest.importorskip("cwl")

NAMES = ["BPM(max_rel=3)@10", "BPM(max_rel=3, T=2.0)@5", "BPM(max_rel=3, min_rel=1)@20", "SDCG(max_rel=3)@10",
         "SDCG(max_rel=3)@3", "INST(max_rel=3)", "INST(max_rel=3, T=2.5)", "INSQ(max_rel=3)", "INSQ(max_rel=3, T=3.0)",
         "NERR8(max_rel=3)@10", "NERR9(max_rel=3)@10", "NERR10(max_rel=3)", "NERR10(max_rel=3, p=0.5)",
         "NERR11(max_rel=3)", "NERR11(max_rel=3, T=2.0, min_rel=1)", "NERR8(max_rel=2)@5"]


def _trec_order(run: dict) -> dict:
    """Score descending, ties by docno descending (bytes): two stable sorts."""
    out = {}
    for q, docs in run.items():
        by_docno = sorted(docs.items(), key=lambda kv: kv[0].encode(), reverse=True)
        out[q] = dict(sorted(by_docno, key=lambda kv: -kv[1]))
    return out


def _reference(qp, rp, name):
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return {m.query_id: m.value for m in ir_measures.cwl_eval.iter_calc(
            [ir_measures.parse_measure(name)], ir_measures.read_trec_qrels(str(qp)),
            ir_measures.read_trec_run(str(rp)))}


@pytest.mark.parametrize("seed", [21])
def test_cwl_matches_cwl_eval(tmp_path, seed):
    qrels, run = make(seed, max_grade=3)
    run = _trec_order(run)
    qp, rp = write_qrels(tmp_path / "q", qrels), write_run(tmp_path / "r", run)
    n = 0
    for name in NAMES:
        got = ours(qp, rp, name)
        for q, v in _reference(qp, rp, name).items():
            if q in run:
                assert got[q] == pytest.approx(v, abs=1e-12), (name, q)
                n += 1
    assert n > 250


def test_cwl_hand_worked(tmp_path):
    """Grades 3, 0, 3 (max_rel 3 → gains 1, 0, 1) at ranks 1-3.

    NERR8@3: C = 0, … so W(1) = 1 → 1. SDCG@2: W ∝ 1, 1/log2 3 → 1/(1 + 1/log2 3).
    BPM(T=2)@3: G(i) < 2 for i = 1, 2; i < 3 → examines 3 ranks → (1 + 0 + 1)/3.
    INSQ(T=1): C(i) = ((i+1)/(i+2))², Π_{j<i} C(j) = (2/(i+1))² → W(i) ∝ 1/(i+1)², over 1000 ranks.
    """
    (tmp_path / "q").write_text("1 0 a 3\n1 0 b 0\n1 0 c 3\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n")
    val = {n: ours(tmp_path / "q", tmp_path / "r", n)["1"] for n in
           ("NERR8(max_rel=3)@3", "SDCG(max_rel=3)@2", "BPM(max_rel=3, T=2.0)@3", "INSQ(max_rel=3)")}
    assert val["NERR8(max_rel=3)@3"] == pytest.approx(1.0, abs=1e-15)
    assert val["SDCG(max_rel=3)@2"] == pytest.approx(1 / (1 + 1 / math.log2(3)), abs=1e-15)
    assert val["BPM(max_rel=3, T=2.0)@3"] == pytest.approx(2 / 3, abs=1e-15)
    norm = sum(1 / (i + 1) ** 2 for i in range(1, 1001))
    assert val["INSQ(max_rel=3)"] == pytest.approx((1 / 4 + 1 / 16) / norm, abs=1e-12)


def test_cwl_needs_max_rel(tmp_path):
    import pref_eval
    from pref_eval.errors import UsageError

    (tmp_path / "q").write_text("1 0 a 3\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n")
    bad_names = ("INST", "BPM@10", "INST(max_rel=2, min_rel=2)", "SDCG(max_rel=3, dcg='exp-log2')@10",
                 "NERR8(max_rel=3)")
    for bad in bad_names:
        with pytest.raises(UsageError):
            pref_eval.evaluate(str(tmp_path / "q"), [str(tmp_path / "r")], [bad])
