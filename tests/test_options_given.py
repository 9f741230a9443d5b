"""An option given on the command line where it cannot apply is refused whatever its value (session 23, e32).

Before, the checks that live in the API compared a value with its default, so ``zelo_compare -o jsonl
--digits 4`` (the default, given) was accepted and unused while ``--digits 3`` was refused. The commands now
name the flags their command line gave (``cli/common.options_given``, click's parameter source) and the API's
checks refuse those too (``errors.option_given``); a Python caller's value equal to the default still counts
as not given (a function cannot tell ``digits=4`` from no ``digits``: docs/api.md).

Oracle: the refusal itself -- each option here changes no byte of the output at its default or any other value
(the sibling refusal of a non-default value, session 22, shows the same message); each case fails on the old
code (accepted, exit 0).
"""
from __future__ import annotations

import pytest

from cli_harness import run_module_inproc

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d1 1\nq2 0 d3 2\n"
RUN_A = "q1 Q0 d1 1 3 A\nq1 Q0 d2 2 2 A\nq2 Q0 d3 1 3 A\n"
RUN_B = "q1 Q0 d2 1 3 B\nq2 Q0 d1 1 3 B\nq2 Q0 d3 2 2 B\n"
PQ = ["-P", "tests/data/stats/perquery.tsv", "-Q"]
AGREE = ["-J", "judgments/dl21-crowd-sample.txt", "-J", "judgments/dl21-gpt4o-sample.human", "-l", "pair", "-Q"]
SAMPLE = ["-R", "qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run"]

CASES = [
    ("compare", [*PQ, "-o", "jsonl", "--digits", "4"], "--digits applies to the tables (-o text, markdown, latex); "
     "-o jsonl writes every record in full precision"),
    ("compare", [*PQ, "-o", "csv", "--digits", "4"], "--digits applies to the tables"),
    ("compare", ["-Q", "-m", "rpp", "-l", "1", *SAMPLE], "-l applies to trec_eval measures; with preference "
     "measures use -b/-f"),
    ("compare", ["-Q", "-m", "rpp", "--level", "1", *SAMPLE], "-l applies to trec_eval measures"),
    ("agree", [*AGREE, "-o", "tsv", "--digits", "4"], "--digits applies to the tables (-o text, markdown, latex); "
     "-o tsv writes every value in full precision"),
    ("agree", [*AGREE, "--resamples", "0", "--seed", "0"], "--seed seeds the bootstrap (none with --resamples 0)"),
    ("agree", [*AGREE, "--resamples", "0", "--confidence", "0.95"], "--confidence sets the bootstrap intervals: "
     "none with --resamples 0"),
    ("agree", [*AGREE, "--buckets", "20"], "--buckets is used only by the calibration level"),
    ("agree", [*AGREE, "--alpha", "0.05"], "--alpha is used only by the system level"),
    ("eval", ["-Q", "-l", "1", *SAMPLE], "-l applies to metric mode (trec_eval measures); in preference mode"),
    ("eval", ["-Q", "-m", "map", "--samples", "1", *SAMPLE], "--samples applies to preference measures"),
    ("eval", ["-Q", "-m", "map", "--query_fraction", "1", *SAMPLE], "--query_fraction applies to preference measures"),
    ("eval", ["-Q", "-m", "map", "--label_fraction", "1.0", *SAMPLE], "--label_fraction applies to preference "
     "measures"),
    ("plot", ["pairs", *PQ, "-m", "ndcg", "--run-id", "path", "-o", "-", "--image-format", "svg"],
     "--run-id/--name apply to run files evaluated with -R"),
]


@pytest.mark.parametrize("module, argv, message", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_given_default_refused_where_it_cannot_apply(module, argv, message):
    res = run_module_inproc(module, argv)
    assert res.returncode == 2 and res.stdout == "", res.stderr
    prog = {"compare": "zelo_compare", "agree": "zelo_agree", "eval": "zelo_eval", "plot": "zelo_plot"}[module]
    assert res.stderr.startswith(f"{prog}: {message}") and res.stderr.count("\n") == 1, res.stderr


def test_pref_aggregate_damping_default_with_metrics_only_refused(tmp_path):
    for name, text in (("q.txt", QRELS), ("A.run", RUN_A), ("B.run", RUN_B)):
        (tmp_path / name).write_text(text)
    res = run_module_inproc("eval", ["-R", "q.txt", "-q", "-m", "ap", "-m", "rpp", "A.run", "B.run"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    (tmp_path / "p.jsonl").write_text(res.stdout)
    res = run_module_inproc("aggregate", ["-P", "p.jsonl", "-m", "ap", "--damping", "0.15"], cwd=tmp_path)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr == ("pref_aggregate: --damping applies to MC4, which orders preference measures; ap are "
                          "metrics, ordered by their mean\n")
    assert run_module_inproc("aggregate", ["-P", "p.jsonl", "-m", "rpp", "--damping", "0.15"],
                             cwd=tmp_path).returncode == 0  # read by MC4


def test_the_api_takes_the_default_value_and_refuses_another(tmp_path):
    """In Python the default value passes (documented); the flags of a command run before do not leak."""
    import pref_eval
    from pref_eval.errors import UsageError

    assert run_module_inproc("compare", [*PQ, "-o", "jsonl", "--digits", "4"]).returncode == 2
    out = tmp_path / "c.jsonl"
    pref_eval.compare_runs(per_query_file="tests/data/stats/perquery.tsv", output_format="jsonl", digits=4,
                           output=str(out))
    assert out.read_text().count("\n") > 1
    with pytest.raises(UsageError, match="^digits applies to the tables"):  # (a Python caller: the keyword)
        pref_eval.compare_runs(per_query_file="tests/data/stats/perquery.tsv", output_format="jsonl", digits=3,
                               output=None)
