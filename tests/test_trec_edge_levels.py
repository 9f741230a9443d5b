"""Corner modes of zelo_trec found by an outside trial against trec_eval 10.0 built from source.

Negative ``-l``: trec_eval's ``num_rel_ret`` (``form_res_rels.c``) counts judged documents only,
while its rank walks (``results_rel_list[i] >= relevance_level``) also count the unjudged ones
(-1 not in the qrels, -2 a negative qrels grade) as relevant. The expected values below are worked
by hand from trec_eval's source (``m_num_rel_ret.c``, ``m_set_*.c``, ``m_utility.c``,
``m_Rprec_mult.c``, ``m_iprec_at_recall.c``, ``m_11pt_avg.c``) and are what trec_eval 10.0 prints.
"""
from __future__ import annotations

import pytest
from cli_harness import run_inproc

QRELS = "q1 0 a 2\nq1 0 b 0\nq1 0 c -1\nq1 0 d 1\n"
#        rank 1 x (not in qrels: -1), 2 a (2), 3 y (-1), 4 b (0), 5 c (negative grade: -2)
RUN = "q1 Q0 x 1 5.0 t\nq1 Q0 a 2 4.0 t\nq1 Q0 y 3 3.0 t\nq1 Q0 b 4 2.0 t\nq1 Q0 c 5 1.0 t\n"

# -l -1: relevant in the walks = ranks 1-4 (x, a, y, b); num_rel_ret = 2 (a, b judged);
# num_rel = 3 (a, b, d: grades ≥ 0); num_ret = 5.
EXPECTED_L_MINUS1 = {
    "num_rel": "3",
    "num_rel_ret": "2",
    "P_5": "0.8000",                       # 4 of the top 5 have grade ≥ -1
    "set_P": "0.4000",                     # 2 / 5
    "set_relative_P": "0.6667",            # 2 / min(5, 3)
    "set_recall": "0.6667",                # 2 / 3
    "set_map": "0.2667",                   # 2·2 / (5·3)
    "set_F": "0.5000",                     # 2·0.4·(2/3) / (0.4 + 2/3)
    "utility_1,-1,0,0": "-1.0000",         # 1·2 − 1·(5 − 2)
    # walk up from rel_so_far = num_rel_ret = 2: at rank 4 (b) 2/4 = 0.5 → cut 2; at rank 3 (y) 1/3,
    # cut 1 gets the running maximum 0.5; rel_so_far reaches 0 and the walk stops.
    # cuts lround(x·3): 0 → 0, .33 → 1, .5 → 2, 1 → 3 (> num_rel_ret: 0)
    "iprec_at_recall_0.00": "0.5000",
    "iprec_at_recall_0.33": "0.5000",
    "iprec_at_recall_0.50": "0.5000",
    "iprec_at_recall_1.00": "0.0000",
    "11pt_avg": "0.4091",                  # cuts 0,0,1,1,1,2,2,2,2,3,3: 9 × 0.5 / 11
    # cut (long)(x·3 + 0.9): 0.2 → 1: rel_so_far at rank 1 = 1 − 2 < 0 (walk stopped) → 0;
    # 1.0 → 3: rel_so_far at rank 3 = 3 − 2 = 1 → 1/3
    "Rprec_mult_0.20": "0.0000",
    "Rprec_mult_1.00": "0.3333",
}
MEASURES = ["num_rel_ret", "num_rel", "P.5", "set_P", "set_recall", "Rprec_mult.0.2,1.0",
            "iprec_at_recall.0,.33,.5,1", "utility.1,-1,0,0", "set_F", "11pt_avg", "set_map", "set_relative_P"]


def _values(tmp_path, *flags: str) -> dict[str, str]:
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    argv = ["-q", "-n", *flags]
    for m in MEASURES:
        argv += ["-m", m]
    res = run_inproc("zelo_trec", [*argv, "q", "r"], tmp_path)
    assert res.returncode == 0, res
    rows = [line.split("\t") for line in res.stdout.decode().splitlines()]
    assert all(r[1] == "q1" for r in rows)
    return {r[0].strip(): r[2] for r in rows}


def test_negative_level_counts_judged_documents_in_num_rel_ret(tmp_path):
    assert _values(tmp_path, "-l", "-1") == EXPECTED_L_MINUS1


@pytest.mark.parametrize("level", ["1", "0"])
def test_level_at_least_zero_unchanged(tmp_path, level):
    # no unjudged document reaches the threshold: the walks and num_rel_ret agree
    got = _values(tmp_path, "-l", level)
    rel_ret = 1 if level == "1" else 2
    assert got["num_rel_ret"] == str(rel_ret)
    assert got["set_P"] == f"{rel_ret / 5:.4f}"


