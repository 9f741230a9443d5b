"""Q-measure, Q@k (Sakai; NTCIR's headline measure) and nERR@k against NTCIREVAL and hand-worked examples.

Oracles: (1) NTCIREVAL 190111's own per-topic values (``tests/data/ntcir/per_topic.tsv``, how they were made in
``tests/data/ntcir/README.md``): 1,728 values over the dl19 sample's three runs (grades 0-3) and trec_eval's test
run on its graded qrels (grades 0-4), with β 1, 0.5, 0 and 10, cutoffs 1, 5, 10 and 1000, condensed lists (``-j``)
and gains 1:10:100(:1000), and the NTCIREVAL measures the unknown-measure hints name an equal of (its AP@k is
``Q(beta=0.0)@k``, MSnDCG@k ``nDCG@k``, P@k, Hit@k ``Success@k``), nERR@k, and (session 30) O-measure,
P-measure, P-plus, NCU (its four forms, ``-gamma``, ``-s``) and its original nDCG@k (``-logb``) as ``O_measure``,
``P_measure``, ``P_plus``, ``NCU(...)`` and ``nDCG_JK(...)@k`` (hand-worked in tests/test_ntcir_measures.py);
(2) NTCIREVAL's README example (``sample.rel``/``sample.res``, ``-g 1:2:3``: ``Q-measure= 0.0967``, ``AP= 0.1000``,
``nERR@1000= 0.4710``) worked by hand from Sakai's definition and NTCIREVAL's stopping probability.
"""
from __future__ import annotations

import csv
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.measures import parse_measure

ROOT = Path(__file__).resolve().parents[1]
ORACLE = ROOT / "tests" / "data" / "ntcir" / "per_topic.tsv"

# NTCIREVAL's README, section 3.1: ten relevant documents (three L3, three L2, four L1) and one L0; the run is
# dummy11 (L0), dummy01 (L3), dummy12 (unjudged), dummy04 (L2).
SAMPLE_QRELS = "".join(f"t 0 dummy{i:02d} {g}\n" for i, g in enumerate([3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 0], 1))
SAMPLE_RUN = "".join(f"t Q0 {d} {i} {10 - i} s\n"
                     for i, d in enumerate(["dummy11", "dummy01", "dummy12", "dummy04"], 1))


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    d = tmp_path_factory.mktemp("ntcir_sample")
    (d / "q").write_text(SAMPLE_QRELS)
    (d / "r").write_text(SAMPLE_RUN)
    return d / "q", d / "r"


def _values(qrels, run, names):
    df = pref_eval.evaluate(qrels, run, names)
    return {(m, q): v for m, q, v in zip(df.measure, df.qid, df.value, strict=True)}


def test_hand_worked_readme_example(sample):
    """cg* = 3,6,9,11,13,15,16,17,18,19; relevant at ranks 2 (cg 3, count 1) and 4 (cg 5, count 2).

    BR(2) = (β·3 + 1)/(β·6 + 2), BR(4) = (β·5 + 2)/(β·11 + 4); Q = (BR(2) + BR(4))/R with R = 10; Q@k divides the
    ranks ≤ k by min(k, R). NTCIREVAL prints Q-measure= 0.0967 and AP= 0.1000 for β = 1.
    """
    v = _values(*sample, ["Q", "Q(beta=0.5)", "Q(beta=0.0)", "AP", "Q@1", "Q@2", "Q@4", "Q@20"])
    br = lambda b: ((b * 3 + 1) / (b * 6 + 2), (b * 5 + 2) / (b * 11 + 4))  # noqa: E731
    assert v["Q", "t"] == pytest.approx(29 / 300, rel=1e-15) and f"{v['Q', 't']:.4f}" == "0.0967"
    assert v["Q(beta=0.5)", "t"] == pytest.approx(sum(br(0.5)) / 10, rel=1e-15)
    assert v["Q(beta=0.0)", "t"] == pytest.approx(v["AP", "t"], rel=1e-15) == 0.1
    assert v["Q@1", "t"] == 0.0
    assert v["Q@2", "t"] == pytest.approx(br(1)[0] / 2, rel=1e-15)
    assert v["Q@4", "t"] == pytest.approx(sum(br(1)) / 4, rel=1e-15)
    assert v["Q@20", "t"] == pytest.approx(sum(br(1)) / 10, rel=1e-15)


