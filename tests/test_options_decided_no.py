"""Options decided no in session 29, refused with the reason and where to go. ``zelo_eval --compat zbench`` /
``zelo_compare --compat zbench`` (u38's leftover: zbench's tie rules for a
leaderboard are Python's only, ``pref_eval.zelo.bench_measures`` with ``compat="zbench"``): decided no in session
29 -- zbench's NDCG orders tied run scores as numpy's argsort leaves them, chosen per CPU, and no printed number of
the package depends on the CPU (docs/zelo_eval.md). Refused with the reason and where to go (click guessed
"Did you mean '--complete'?", an option that means something else); other commands keep click's message."""
from __future__ import annotations

import pytest

from cli_harness import run_module_inproc

GT = "tests/data/zelo/zbench/case_dl19pool/zbench_annotated.jsonl"
RUNS = ["tests/data/zelo/zbench/case_dl19pool/rerank_dense.jsonl",
        "tests/data/zelo/zbench/case_dl19pool/rerank_rerank.jsonl"]


@pytest.mark.parametrize("module", ["eval", "compare"])
@pytest.mark.parametrize("form", [["--compat", "zbench"], ["--compat=zbench"]])
def test_compat_is_refused_with_the_reason(module, form):
    res = run_module_inproc(module, [*form, "-R", GT, "-m", "zndcg@10", *RUNS])
    assert res.returncode == 2 and res.stdout == ""
    first, second = res.stderr.splitlines()
    prog = f"zelo_{module}"
    assert first == (f"{prog}: No such option '--compat': --compat zbench is zelo_fit's and zelo_pairs'; zbench's "
                     f"tie rules are not an option of {prog} (no printed number here depends on the CPU, and "
                     "zbench's NDCG orders tied run scores as numpy's sort leaves them, chosen per CPU); in Python: "
                     "the functions of pref_eval.zelo.bench_measures with compat='zbench' (docs/zelo_eval.md).")
    assert second == f"Try '{prog} --help' for help."


def test_other_commands_keep_clicks_message():
    res = run_module_inproc("trec", ["--compat", "zbench", "qrels/dl19-sample.qrels", "runs/bm25.run"])
    assert res.returncode == 2 and res.stderr.startswith("zelo_trec: No such option '--compat'.")
    res = run_module_inproc("fit", ["--compat", "nope", "-J", "x"])  # zelo_fit has the option: its choices
    assert res.returncode == 2 and "'nope' is not 'zbench'" in res.stderr


@pytest.mark.parametrize("option", ["--scores", "-S", "--truth"])
def test_recovery_from_a_score_file_is_refused_with_the_advice(option):
    """``zelo_simulate recovery`` draws its truth (u38's leftover: no start from a fitted score file; decided in
    session 29, docs/zelo_simulate.md): the option a user tries names --K and --sigma instead (click said
    "No such option" with no word, or guessed another option)."""
    res = run_module_inproc("simulate", ["recovery", option, "zelo.tsv", "--trials", "1"])
    assert res.returncode == 2 and res.stdout == ""
    first, second = res.stderr.splitlines()
    assert first == (f"zelo_simulate: No such option '{option}': recovery draws its true scores, N(0, sigma^2) for "
                     "K documents, and reads no fitted score file: give --K the size of your pools and --sigma the "
                     "standard deviation of a query's zelo_fit scores (logit scale), an estimate of the spread of "
                     "its true scores (docs/zelo_simulate.md).")
    assert second == "Try 'zelo_simulate recovery --help' for help."
    res = run_module_inproc("simulate", ["tournament", "--scores", "x"])  # another sub-command: click's message
    assert res.returncode == 2 and res.stderr.startswith("zelo_simulate: No such option '--scores'.")


@pytest.mark.parametrize("argv", [["pairs", "--compat", "zbench", "-R", GT, "-m", "zndcg@10", *RUNS, "-o", "x.svg"],
                                  ["systems", "--compat", "zbench"], ["--compat", "zbench"]],
                         ids=["pairs", "systems", "group"])
def test_zelo_plot_compat_names_zelo_plot(argv):
    """``zelo_plot pairs --compat`` (session 30, f40): the hint lookup took the sub-command ``pairs`` for the
    command zelo_pairs (which has --compat) and fell back to click's "No such option ... Did you mean
    '--compare'?"; zelo_plot draws zbench's measures of ``-R SCORES`` as zelo_compare computes them, so it gives
    zelo_compare's reason."""
    pytest.importorskip("matplotlib")
    res = run_module_inproc("plot", argv)
    assert res.returncode == 2 and res.stdout == ""
    first = res.stderr.splitlines()[0]
    assert first.startswith("zelo_plot: No such option '--compat': --compat zbench is zelo_fit's and zelo_pairs'; "
                            "zbench's tie rules are not an option of zelo_plot (no printed"), first


def test_the_group_spelling_finds_the_command_too():
    """``zelo plot pairs`` / ``zelo simulate recovery``: the same hints under the ``zelo`` group."""
    res = run_module_inproc("group", ["plot", "pairs", "--compat", "zbench"])
    assert res.returncode == 2 and "--compat zbench is zelo_fit's and zelo_pairs'" in res.stderr, res.stderr
    res = run_module_inproc("group", ["simulate", "recovery", "--scores", "x"])
    assert res.returncode == 2 and "recovery draws its true scores" in res.stderr, res.stderr
