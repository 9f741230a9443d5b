"""zelo_trec -R prefs / qrels_prefs / qrels_jg against trec_eval 10.0, byte for byte.

Oracles:
1. trec_eval 10.0's own expected outputs (``tests/data/trec_eval_test``,
   commands from its README / Makefile quicktest), with and without comment lines;
2. random cases in ``tests/data/trec_prefs_generated`` whose expected outputs
   were produced by the trec_eval 10.0 binary (see that folder's README.md);
3. the worked examples of trec_eval's prefs format documentation (number of
   preferences a file expresses, transitivity inside a judgment group).
Malformed input: one ``zelo_trec: file:line: ...`` line on stderr, exit 2.
"""
from __future__ import annotations

import difflib
import subprocess
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

from conftest import ROOT

TE_TEST = ROOT / "tests" / "data" / "trec_eval_test"
GEN = ROOT / "tests" / "data" / "trec_prefs_generated"

REFERENCE = [
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.test prefs.results.test"),
    ("out.test.prefs", "-m all_prefs -q -R prefs prefs.comment.test prefs.results.test"),
    ("out.test.qrels_prefs", "-m all_prefs -q -R qrels_prefs qrels.test results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.123 results.test"),
    ("out.test.qrels_jg", "-m qrels_jg -q -R qrels_jg qrels.comments.123 results.test"),
]