def test_hand_worked_gains_and_condensed_list(sample):
    # gains 1:10:100 (NTCIREVAL's -g 1:10:100): cg* = 100,200,300,310,320,330,331,...; cg = 0,100,100,110
    v = _values(*sample, ["Q(gains={1: 1, 2: 10, 3: 100})", "Q(judged_only=True)", "Q(gains={2: 0, 3: 0})"])
    assert v["Q(gains={1: 1, 2: 10, 3: 100})", "t"] == pytest.approx(
        ((100 + 1) / (200 + 2) + (110 + 2) / (310 + 4)) / 10, rel=1e-15)
    # -j: the unjudged dummy12 leaves the list, dummy04 moves to rank 3
    assert v["Q(judged_only=True)", "t"] == pytest.approx(((3 + 1) / (6 + 2) + (5 + 2) / (9 + 3)) / 10, rel=1e-15)
    # a grade of gain 0 is not relevant: only the four L1 documents count, none retrieved
    assert v["Q(gains={2: 0, 3: 0})", "t"] == 0.0


def test_hand_worked_nerr(sample):
    """R = grade/(H + 1) with H = 3: the run stops at rank 2 (R = 3/4) or rank 4 (R = 2/4) after passing rank 2.

    ERR = (1/2)(3/4) + (1/4)(2/4)(1 − 3/4) = 0.40625 (NTCIREVAL: ERR@1000= 0.4062); the ideal list 3,3,3,2,2,2,1,1,1,1
    by the same cascade; NTCIREVAL prints nERR@1000= 0.4710.
    """
    def err(grades, k, top=4):
        out, keep = 0.0, 1.0
        for i, g in enumerate(grades[:k], 1):
            out += keep * (g / top) / i
            keep *= 1 - g / top
        return out

    ideal = [3, 3, 3, 2, 2, 2, 1, 1, 1, 1]
    v = _values(*sample, ["nERR(max_rel=3)@1000", "nERR(max_rel=3)@2", "nERR(max_rel=3)@1", "nERR(max_rel=4)@10",
                          "nERR(max_rel=3, judged_only=True)@3"])
    assert err([0, 3, 0, 2], 1000) == 0.40625
    assert v["nERR(max_rel=3)@1000", "t"] == pytest.approx(0.40625 / err(ideal, 1000), rel=1e-14)
    assert f"{v['nERR(max_rel=3)@1000', 't']:.4f}" == "0.4710"
    assert v["nERR(max_rel=3)@2", "t"] == pytest.approx(0.375 / err(ideal, 2), rel=1e-14)
    assert v["nERR(max_rel=3)@1", "t"] == 0.0
    # H = 4 (a collection whose highest grade this topic lacks): R = grade/5
    assert v["nERR(max_rel=4)@10", "t"] == pytest.approx(((3 / 5) / 2 + (1 - 3 / 5) * (2 / 5) / 4) / err(ideal, 10, 5),
                                                          rel=1e-14)
    # -j: the unjudged dummy12 leaves the list, dummy04 moves to rank 3
    assert v["nERR(max_rel=3, judged_only=True)@3", "t"] == pytest.approx(
        (0.375 + 0.25 * 0.5 / 3) / err(ideal, 3), rel=1e-14)


