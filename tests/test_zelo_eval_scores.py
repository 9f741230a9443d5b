"""zelo_eval -R SCORES.tsv: runs against a zELO score file, through the command line (hand-computed values)."""
from __future__ import annotations

import json
import math

import pytest

from cli_harness import run_module_inproc

SCORES = "qid\tdocno\tscore\tse\nq1\ta\t1.0\t0.1\nq1\tb\t0.0\t0.1\nq1\tc\t-1.0\t0.1\nq2\tx\t0.5\t0.2\nq2\ty\t0.2\t0.2\n"
RUN1 = "q1 Q0 b 1 3.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 c 3 1.0 t\nq2 Q0 x 1 1.0 t\nq2 Q0 y 2 0.5 t\n"
RUN2 = "q1 Q0 a 1 3.0 u\nq1 Q0 b 2 2.0 u\nq1 Q0 c 3 1.0 u\nq3 Q0 z 1 1.0 u\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "zelo.tsv").write_text(SCORES)
    (tmp_path / "r1.run").write_text(RUN1)
    (tmp_path / "r2.run").write_text(RUN2)
    return tmp_path


def zeval(cwd, *args):
    """``python -m pref_eval.cli.eval ARGS`` in process (cli_harness.run_module_inproc): values, exit status and
    the stderr line need no process (zelo_eval's real processes: test_docs.py, test_startup_imports.py)."""
    return run_module_inproc("eval", args, cwd)


def ndcg_q1_run1() -> float:
    """Ranking b, a, c; gains exp(score); ideal a, b, c; discounts 1/log2(i+1)."""
    g = {"a": math.exp(1.0), "b": math.exp(0.0), "c": math.exp(-1.0)}
    d = [1 / math.log2(i + 2) for i in range(3)]
    return (g["b"] * d[0] + g["a"] * d[1] + g["c"] * d[2]) / (g["a"] * d[0] + g["b"] * d[1] + g["c"] * d[2])


def test_default_trec_blocks(files):
    out = zeval(files, "-R", "zelo.tsv", "-q", "r1.run", "r2.run")
    assert out.returncode == 0, out.stderr
    lines = [x.split("\t") for x in out.stdout.splitlines()]
    assert [x[0].strip() for x in lines[:4]] == ["zndcg", "zndcg@10", "zacc", "zrecall@10"]
    got = {(run, x[0].strip(), x[1]): x[2] for run, block in (("r1", lines[:13]), ("r2", lines[13:])) for x in block}
    assert got[("r1", "zndcg", "q1")] == f"{ndcg_q1_run1():6.4f}"
    assert got[("r1", "zacc", "q1")] == f"{2 / 3:6.4f}"  # pairs (a,b) wrong, (a,c) and (b,c) right
    assert got[("r1", "zacc", "all")] == f"{(2 / 3 + 1) / 2:6.4f}"
    assert got[("r1", "zndcg", "all")] == f"{(ndcg_q1_run1() + 1) / 2:6.4f}"
    assert got[("r1", "runid", "all")] == "r1.run" and got[("r2", "runid", "all")] == "r2.run"
    # r2 has q1 (perfect order) and q3, which the score file lacks: only q1 counts
    assert got[("r2", "zndcg", "all")] == "1.0000" and ("r2", "zndcg", "q3") not in got


