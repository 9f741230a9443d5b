"""ERR / ERR@k against gdeval.pl (ir-measures' gdeval provider), run live; and a hand-worked example."""
from __future__ import annotations

import numpy as np
import pytest

from family_data import make, ours, write_qrels, write_run

ir_measures = pytest.importorskip("ir_measures")


@pytest.mark.parametrize("seed", [1, 2])
def test_err_matches_gdeval(tmp_path, seed):
    if not ir_measures.gdeval.is_available():
        pytest.skip("gdeval (perl) not available")
    qrels, run = make(seed)
    qp, rp = write_qrels(tmp_path / "q", qrels), write_run(tmp_path / "r", run)
    for k in (1, 5, 20):
        measure = ir_measures.parse_measure(f"ERR@{k}")
        ref = {m.query_id: m.value for m in ir_measures.gdeval.iter_calc(
            [measure], ir_measures.read_trec_qrels(str(qp)), ir_measures.read_trec_run(str(rp)))}
        got = ours(qp, rp, f"ERR@{k}")
        assert ref, "gdeval returned nothing"
        for q, v in ref.items():
            if q not in run:  # ir-measures scores a query the run lacks as 0
                assert v == 0.0
                continue
            assert got[q] == pytest.approx(v, abs=6e-6), (k, q)
        # gdeval omits queries without a relevant document: ours are 0 there
        rel = {q for q, d in qrels.items() if any(g > 0 for g in d.values())}
        for q in set(got) - set(ref):
            assert q not in rel and got[q] == 0.0


def test_err_hand_worked(tmp_path):
    """Chapelle et al. 2009, eq. (1)-(3) with g_max = 4: grades 4, 0, 2 at ranks 1-3.

    R = 15/16, 0, 3/16; ERR = 15/16 + 0 + (1/3)(3/16)(1/16) = 0.9375 + 0.00390625.
    """
    (tmp_path / "q").write_text("1 0 a 4\n1 0 b 0\n1 0 c 2\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n")
    assert ours(tmp_path / "q", tmp_path / "r", "ERR")["1"] == pytest.approx(15 / 16 + 1 / 256, abs=1e-15)
    assert ours(tmp_path / "q", tmp_path / "r", "ERR@2")["1"] == pytest.approx(15 / 16, abs=1e-15)


def test_err_refuses_grade_above_4(tmp_path):
    import pref_eval
    from pref_eval.errors import EvaluationError

    (tmp_path / "q").write_text("1 0 a 5\n")
    (tmp_path / "r").write_text("1 Q0 a 1 3 t\n")
    with pytest.raises(EvaluationError, match="above gdeval"):
        pref_eval.evaluate(str(tmp_path / "q"), [str(tmp_path / "r")], ["ERR@10"])


def test_err_bounds_random(tmp_path):
    qrels, run = make(7)
    v = np.array(list(ours(write_qrels(tmp_path / "q", qrels), write_run(tmp_path / "r", run), "ERR").values()))
    assert (v >= 0).all() and (v <= 1).all()