def zelo_trec(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m pref_eval.cli.trec ARGS`` in process (the bytes compared with trec_eval's need no process;
    test_trec_eval_conformance.py runs trec_eval's quicktest commands as real processes)."""
    return run_module_inproc("trec", args, cwd, text=False)


def _assert_same(got: bytes, expected: bytes, label: str) -> None:
    if got != expected:
        diff = "\n".join(list(difflib.unified_diff(expected.decode().splitlines(),
                                                   got.decode().splitlines(), "trec_eval",
                                                   "zelo_trec", lineterm=""))[:40])
        pytest.fail(f"{label}: output differs\n{diff}")


@pytest.mark.parametrize("expected,args", REFERENCE, ids=[a.split()[-2] for _, a in REFERENCE])
def test_trec_eval_reference_outputs(expected: str, args: str) -> None:
    res = zelo_trec(args.split(), TE_TEST)
    assert res.returncode == 0, res.stderr.decode()
    _assert_same(res.stdout, (TE_TEST / expected).read_bytes(), args)


def _generated() -> list[tuple[str, str]]:
    rows = []
    for line in (GEN / "commands.txt").read_text().splitlines():
        out, args = line.split("\t")
        rows.append((out, args))
    return rows


@pytest.mark.parametrize("expected,args", _generated(), ids=[o for o, _ in _generated()])
def test_generated_cases(expected: str, args: str) -> None:
    res = zelo_trec(args.split(), GEN)
    assert res.returncode == 0, res.stderr.decode()
    _assert_same(res.stdout, (GEN / expected).read_bytes(), args)


def _value(stdout: bytes, name: str, qid: str = "all") -> str:
    for line in stdout.decode().splitlines():
        f = line.split("\t")
        if f[0].strip() == name and f[1] == qid:
            return f[2]
    raise AssertionError(f"{name} {qid} not printed")


def test_documented_example_counts_preferences(tmp_path: Path) -> None:
    # trec_eval's get_prefs.c documentation: this file "expresses 5 preferences
    # (1>2, 3>1, 4>1, 3>4, 2>1)"; the run retrieves 3, 1, 4, 2 in that order.
    (tmp_path / "p").write_text(
        "qid1 ujg1 sub1 docno1 3.0\nqid1 ujg1 sub1 docno2 2.0\n"
        "qid1 ujg2 sub1 docno1 0.0\nqid1 ujg2 sub1 docno3 6.0\nqid1 ujg2 sub1 docno4 2.0\n"
        "qid1 ujg2 sub2 docno1 0.0\nqid1 ujg2 sub2 docno2 8.0\n")
    (tmp_path / "r").write_text("qid1 Q0 docno3 1 4 t\nqid1 Q0 docno1 2 3 t\n"
                                "qid1 Q0 docno4 3 2 t\nqid1 Q0 docno2 4 1 t\n")
    res = zelo_trec(["-m", "all_prefs", "-R", "prefs", "p", "r"], tmp_path)
    assert res.returncode == 0, res.stderr.decode()
    assert _value(res.stdout, "prefs_num_prefs_poss") == "5"
    # fulfilled: 1>2 yes, 3>1 yes, 4>1 no, 3>4 yes, 2>1 no
    assert _value(res.stdout, "prefs_num_prefs_ful") == "3"
    assert _value(res.stdout, "prefs_simp") == "0.6000"
    # pairs: {1,2} agree 1 of 2 -> 0.5, {1,3} 1, {1,4} 0, {3,4} 1 -> 2.5 / 4
    assert _value(res.stdout, "prefs_pair") == "0.6250"
    # per JG: ujg1 1/1, ujg2 (3>1, 4>1, 3>4, 2>1) 2/4 -> mean 0.75
    assert _value(res.stdout, "prefs_avgjg") == "0.7500"


def test_documented_example_transitivity(tmp_path: Path) -> None:
    # "expresses 5 preferences (1>2, 1>3, 2>3, 2>4, 1>4). There is no
    # preference expressed between 3 and 4."
    (tmp_path / "p").write_text(
        "qid1 ujg1 sub1 docno1 3.0\nqid1 ujg1 sub1 docno2 2.0\nqid1 ujg1 sub1 docno3 1.0\n"
        "qid1 ujg1 sub2 docno2 5.0\nqid1 ujg1 sub2 docno4 4.0\n")
    (tmp_path / "r").write_text("qid1 Q0 docno4 1 9 t\nqid1 Q0 docno1 2 8 t\n")
    res = zelo_trec(["-m", "all_prefs", "-R", "prefs", "p", "r"], tmp_path)
    assert res.returncode == 0, res.stderr.decode()
    assert _value(res.stdout, "prefs_num_prefs_poss") == "5"
    # retrieved 4 then 1: 1>4 fails; 1>2, 1>3 implied fulfilled; 2>3 neither; 2>4 fails
    assert _value(res.stdout, "prefs_num_prefs_ful") == "2"
    assert _value(res.stdout, "prefs_num_prefs_ful_ret") == "0"


@pytest.mark.parametrize("fmt,content,line,what", [
    ("prefs", "q1 jg sg d1 1\nq1 jg sg d2\n", 2, "5 fields"),
    ("prefs", "q1 jg sg d1 1\nq1 jg sg d2 high\n", 2, "not a number"),
    ("qrels_prefs", "q1 0 d1 1\nq1 0 d2 1 extra\n", 2, "4 fields"),
    ("qrels_jg", "q1 0 d1 1\nq1 0 d2 1.5\n", 2, "not an integer"),
    ("qrels_jg", "q1 0 d1 1\nq1 1 d1 0\nq1 0 d1 2\n", 3, "duplicate judgment"),
    # a preference cycle through transitivity (trec_eval aborts)
    ("prefs", "q1 jg a d1 2\nq1 jg a d2 1\nq1 jg b d2 2\nq1 jg b d3 1\nq1 jg c d3 2\nq1 jg c d1 1\n",
     None, "inconsistent preferences"),
    # one subgroup: a document in two classes
    ("prefs", "q1 jg s d1 2\nq1 jg s d2 1\nq1 jg s d1 1\n", 3, "two different rel_levels"),
])
def test_malformed_input(tmp_path: Path, fmt: str, content: str, line, what: str) -> None:
    (tmp_path / "rel").write_text(content)
    (tmp_path / "run").write_text("q1 Q0 d1 1 2 t\nq1 Q0 d2 2 1 t\n")
    meas = "qrels_jg" if fmt == "qrels_jg" else "all_prefs"
    res = zelo_trec(["-m", meas, "-R", fmt, "rel", "run"], tmp_path)
    assert res.returncode == 2
    assert res.stdout == b""
    err = res.stderr.decode().strip().splitlines()
    assert len(err) == 1 and "Traceback" not in res.stderr.decode()
    prefix = f"zelo_trec: rel:{line}:" if line else "zelo_trec: rel:"
    assert err[0].startswith(prefix), err[0]
    assert what in err[0], err[0]


def test_measure_not_defined_for_format(tmp_path: Path) -> None:
    (tmp_path / "rel").write_text("q1 jg s d1 1\nq1 jg s d2 0\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 2 t\n")
    res = zelo_trec(["-m", "map", "-R", "prefs", "rel", "run"], tmp_path)
    assert res.returncode != 0
    assert "not defined for -R prefs" in res.stderr.decode()


def test_qrels_jg_negative_level_hand_worked(tmp_path: Path) -> None:
    """-l -1 with -R qrels_jg (found by tools/fuzz_trec_eval.py; trec_eval 10.0 prints these bytes).

    Topic 1, JG a judges d1 = -1, JG b judges d2 = 1; the run retrieves d3 only (judged by neither).
    At -l -1 a document a JG did not judge (-1) counts as relevant in trec_eval's rank walks:
    P_avgjg_1 = (1/1 + 1/1) / 2 = 1. map_avgjg: JG a has R = 0 (no grade >= 0) but finds d3,
    so its AP is 1/0 = inf, and the mean is inf. Rprec_mult_avgjg.1: JG a has c = (long)(0 + 0.9) = 0
    (value 0); JG b has c = (long)(1 + 0.9) = 1 and trec_eval walks down from its judged relevant
    count (0), lowered by d3: max(1 - 1, 0) / 1 = 0 (it was 1 before this fix).
    """
    (tmp_path / "jq").write_text("1 a d1 -1\n1 b d2 1\n")
    (tmp_path / "jr").write_text("1 Q0 d3 1 2.0 r\n")
    res = zelo_trec(["-m", "map_avgjg", "-m", "Rprec_mult_avgjg.1", "-m", "P_avgjg.1", "-R", "qrels_jg", "-l-1",
                     "jq", "jr"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout == (b"map_avgjg             \tall\t   inf\n"
                          b"P_avgjg_1             \tall\t1.0000\n"
                          b"Rprec_mult_avgjg_1.00 \tall\t0.0000\n")