def test_long_tables(files):
    tsv = zeval(files, "-R", "zelo.tsv", "-o", "tsv", "-q", "-m", "zacc", "-m", "zrecall@1", "r1.run")
    assert tsv.returncode == 0, tsv.stderr
    assert tsv.stdout.splitlines() == [
        "run\tqid\tmeasure\tvalue",
        f"r1.run\tq1\tzacc\t{2 / 3!r}", "r1.run\tq1\tzrecall@1\t0.0",  # top-1: b vs a
        "r1.run\tq2\tzacc\t1.0", "r1.run\tq2\tzrecall@1\t1.0",
        f"r1.run\tall\tzacc\t{(2 / 3 + 1) / 2!r}", "r1.run\tall\tzrecall@1\t0.5"]
    js = zeval(files, "-R", "zelo.tsv", "-o", "jsonl", "-m", "zndcg", "r1.run", "r2.run")
    assert [json.loads(x) for x in js.stdout.splitlines()] == [
        {"run": "r1.run", "qid": "all", "measure": "zndcg", "value": (ndcg_q1_run1() + 1) / 2},
        {"run": "r2.run", "qid": "all", "measure": "zndcg", "value": 1.0}]
    csv = zeval(files, "-R", "zelo.tsv", "-o", "csv", "-n", "-q", "-m", "zacc", "r2.run")
    assert csv.stdout.splitlines() == ["run,qid,measure,value", "r2.run,q1,zacc,1.0"]


def test_limit_counts_candidates_in_file_order(files):
    """-M N / --depth keep the first N lines of each query as written (zbench's document_limit)."""
    (files / "late.run").write_text("q1 Q0 c 1 1.0 t\nq1 Q0 a 2 2.0 t\nq1 Q0 b 3 3.0 t\n")
    for opt in (["-M", "2"], ["--depth", "2"], ["--topk", "2"]):
        out = zeval(files, "-R", "zelo.tsv", "-o", "tsv", "-m", "zacc", *opt, "late.run")
        # candidates c, a: run orders a > c as zELO does -> 1.0 (the top 2 by score, b and a, would give 0.0)
        assert out.stdout.splitlines()[1] == "late.run\tall\tzacc\t1.0", (opt, out.stderr)
    full = zeval(files, "-R", "zelo.tsv", "-o", "tsv", "-m", "zacc", "late.run")
    assert full.stdout.splitlines()[1] == f"late.run\tall\tzacc\t{2 / 3!r}"


def test_no_common_query_warns(files):
    (files / "other.run").write_text("q9 Q0 a 1 1.0 t\n")
    out = zeval(files, "-R", "zelo.tsv", "-o", "tsv", "-m", "zacc", "other.run")
    assert out.returncode == 0 and out.stdout.splitlines()[1] == "other.run\tall\tzacc\tnan"
    assert "no query in common" in out.stderr


@pytest.mark.parametrize("args,msg", [
    (["-b", "1"], "not applicable with a zELO score file (zelo.tsv): -b"),
    (["--reference", "r1.run"], "--reference"),
    (["-o", "pref"], "-o pref needs qrels"),
    (["-M", "preferences"], "-M preferences: with a zELO score file"),
    (["-m", "ndcg"], "zelo.tsv is read as a zELO score file (its first line is zelo_fit's header): unknown zELO "
                     "measure 'ndcg'"),
    (["-m", "zacc@3"], "zacc takes no cutoff"),
])
def test_errors(files, args, msg):
    out = zeval(files, "-R", "zelo.tsv", *args, "r1.run", "r2.run")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("zelo_eval: ") and msg in out.stderr and "Traceback" not in out.stderr


def test_qrels_starting_with_brace_named(files):
    """A file meant as qrels whose first line starts a JSON object reads as zbench's annotated JSONL: a measure that
    is not zbench's is refused naming that file and why (the mutated-input fuzz's case; was only "unknown zELO
    measure 'rpp'")."""
    (files / "q.qrels").write_text('{"a": 1 0 d1 1}\n')
    out = zeval(files, "-R", "q.qrels", "-m", "rpp", "r1.run", "r2.run")
    assert out.returncode == 2 and out.stdout == "" and "Traceback" not in out.stderr
    assert out.stderr.startswith("zelo_eval: q.qrels is read as zbench's annotated JSONL (its first line starts "
                                 "a JSON object): unknown zELO measure 'rpp'"), out.stderr