@pytest.mark.parametrize(("flags", "expected"), [
    # the placeholder ranking of a topic missing under -c is one unjudged document:
    # 2·0 − 1·1 − 3·1 + 1·(10 + 0 − 1 − 1) = 4; under -J or -M 0 it is empty:
    # −3·1 + 1·(10 − 0 − 1) = 6 (trec_eval 10.0 prints these; it zeroes only the bare name "utility")
    ([], "4.0000"),
    (["-J"], "6.0000"),
    (["-M", "0"], "6.0000"),
    (["-M", "1"], "4.0000"),
])
def test_utility_of_a_missing_topic_follows_the_placeholder(tmp_path, flags, expected):
    (tmp_path / "q").write_text("q1 0 a 1\nq2 0 b 1\nq2 0 c 0\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1.0 t\n")
    res = run_inproc("zelo_trec", ["-q", "-c", *flags, "-N", "10", "-m", "utility.2,-1,-3,1",
                                   "q", "r"], tmp_path)
    assert res.returncode == 0, res
    rows = {(r.split("\t")[0].strip(), r.split("\t")[1]): r.split("\t")[2] for r in res.stdout.decode().splitlines()}
    assert rows[("utility_2,-1,-3,1", "q2")] == expected


@pytest.mark.parametrize(("flags", "expected"), [
    # m_rbp_resid.c on the placeholder ranking (one unjudged document at rank 1):
    # p^1 + (1 − p)·p^0 = 0.7 + 0.3 = 1; under -J or -M 0 the ranking is empty, no unjudged
    # document: 0 (trec_eval 10.0 prints these, u21; it zeroes only the bare name "rbp_resid")
    ([], "1.0000"),
    (["-J"], "0.0000"),
    (["-M", "0"], "0.0000"),
    (["-M", "0", "-l", "2"], "0.0000"),
    (["-M", "1"], "1.0000"),
])
def test_rbp_resid_of_a_missing_topic_follows_the_placeholder(tmp_path, flags, expected):
    (tmp_path / "q").write_text("q1 0 a 1\nq2 0 b 1\nq2 0 c 0\n")
    (tmp_path / "r").write_text("q1 Q0 a 1 1.0 t\nq1 Q0 z 2 0.5 t\n")
    res = run_inproc("zelo_trec", ["-q", "-c", *flags, "-m", "rbp_resid.p=0.7", "q", "r"], tmp_path)
    assert res.returncode == 0, res
    rows = {(r.split("\t")[0].strip(), r.split("\t")[1]): r.split("\t")[2] for r in res.stdout.decode().splitlines()}
    assert rows[("rbp_resid_p=0.7", "q2")] == expected


# trec_eval 10.0, `trec_eval -q -l -1 -m map -m gm_map -m binG -m map_cut.1,5 -m num_rel -m P.2 QRELS RUN` on
# a topic judged only below 0 (zz) that retrieves a document not in the qrels (counted as relevant at -l -1,
# not in num_rel): m_map.c / m_gm_map.c / m_binG.c divide by num_rel 0 once one was retrieved (inf), m_map_cut.c
# returns on num_rel 0 (0). Session 22's fuzz blind spot (tools/fuzz_trec_eval.py, all-negative topics under -l <= 0).
NEG_QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\nzz 0 n1 -1\nzz 0 n2 -1\n"
NEG_RUN = "1 Q0 a 1 3 run\n1 Q0 b 2 2 run\n1 Q0 x 3 1 run\nzz Q0 n1 1 1.0 run\nzz Q0 zz 2 0.5 run\n"
NEG_L_MINUS1 = """\
num_rel               \t1\t3
map                   \t1\t1.0000
P_2                   \t1\t1.0000
binG                  \t1\t1.0000
map_cut_1             \t1\t0.3333
map_cut_5             \t1\t1.0000
num_rel               \tzz\t0
map                   \tzz\t   inf
P_2                   \tzz\t0.5000
binG                  \tzz\t   inf
map_cut_1             \tzz\t0.0000
map_cut_5             \tzz\t0.0000
num_rel               \tall\t3
map                   \tall\t   inf
gm_map                \tall\t   inf
P_2                   \tall\t0.7500
binG                  \tall\t   inf
map_cut_1             \tall\t0.1667
map_cut_5             \tall\t0.5000
"""
NEG_L0_ZZ = {"map": "0.0000", "P_2": "0.0000", "binG": "0.0000"}  # the same command with -l 0


@pytest.mark.parametrize("level", ["-1", "0"])
def test_topic_judged_only_below_zero_divides_by_num_rel_0(tmp_path, level):
    (tmp_path / "q").write_text(NEG_QRELS)
    (tmp_path / "r").write_text(NEG_RUN)
    argv = ["-q", "-l", level, "-m", "map", "-m", "gm_map", "-m", "binG", "-m", "map_cut.1,5", "-m", "num_rel",
            "-m", "P.2", "q", "r"]
    res = run_inproc("zelo_trec", argv, tmp_path)
    assert res.returncode == 0, res
    out = res.stdout.decode()
    if level == "-1":
        assert out == NEG_L_MINUS1
    else:
        rows = [x.split("\t") for x in out.splitlines()]
        assert {r[0].strip(): r[2] for r in rows if r[1] == "zz" and r[0].strip() in NEG_L0_ZZ} == NEG_L0_ZZ
