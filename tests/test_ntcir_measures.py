"""O-measure, P-measure, P-plus, NCU and the original nDCG@k (NTCIREVAL's) by hand; `Q`'s trec_eval syntax.

Oracles: NTCIREVAL's README example (``sample.rel``/``sample.res``, ``-g 1:2:3``: ``O-measure= 0.5000``,
``P-plus= 0.5000``, ``NCUgu,P= 0.1316``, ``NCUgu,BR= 0.1281``, ``NCUrb,P= 0.1215``, ``NCUrb,BR= 0.1175``,
``nDCG@1000= 0.3380``) and rankings worked by hand from the definitions (Sakai, IPSJ TOD 2007; Sakai & Robertson,
EVIA 2008; Järvelin & Kekäläinen, TOIS 2002). NTCIREVAL's printed per-topic values of the same measures
(``tests/data/ntcir/per_topic.tsv``) are compared in tests/test_qmeasure.py.
"""
from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.measures import parse_measure

ROOT = Path(__file__).resolve().parents[1]
# NTCIREVAL's README sample: three L3 (dummy01-03), three L2 (04-06), four L1 (07-10), one L0 (dummy11)
GRADES = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 0]
IDEAL = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1]
RANKINGS = {
    "readme": ["dummy11", "dummy01", "dummy12", "dummy04"],  # L0, L3, unjudged, L2 (the README's res)
    "late": ["dummy07", "dummy11", "dummy04", "dummy01", "dummy02"],  # L1, L0, L2, L3, L3
    "no3": ["dummy07", "dummy04", "dummy08"],  # L1, L2, L1: the ranking's highest grade is 2
    "none": ["dummy11", "dummy12"],  # L0, unjudged
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("ntcir_more")
    (d / "q").write_text("".join(f"{t} 0 dummy{i:02d} {g}\n" for t in RANKINGS
                                 for i, g in enumerate(GRADES, 1)))
    (d / "r").write_text("".join(f"{t} Q0 {doc} {i} {20 - i} s\n" for t, docs in RANKINGS.items()
                                 for i, doc in enumerate(docs, 1)))
    return d / "q", d / "r"


def _values(files, names):
    df = pref_eval.evaluate(*files, names)
    return {(m, q): v for m, q, v in zip(df.measure, df.qid, df.value, strict=True)}


def test_readme_example(files):
    v = _values(files, ["O_measure", "P_measure", "P_plus", "NCU", "NCU(utility='P')", "NCU(stop='rb')",
                        "NCU(stop='rb', utility='P')", "nDCG_JK@1000"])
    printed = {"O_measure": "0.5000", "P_measure": "0.5000", "P_plus": "0.5000", "NCU": "0.1281",
               "NCU(utility='P')": "0.1316", "NCU(stop='rb')": "0.1175", "NCU(stop='rb', utility='P')": "0.1215",
               "nDCG_JK@1000": "0.3380"}
    for name, text in printed.items():
        assert f"{v[name, 'readme']:.4f}" == text, name
    # relevant at ranks 2 (L3: cg 3, count 1, cg* 6) and 4 (L2: cg 5, count 2, cg* 11)
    br = [(3 + 1) / (6 + 2), (5 + 2) / (11 + 4)]
    assert v["NCU", "readme"] == pytest.approx((br[0] * 3 + br[1] * 2) / sum(IDEAL), rel=1e-15)
    assert v["NCU(utility='P')", "readme"] == pytest.approx((1 / 2 * 3 + 2 / 4 * 2) / sum(IDEAL), rel=1e-15)
    rb = sum(0.95 ** i for i in range(10))
    assert v["NCU(stop='rb')", "readme"] == pytest.approx((br[0] + br[1] * 0.95) / rb, rel=1e-15)
    ideal = sum(g / max(1.0, math.log2(i)) for i, g in enumerate(IDEAL, 1))
    assert v["nDCG_JK@1000", "readme"] == pytest.approx((3 + 2 / 2) / ideal, rel=1e-15)


def test_one_document_measures_by_hand(files):
    """'late': L1, L0, L2, L3, L3; cg 1,1,3,6,9, count 1,1,2,3,4, cg* 3,6,9,11,13.

    BR(1) = 2/4, BR(3) = 5/12, BR(4) = 9/15, BR(5) = 13/18; r₁ = 1, r_p = 4 (the first L3).
    'no3': L1, L2, L1 (no L3 retrieved): r_p = 2, BR(1) = 2/4, BR(2) = 5/8.
    """
    names = ["O_measure", "P_measure", "P_plus", "O_measure(beta=0.0)", "P_plus(beta=0.0)",
             "P_plus(gains={1: 1, 2: 10, 3: 100})", "P_measure(judged_only=True)"]
    v = _values(files, names)
    assert v["O_measure", "late"] == 0.5
    assert v["P_measure", "late"] == pytest.approx(9 / 15, rel=1e-15)
    assert v["P_plus", "late"] == pytest.approx((2 / 4 + 5 / 12 + 9 / 15) / 3, rel=1e-15)
    assert v["O_measure(beta=0.0)", "late"] == 1.0  # RR
    assert v["P_plus(beta=0.0)", "late"] == pytest.approx((1 + 2 / 3 + 3 / 4) / 3, rel=1e-15)
    # gains 1:10:100: cg 1,1,11,111, cg* 100,200,300,310
    assert v["P_plus(gains={1: 1, 2: 10, 3: 100})", "late"] == pytest.approx(
        ((1 + 1) / (100 + 1) + (11 + 2) / (300 + 3) + (111 + 3) / (310 + 4)) / 3, rel=1e-15)
    # condensed list: dummy11 is judged (L0), so nothing moves in 'late'
    assert v["P_measure(judged_only=True)", "late"] == v["P_measure", "late"]
    assert v["P_measure", "no3"] == pytest.approx(5 / 8, rel=1e-15)  # the ranking's own highest grade
    assert v["P_plus", "no3"] == pytest.approx((2 / 4 + 5 / 8) / 2, rel=1e-15)
    assert v["O_measure", "no3"] == 0.5
    for name in names:
        assert v[name, "none"] == 0.0


def test_ncu_by_hand(files):
    v = _values(files, ["NCU", "NCU(utility='P')", "NCU(stop='rb', gamma=0.5)", "NCU(stop='rb', utility='P')",
                        "NCU(beta=0.0)"])
    br = [2 / 4, 5 / 12, 9 / 15, 13 / 18]
    prec = [1, 2 / 3, 3 / 4, 4 / 5]
    g = [1, 2, 3, 3]
    assert v["NCU", "late"] == pytest.approx(sum(b * x for b, x in zip(br, g, strict=True)) / 19, rel=1e-15)
    assert v["NCU(utility='P')", "late"] == pytest.approx(sum(p * x for p, x in zip(prec, g, strict=True)) / 19,
                                                          rel=1e-15)
    assert v["NCU(beta=0.0)", "late"] == v["NCU(utility='P')", "late"]
    # stop values {1: 1, 2: 5, 3: 10} (NTCIREVAL's -s 1:5:10); a grade left out stops with its gain
    stops = [1, 5, 10, 10]
    v2 = _values(files, ["NCU(stops={1: 1, 2: 5, 3: 10})", "NCU(utility='P', stops={3: 10})"])
    assert v2["NCU(stops={1: 1, 2: 5, 3: 10})", "late"] == pytest.approx(
        sum(b * x for b, x in zip(br, stops, strict=True)) / (3 * 10 + 3 * 5 + 4 * 1), rel=1e-15)
    assert v2["NCU(utility='P', stops={3: 10})", "late"] == pytest.approx(
        sum(p * x for p, x in zip(prec, [1, 2, 10, 10], strict=True)) / (3 * 10 + 3 * 2 + 4 * 1), rel=1e-15)
    # a stop value 0: a user never stops at L1 (NTCIREVAL refuses 0: its -s takes positive values)
    assert _values(files, ["NCU(stops={1: 0})"])["NCU(stops={1: 0})", "late"] == pytest.approx(
        sum(b * x for b, x in zip(br, [0, 2, 3, 3], strict=True)) / (3 * 3 + 3 * 2), rel=1e-15)
    assert _values(files, ["NCU(gamma=0.5)"])["NCU(gamma=0.5)", "late"] == v["NCU(stop='rb', gamma=0.5)", "late"]
    assert v["NCU(stop='rb', gamma=0.5)", "late"] == pytest.approx(
        sum(b * 0.5 ** i for i, b in enumerate(br)) / sum(0.5 ** i for i in range(10)), rel=1e-15)
    assert v["NCU(stop='rb', utility='P')", "late"] == pytest.approx(
        sum(p * 0.95 ** i for i, p in enumerate(prec)) / sum(0.95 ** i for i in range(10)), rel=1e-15)


def test_original_ndcg_by_hand(files):
    v = _values(files, ["nDCG_JK@5", "nDCG_JK@2", "nDCG_JK(b=3.0)@5", "nDCG_JK(gains={3: 9})@5", "nDCG@5",
                        "nDCG_JK(gains={1: 10})@5"])
    run = [1, 0, 2, 3, 3]

    def dcg(gains, k, b=2.0):
        return sum(x / max(1.0, math.log(i) / math.log(b)) for i, x in enumerate(gains[:k], 1))

    assert v["nDCG_JK@5", "late"] == pytest.approx(dcg(run, 5) / dcg(IDEAL, 5), rel=1e-15)
    assert v["nDCG_JK@2", "late"] == pytest.approx(1 / 6, rel=1e-15)  # ranks 1 and 2 undiscounted
    assert v["nDCG_JK(b=3.0)@5", "late"] == pytest.approx(dcg(run, 5, 3.0) / dcg(IDEAL, 5, 3.0), rel=1e-15)
    nine = [1, 0, 2, 9, 9]
    assert v["nDCG_JK(gains={3: 9})@5", "late"] == pytest.approx(
        dcg(nine, 5) / dcg([9, 9, 9, 2, 2], 5), rel=1e-15)
    # a map that reorders the grades reorders the ideal list: four L1 documents of gain 10 first
    assert v["nDCG_JK(gains={1: 10})@5", "late"] == pytest.approx(
        dcg([10, 0, 2, 3, 3], 5) / dcg([10, 10, 10, 10, 3], 5), rel=1e-15)
    assert v["nDCG_JK@5", "late"] != v["nDCG@5", "late"]  # not the Microsoft discount


@pytest.mark.parametrize("name, needle", [
    ("NCU(stop='gu', gamma=0.5)", "gamma is the rank-biased stop's decay: give it with stop='rb'"),
    ("NCU(utility='P', beta=0.5)", "beta is the blended ratio's: it has no effect with utility='P'"),
    ("NCU(stop='x')", "stop (one of 'gu', 'rb'"),
    ("NCU(stop='rb', gamma=0.0)", "gamma (a number > 0 and ≤ 1"),
    ("NCU(stop='rb', gamma=1.5)", "gamma (a number > 0 and ≤ 1"),
    ("NCU@10", "NCU takes no cutoff"),
    ("NCU(stop='rb', stops={1: 2})", "stops are the graded-uniform stop's values: not with stop='rb'"),
    ("NCU(gamma=0.5, stops={1: 2})", "not with stop='rb'"),
    ("NCU(stops={1: -1})", "stops values must be ≥ 0"),
    ("NCU(stops={1: 0.5})", "values must be integers"),
    ("O_measure(rel=2)", "O_measure does not support parameter 'rel'"),
    ("P_plus(beta=-1.0)", "beta (a number ≥ 0"),
    ("nDCG_JK", "nDCG_JK needs a cutoff"),
    ("nDCG_JK(b=1.0)@10", "b (a number > 1 and ≤ 1e100"),
    ("nDCG_JK(b=2)@10", "got the integer 2"),
    ("Q.beta=-1", "beta (a number ≥ 0"),
    ("Q.gamma=1", "unknown parameter 'gamma'"),
    ("Q.beta=0.5,beta=1", "parameter beta given more than once"),
    ("Q_cut.beta=0.5", "cutoff 'beta=0.5' is not an integer"),
])
def test_refused(name, needle):
    with pytest.raises(UsageError) as e:
        parse_measure(name)
    assert needle in str(e.value) and "\n" not in str(e.value), str(e.value)


@pytest.mark.parametrize("name, needle", [
    ("nDCG@0010", "NTCIREVAL's nDCG@10 (Järvelin & Kekäläinen's original discount) is nDCG_JK@10 here"),
    ("O-measure", "NTCIREVAL's O-measure is O_measure here"),
    ("P-measure", "is P_measure here"),
    ("P-plus", "is P_plus here"),
    ("NCUgu,BR", "NTCIREVAL's NCUgu,BR is NCU here"),
    ("NCUgu,P", "is NCU(utility='P') here"),
    ("NCUrb,BR", "is NCU(stop='rb') here"),
    ("NCUrb,P", "is NCU(stop='rb', utility='P') here"),
    ("EBR@0010", "NTCIREVAL's EBR (expected blended ratio"),
    ("ERR@0010", "its nERR@10 is nERR(max_rel=H)@10"),
])
def test_ntcireval_names_are_told(name, needle):
    with pytest.raises(UsageError) as e:
        parse_measure(name)
    assert needle in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_q_in_trec_syntax(files):
    """``Q.beta=B,g=gain`` is ``Q(beta=B, gains={g: gain})``: same numbers, trec_eval's printed name."""
    env = {**os.environ, "PYTHONSAFEPATH": "1", "PYTHONPATH": str(Path(pref_eval.__file__).resolve().parents[1])}
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-q", "-m", "Q.beta=0.5,3=100",
                          *map(str, files)], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    got = {line.split()[1]: float(line.split()[2]) for line in out.stdout.splitlines()}
    assert {line.split()[0] for line in out.stdout.splitlines()} == {"Q_beta=0.5,3=100"}
    v = _values(files, ["Q(beta=0.5, gains={3: 100})"])
    for t in RANKINGS:
        assert got[t] == pytest.approx(v["Q(beta=0.5, gains={3: 100})", t], abs=5e-5)
    # 'late' by hand: cg 1,1,3,103,203; cg* 100,200,300,302,304; β = 0.5
    br = [(0.5 * 1 + 1) / (0.5 * 100 + 1), (0.5 * 3 + 2) / (0.5 * 300 + 3), (0.5 * 103 + 3) / (0.5 * 302 + 4),
          (0.5 * 203 + 4) / (0.5 * 304 + 5)]
    assert v["Q(beta=0.5, gains={3: 100})", "late"] == pytest.approx(sum(br) / 10, rel=1e-15)
    assert _values(files, ["Q.beta=0.0"])["Q_beta=0.0", "late"] == _values(files, ["AP"])["AP", "late"]
