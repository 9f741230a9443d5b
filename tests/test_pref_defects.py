"""pref_eval.py's defects (spec §9), each fixed with a clear error or the right value."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_harness import run_module_inproc


def zelo(*args, cwd=None):
    """``python -m pref_eval.cli.eval ARGS`` in process (values, exit status and the stderr line need no
    process; zelo_eval's real processes: test_docs.py, test_startup_imports.py)."""
    return run_module_inproc("eval", args, cwd or ".")


@pytest.fixture
def spec_example(tmp_path: Path):
    """Spec §3.4: q1, runA ranks d1(g1)@2, d3(g3)@3, d2(g2)@4; runB ranks d3@1, d2@2."""
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 3\nq1 0 d9 0\n")
    (tmp_path / "runA").write_text("q1 Q0 x 1 9 A\nq1 Q0 d1 2 8 A\nq1 Q0 d3 3 7 A\nq1 Q0 d2 4 6 A\n")
    (tmp_path / "runB").write_text("q1 Q0 d3 1 9 B\nq1 Q0 d2 2 8 B\nq1 Q0 y 3 7 B\n")
    return tmp_path


def test_graded_rpp_uses_grades(spec_example):
    """Defect 1: graded RPP = Σ_g m_g rpp_g / Σ_g m_g = (3·(−1/3) + 2·(−1) + 1·(−1)) / 6 = −2/3.
    HEAD pref_eval.py (cache bug) gives the binary −1/3."""
    t = spec_example
    out = zelo("-R", t / "qrels", "-m", "rpp", t / "runA", t / "runB")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["rpp"] == pytest.approx(-2 / 3, abs=1e-15)
    binary = zelo("-R", t / "qrels", "-m", "rpp", "-b", "1", t / "runA", t / "runB")
    assert json.loads(binary.stdout)["rpp"] == pytest.approx(-1 / 3, abs=1e-15)


def test_rr_at_k_preference_is_the_difference(spec_example):
    """Defect 2: rr@K as a preference was always 0.0."""
    t = spec_example
    out = zelo("-R", t / "qrels", "-q", "-n", "-m", "rr@5", "-m", "rr@1", t / "runA", t / "runB")
    pref, ma, mb = (json.loads(x) for x in out.stdout.splitlines())
    assert (ma["rr@5"], mb["rr@5"]) == (0.5, 1.0)
    assert pref["rr@5"] == -0.5 and pref["rr@1"] == -1.0


def test_colon_in_run_id(spec_example):
    """Defect 3: run ids with ':' were split wrongly in summary lines."""
    t = spec_example
    (t / "input.a:b").write_text((t / "runA").read_text())
    out = zelo("-R", t / "qrels", "-m", "lexirecall", t / "input.a:b", t / "runB")
    line = json.loads(out.stdout)
    assert (line["runi"], line["runj"]) == ("a:b", "runB")


def test_same_run_id_kept_apart(spec_example):
    """Defect 4: input.X and X.gz map to the same id; the first was silently dropped. Now (issue #10's
    one run-id rule) files whose cut names coincide keep their file names."""
    t = spec_example
    (t / "input.runA").write_text((t / "runA").read_text())
    out = zelo("-R", t / "qrels", t / "runA", t / "input.runA")
    assert out.returncode == 0, out.stderr
    assert "runA" in out.stdout and "input.runA" in out.stdout  # one rule (#10): distinct ids, not the first dropped


@pytest.mark.parametrize("args,msg", [
    (["-m", "bogus"], "unknown measure 'bogus'"),
    (["-M", "preference"], "unknown measure set 'preference'"),
    (["-m", "p@0"], "positive integer"),
    (["-m", "p@x"], "positive integer"),
    (["-m", "rp@5"], "takes no cut-off"),
    (["-m", "p"], "needs a cut-off"),
    (["-m", "r@0"], "positive integer"),
    (["-m", "ap@x"], "must be an integer"),
    (["-m", "rbp@0.5,1.5"], "must be an integer"),
])
def test_bad_measure_names_are_errors(spec_example, args, msg):
    """Defect 5: unknown names gave 0.0 silently; p@0 crashed."""
    t = spec_example
    out = zelo("-R", t / "qrels", *args, t / "runA", t / "runB")
    assert out.returncode == 2 and out.stdout == ""
    assert msg in out.stderr and out.stderr.startswith("zelo_eval: ")


def test_a_space_after_the_at_sign(spec_example):
    """``ndcg@ 3`` is ``ndcg@3`` (since session 30, u40): pref_eval.py reads the cut-off with Python's ``int``, which
    takes surrounding spaces, and ir-measures reads ``nDCG @ 3`` as ``nDCG@3``; until then it was refused here."""
    t = spec_example
    spaced = zelo("-R", t / "qrels", "-m", "ndcg@ 3", t / "runA", t / "runB")
    plain = zelo("-R", t / "qrels", "-m", "ndcg@3", t / "runA", t / "runB")
    assert spaced.returncode == plain.returncode == 0, spaced.stderr
    assert int(" 3") == 3 and spaced.stdout == plain.stdout != ""


def test_duplicate_relevant_doc_in_run(spec_example):
    """Defect 7: a relevant docid twice in a run crashed with KeyError."""
    t = spec_example
    (t / "dup").write_text("q1 Q0 d1 1 9 A\nq1 Q0 d1 2 8 A\n")
    out = zelo("-R", t / "qrels", t / "dup", t / "runB")
    assert out.returncode == 2 and "duplicate document d1" in out.stderr and "Traceback" not in out.stderr
    assert f"{t / 'dup'}:2:" in out.stderr


def test_qrels_blank_line_ok_and_five_columns_error(spec_example):
    """Defect 8: blank lines crashed (now skipped); a 5-column line names file:line."""
    t = spec_example
    (t / "q2").write_text("q1 0 d1 1\n\nq1 0 d2 2\nq1 0 d3 3\n")
    ok = zelo("-R", t / "q2", "-m", "lexirecall", t / "runA", t / "runB")
    assert ok.returncode == 0 and json.loads(ok.stdout)["lexirecall"] == 1.0
    (t / "q5").write_text("q1 0 d1 1\nq1 0 d2 2 extra\n")
    bad = zelo("-R", t / "q5", t / "runA", t / "runB")
    assert bad.returncode == 2 and f"{t / 'q5'}:2:" in bad.stderr and "Traceback" not in bad.stderr


def test_run_blank_line_ok_short_line_error(spec_example):
    """Defect 9: blank or short run lines crashed with IndexError."""
    t = spec_example
    (t / "r2").write_text("q1 Q0 d3 1 9 B\n\nq1 Q0 d2 2 8 B\n")
    ok = zelo("-R", t / "qrels", "-m", "sgnLP", t / "r2", t / "runB")
    assert ok.returncode == 0 and json.loads(ok.stdout)["sgnLP"] == 0.0
    (t / "r3").write_text("q1 Q0 d3 1\n")
    bad = zelo("-R", t / "qrels", t / "r3", t / "runB")
    assert bad.returncode == 2 and f"{t / 'r3'}:1:" in bad.stderr


def test_sampling_is_seeded(tmp_path):
    """Defect 14: --query_fraction/--label_fraction/--samples used unseeded random."""
    data = Path(__file__).resolve().parent / "data" / "pref_eval_ref" / "medium"
    runs = sorted(data.glob("input.*"))
    args = ["-R", data / "qrels", "-M", "preferences", "--samples", "3", "--query_fraction", "0.5",
            "--label_fraction", "0.5"]
    a = zelo(*args, "--seed", "1", *runs)
    b = zelo(*args, "--seed", "1", *runs)
    c = zelo(*args, "--seed", "2", *runs)
    assert a.returncode == 0 and a.stdout == b.stdout and a.stdout != c.stdout
    samples = {json.loads(x)["sample"] for x in a.stdout.splitlines()}
    assert samples == {0, 1, 2}


def test_fewer_than_two_runs_is_an_error(spec_example):
    """Defect 15: pref_eval.py printed usage on stdout and exited 0."""
    t = spec_example
    out = zelo("-R", t / "qrels", "-o", "pref", t / "runA")
    assert out.returncode == 2 and out.stdout == "" and "need at least two runs" in out.stderr


def test_cutoff_zero_is_the_whole_ranking_as_pref_eval(spec_example):
    """pref_eval.py cuts ap/rr/ndcg/rbp only ``if k > 0`` (its default K is 0): ``ap@0``, ``rr@-1``,
    ``rbp@0.5,0`` are the measures without a cut-off (tests/data/pref_eval_ref's zero_cut case checks
    the values against pref_eval.py's own output; rr@K is not in it because pref_eval.py's preference
    value for any rr@K is 0.0, a documented difference)."""
    t = spec_example
    out = zelo("-R", t / "qrels", "-q", "-m", "rr@0", "-m", "rr@-1", "-m", "rr", "-m", "rbp@0.5,0", "-m", "rbp",
               "-m", "ndcg@0", "-m", "ndcg", t / "runA", t / "runB")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    assert rows
    for r in rows:
        assert r["rr@0"] == r["rr@-1"] == r["rr"]
        assert r["rbp@0.5,0"] == r["rbp"] and r["ndcg@0"] == r["ndcg"]
    assert any(r["rr"] != 0 for r in rows)