def _oracle_rows():
    with ORACLE.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_equal_to_ntcireval_per_topic():
    rows = _oracle_rows()
    assert len(rows) == 1728
    by_pair = defaultdict(list)
    for row in rows:
        by_pair[row["qrels"], row["run"]].append(row)
    checked = 0
    for (qrels, run), pair_rows in by_pair.items():
        names = sorted({r["pref_eval measure"] for r in pair_rows})
        ours = _values(ROOT / qrels, ROOT / run, names)
        for r in pair_rows:
            assert f"{ours[r['pref_eval measure'], r['topic']]:.4f}" == r["value"], r
            checked += 1
    assert checked == 1728


def test_trec_syntax_and_cutoff_names():
    qrels, run = ROOT / "qrels" / "dl19-sample.qrels", ROOT / "runs" / "bm25.run"
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.trec", "-q", "-m", "Q", "-m", "Q_cut.10,1000",
                          str(qrels), str(run)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    got = {tuple(line.split()[:2]): line.split()[2] for line in out.stdout.splitlines()}
    want = {(r["pref_eval measure"], r["topic"]): r["value"] for r in _oracle_rows() if r["run"] == "runs/bm25.run"}
    for t in ("1037798", "1113437"):
        assert got["Q", t] == want["Q", t]
        assert got["Q_cut_10", t] == want["Q@10", t] and got["Q_cut_1000", t] == want["Q@1000", t]
    assert ("Q", "all") in got and "map" not in {k for k, _ in got}


@pytest.mark.parametrize("name, needle", [
    ("Q(beta=-0.5)", "beta (a number ≥ 0 and ≤ 1e100, default 1.0) got -0.5"),
    ("Q(beta=1)", "got the integer 1"),
    ("Q(beta=1e101)", "≤ 1e100"),
    ("Q(rel=2)", "Q does not support parameter 'rel'"),
    ("Q@0", "cutoff (an integer ≥ 1"),
    ("Q(gains={1: 0.5})", "gains values must be integers"),
])
def test_refused(name, needle):
    with pytest.raises(UsageError) as e:
        parse_measure(name)
    assert needle in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("name, needle", [
    ("Q-measure", "NTCIREVAL's Q-measure is Q here"),
    ("Q@0010", "NTCIREVAL's Q@10 is Q@10 here"),
    ("AP@0010", "is Q(beta=0.0)@10 here; AP@10 divides by R"),
    ("P@0005", "NTCIREVAL's P@5 is P@5 here"),
    ("MSnDCG@0010", "NTCIREVAL's MSnDCG@10 is nDCG@10 here (ndcg_cut.10)"),
    ("MSnDCG@10", "is nDCG@10 here"),
    ("nDCG@1000", None),  # ir-measures' own name: computed, not refused
    ("nDCG@0010", "original discount) is nDCG_JK@10 here (ndcg_jk_cut.10; its -logb B is nDCG_JK(b=B)@10); its "
                  "MSnDCG@10 is nDCG@10"),
    ("Hit@0010", "is Success@10 here"),
    ("nERR@0010", "NTCIREVAL's nERR@10 is nERR(max_rel=H)@10 here"),
    ("nERR@10", "needs max_rel, the highest grade of the collection"),
    ("nERR(max_rel=0)@10", "max_rel (an integer ≥ 1)"),
    ("nERR(max_rel=3)", "cutoff"),
    ("P-plus", "NTCIREVAL's P-plus is P_plus here"),
    ("P@010", "P.010"),  # not NTCIREVAL's %04ld: the trec_eval hint as before
])
def test_ntcireval_names_are_told(name, needle):
    if needle is None:
        assert parse_measure(name)
        return
    with pytest.raises(UsageError) as e:
        parse_measure(name)
    assert needle in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_nerr_grade_above_max_rel_is_refused(sample):
    from pref_eval.errors import EvaluationError

    with pytest.raises(EvaluationError, match=r"relevance grade 3 above max_rel=2"):
        pref_eval.evaluate(*sample, ["nERR(max_rel=2)@10"])
    assert _values(*sample, ["nERR(max_rel=3)@10"])["nERR(max_rel=3)@10", "t"] > 0
