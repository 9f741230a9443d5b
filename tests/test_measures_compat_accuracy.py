"""Compat and Accuracy against ir-measures' compat and accuracy providers, run live; hand-worked examples.

Generated qrels (grades -1..3, a query without relevant document, qrels
queries the run lacks) and runs with score ties and zero scores. Accuracy's
provider keeps its input order for ties, so it gets the run in pref_eval's
order (score desc, docno desc); Compat's sorts ties by docno ascending, as
pref_eval's Compat does.
"""
from __future__ import annotations

import pytest

from family_data import make, ours, write_qrels, write_run

ir_measures = pytest.importorskip("ir_measures")


def _trec_order(run: dict) -> dict:
    out = {}
    for q, docs in run.items():
        by_docno = sorted(docs.items(), key=lambda kv: kv[0].encode(), reverse=True)
        out[q] = dict(sorted(by_docno, key=lambda kv: -kv[1]))
    return out


def _reference(provider, qp, rp, name):
    return {m.query_id: m.value for m in provider.iter_calc(
        [ir_measures.parse_measure(name)], ir_measures.read_trec_qrels(str(qp)), ir_measures.read_trec_run(str(rp)))}


@pytest.mark.parametrize("seed", [31, 32])
def test_compat_and_accuracy_match_ir_measures(tmp_path, seed):
    qrels, run = make(seed, max_grade=3)
    run = _trec_order(run)
    qp, rp = write_qrels(tmp_path / "q", qrels), write_run(tmp_path / "r", run)
    n = 0
    compat = ["Compat", "Compat(p=0.5)", "Compat(normalize=False)", "Compat(p=0.99, normalize=False)"]
    accuracy = ["Accuracy", "Accuracy@5", "Accuracy(rel=2)", "Accuracy(rel=0)@10"]
    for provider, names in ((ir_measures.compat, compat), (ir_measures.accuracy, accuracy)):
        for name in names:
            got = ours(qp, rp, name)
            try:
                ref = _reference(provider, qp, rp, name)
            except ZeroDivisionError:  # ir-measures' Accuracy when every retrieved document is relevant
                continue
            for q, v in ref.items():
                if q in run:
                    assert got[q] == pytest.approx(v, abs=1e-12), (name, q)
                    n += 1
            for q in set(got) - set(ref):  # queries the provider leaves out: 0
                assert got[q] == 0.0, (name, q)
    assert n > 100


def test_compat_hand_worked(tmp_path):
    """Ideal I = a (grade 2), b (1); run R = b, a, x; p = 0.5; depth 3.

    Σ p^(i-1)|R[:i] ∩ I[:i]|/i = 0 + 0.5·2/2 + 0.25·2/3 = 2/3; the ideal's own: 1 + 0.5 + 0.25·2/3 = 5/3;
    Compat = 0.4; unnormalised: (2/3)/(1 + 0.5 + 0.25).
    """
    (tmp_path / "q").write_text("1 0 a 2\n1 0 b 1\n1 0 x 0\n")
    (tmp_path / "r").write_text("1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 x 3 1 t\n")
    assert ours(tmp_path / "q", tmp_path / "r", "Compat(p=0.5)")["1"] == pytest.approx(0.4, abs=1e-15)
    assert ours(tmp_path / "q", tmp_path / "r", "Compat(p=0.5, normalize=False)")["1"] == pytest.approx(
        (2 / 3) / 1.75, abs=1e-15)


def test_accuracy_hand_worked(tmp_path):
    """Relevant, non-relevant, relevant, non-relevant: n = 0, 1; N' = R' = 2 → 1 − 1/4."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 4 t\n1 Q0 b 2 3 t\n1 Q0 c 3 2 t\n1 Q0 u 4 1 t\n")
    assert ours(tmp_path / "q", tmp_path / "r", "Accuracy")["1"] == 0.75
    assert ours(tmp_path / "q", tmp_path / "r", "Accuracy@2")["1"] == 1.0
    assert ours(tmp_path / "q", tmp_path / "r", "Accuracy(rel=2)")["1"] == pytest.approx(1 - 2 / 3, abs=1e-15)