def test_topic_ids_starting_with_brace_are_trec(tmp_path):
    """A qrels and a run whose topic id starts with ``{`` (``{1}``: trec_eval takes any token) are TREC files, not
    zbench's JSONL (b29's guess took every first line starting with ``{``). Hand-worked: the relevant d1 at rank 2
    of 2, AP = 1/2; the docs' zelo_trec gives the same."""
    (tmp_path / "q.qrels").write_text("{1} 0 d1 1\n{1} 0 d2 0\n")
    (tmp_path / "a.run").write_text("{1} Q0 d2 1 2.0 r\n{1} Q0 d1 2 1.0 r\n")
    out = zeval(tmp_path, "-R", "q.qrels", "-m", "map", "-o", "tsv", "a.run")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1:] == ["a.run\tall\tmap\t0.5"]


def test_scored_candidates_grouping_and_order(tmp_path):
    """read_scored_candidates (vectorised in session 21): queries by byte order of their ids, each query's lines in
    file order even when a query comes back later in the file; ids decoded as written (hand-worked)."""
    from pref_eval.io.zelo_scores import read_scored_candidates

    (tmp_path / "r.run").write_bytes("q2 Q0 z 1 9.0 t\nq10 Q0 b 1 5.0 t\nq10 Q0 a 2 7.5 t\nq2 Q0 y 2 8.0 t\n"
                                     "q10 Q0 d\u00e9j\u00e0 3 1.0 t\nq2 Q0 x 3 -1.0 t\n".encode())
    got = read_scored_candidates(str(tmp_path / "r.run"))
    assert list(got) == ["q10", "q2"]  # b"q10" < b"q2"
    assert got == {"q10": (["b", "a", "d\u00e9j\u00e0"], [5.0, 7.5, 1.0]), "q2": (["z", "y", "x"], [9.0, 8.0, -1.0])}


def test_non_utf8_document_id_is_a_candidate_without_score(files):
    """A run's document id that is not UTF-8 is kept as written (surrogate escape) and, having no zELO score, left
    out: r1's values (a traceback, UnicodeDecodeError, before session 21)."""
    from pref_eval.io.zelo_scores import _decode_ids

    (files / "bad.run").write_bytes(RUN1.encode() + b"q1 Q0 d\xff 4 0.5 t\n")
    out = zeval(files, "-R", "zelo.tsv", "-o", "tsv", "-m", "zndcg", "-m", "zacc", "bad.run")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert out.stdout.splitlines()[-2:] == [f"bad.run\tall\tzndcg\t{(ndcg_q1_run1() + 1) / 2!r}",
                                            f"bad.run\tall\tzacc\t{(2 / 3 + 1) / 2!r}"]
    import numpy as np

    ids = np.array([b"d\xff", b"a\nb", b"c"])  # a newline (never in a TREC id): decoded one by one
    assert _decode_ids(ids) == ["d\udcff", "a\nb", "c"] == [b.decode("utf-8", "surrogateescape") for b in ids]


@pytest.mark.parametrize("score,refused", [("700.0", False), ("-700.0", False), ("700.5", True), ("-700.5", True)])
def test_logit_limit_boundary(tmp_path, score, refused):
    """A score beyond ±700 (not at it) without the elo marker is refused, whichever sign (session 21: max/min in
    place of a generator over every score)."""
    from pref_eval.errors import InputError
    from pref_eval.io.zelo_scores import read_zelo_scores

    (tmp_path / "z.tsv").write_text(f"qid\tdocno\tscore\tse\nq1\ta\t0.0\tnan\nq1\tb\t{score}\tnan\nq1\tc\t1.0\tnan\n")
    if refused:
        with pytest.raises(InputError, match="not a natural-log zELO score"):
            read_zelo_scores(str(tmp_path / "z.tsv"))
    else:
        assert read_zelo_scores(str(tmp_path / "z.tsv")) == {"q1": {"a": 0.0, "b": float(score), "c": 1.0}}
