"""ranx.compare's keywords typed as zelo_compare options name ours (session 23, e32; u31's leftover: click said
"No such option '--max-p'" with no guess, or guessed '--marker-test' for '--stat-test'); since session 24 (a33)
also on zelo_eval and zelo_trec, and ranx.evaluate's (``--return-mean``, ``--threads``). One table,
``pref_eval.peer_names.RANX_KEYWORDS``, serves the commands and the API's refusal of the same keywords; its
keywords are ranx's own (``ranx.evaluate`` / ``ranx.compare``'s signatures, live)."""
from __future__ import annotations

import pytest

from cli_harness import run_module_inproc

BASE = ["-R", "qrels/dl19-sample.qrels", "-m", "map", "runs/bm25.run", "runs/dense.run"]


@pytest.mark.parametrize("option, ours", [("--max-p", "--alpha P"), ("--max_p", "--alpha P"),
                                          ("--stat-test", "--tests"), ("--stat_test", "--tests"),
                                          ("--n-permutations", "--resamples N"), ("--random_seed", "--seed S"),
                                          ("--rounding-digits", "--digits N"), ("--metrics", "-m")])
def test_ranx_keyword_names_our_option(option, ours):
    res = run_module_inproc("compare", [option, "1", *BASE])
    assert res.returncode == 2 and res.stdout == ""
    first, second = res.stderr.splitlines()
    assert first.startswith(f"zelo_compare: No such option '{option}': ranx's "), first
    assert f" is {ours} here" in first or f" are {ours} here" in first, first
    assert second == "Try 'zelo_compare --help' for help."


def test_make_comparable_flag_and_other_unknown_options():
    res = run_module_inproc("compare", ["--make-comparable", *BASE])
    assert res.returncode == 2 and "ranx's make_comparable is -c here" in res.stderr
    res = run_module_inproc("compare", ["--bogus", *BASE])  # click's own message, unchanged
    assert res.returncode == 2 and res.stderr.startswith("zelo_compare: No such option '--bogus'.")
    res = run_module_inproc("aggregate", ["--max-p", "1", "-P", "x"])  # other commands: click's own message
    assert res.returncode == 2 and res.stderr.startswith("pref_aggregate: No such option '--max-p'.")


TREC = ["qrels/dl19-sample.qrels", "runs/bm25.run"]


@pytest.mark.parametrize("module, option, ours", [
    ("eval", "--max-p", "zelo_compare --alpha P"), ("eval", "--metrics", "-m"), ("eval", "--make_comparable", "-c"),
    ("eval", "--threads", "--jobs N"), ("eval", "--rounding-digits", "--digits N"), ("eval", "--return-mean",
                                                                                      "the default"),
    ("trec", "--metrics", "-m"), ("trec", "--make-comparable", "-c"), ("trec", "--stat-test", "zelo_compare --tests"),
    ("trec", "--return_mean", "the default"), ("trec", "--rounding-digits", "trec_eval's four decimals")])
def test_ranx_keyword_on_zelo_eval_and_zelo_trec(module, option, ours):
    res = run_module_inproc(module, [option, "1", *TREC])
    prog = "zelo_eval" if module == "eval" else "zelo_trec"
    assert res.returncode == 2 and res.stdout == ""
    first, second = res.stderr.splitlines()
    key = option.lstrip("-").replace("-", "_")
    assert first.startswith(f"{prog}: No such option '{option}': ranx's {key} "), first
    assert f" is {ours} here" in first or f" are {ours} here" in first, first
    assert second == f"Try '{prog} --help' for help."


def test_the_table_holds_ranx_keywords_and_our_options():
    """Every keyword of the table is one of ranx.evaluate's or ranx.compare's (live); every command option it
    names is an option of that command (click's parameters), every API keyword one of that function's."""
    import inspect

    import click

    from pref_eval import api
    from pref_eval.peer_names import RANX_KEYWORDS

    ranx = pytest.importorskip("ranx")
    theirs = set(inspect.signature(ranx.evaluate).parameters) | set(inspect.signature(ranx.compare).parameters)
    assert set(RANX_KEYWORDS) <= theirs
    commands = {m: __import__(f"pref_eval.cli.{m}", fromlist=["main"]) for m in ("compare", "eval", "trec")}
    for key, where in RANX_KEYWORDS.items():
        for place, (ours, _) in where.items():
            if place.startswith("api:"):
                params = inspect.signature(getattr(api, place[4:])).parameters
                assert ours in params or ours in inspect.signature(
                    __import__("pref_eval.stats.compare", fromlist=["compare"]).compare).parameters, (key, place)
                continue
            flag = ours.split()[1] if ours.startswith("zelo_compare ") else ours.split()[0]
            module = "compare" if ours.startswith("zelo_compare ") else place
            if not flag.startswith("-"):
                continue  # "the default", "trec_eval's four decimals"
            cmd = next(v for v in vars(commands[module]).values() if isinstance(v, click.Command))
            opts = {o for p in cmd.params for o in p.opts}
            assert flag in opts, (key, place, flag)


# ir-measures' command line (``ir_measures QRELS RUN MEASURE... [--by_query] [--places N] [--no_summary]
# [--output_format F] [--provider P]``, its __main__): its options typed to zelo_eval / zelo_trec name ours, and
# its word order (no -R) gets the line to write (u37's trial: "missing -R QRELS" / "expected exactly two files").
@pytest.mark.parametrize("module, option, ours", [
    ("eval", "--by_query", "is -q here"), ("eval", "-p", "is -o text --digits N here"),
    ("eval", "--no_summary", "is -n here"), ("eval", "--provider", "has no counterpart"),
    ("eval", "--output_format", "is -o tsv|jsonl here"), ("trec", "--by_query", "is -q here"),
    ("trec", "--places", "is zelo_eval -o text --digits N here"), ("trec", "--provider", "has no counterpart")])
def test_ir_measures_option_names_ours(module, option, ours):
    flag = [] if option in ("--by_query", "--no_summary") else ["1"]
    args = [option, *flag, "-R", *TREC] if module == "eval" else [option, *flag, *TREC]
    res = run_module_inproc(module, args)
    prog = "zelo_eval" if module == "eval" else "zelo_trec"
    assert res.returncode == 2 and res.stdout == ""
    first, second = res.stderr.splitlines()
    spelled = "--places" if option == "-p" else option
    assert first.startswith(f"{prog}: No such option '{option}': ir_measures' {spelled} {ours}"), first
    assert second == f"Try '{prog} --help' for help."


def test_ir_measures_options_are_theirs():
    """Every spelling of the table is an option of ir-measures' command line (its --help, live)."""
    import subprocess
    import sys

    from pref_eval.peer_names import IR_MEASURES_OPTIONS

    pytest.importorskip("ir_measures")
    usage = subprocess.run([sys.executable, "-m", "ir_measures", "--help"], capture_output=True, text=True,
                           check=True).stdout
    for spellings in IR_MEASURES_OPTIONS:
        for s in spellings:
            assert f"{s} " in usage or f"{s}," in usage or f"{s}]" in usage, s


@pytest.mark.parametrize("module", ["eval", "trec"])
def test_ir_measures_word_order_gets_the_line_to_write(module):
    """``zelo_eval QRELS RUN "nDCG@10 P(rel=2)@5"`` says the command to write; that command prints ir-measures'
    values (its command line run live: dense.run has no tied scores)."""
    import shlex
    import subprocess
    import sys

    words = ["qrels/dl19-sample.qrels", "runs/dense.run", "nDCG@10 P(rel=2)@5"]
    res = run_module_inproc(module, words)
    assert res.returncode == 2 and res.stdout == ""
    line = res.stderr.split("ir_measures' QRELS RUN MEASURES is ")[1].removesuffix(" here\n")
    prog, *args = shlex.split(line)
    assert prog == ("zelo_eval" if module == "eval" else "zelo_trec")
    ours = run_module_inproc(module, args)
    assert ours.returncode == 0, ours.stderr
    got = {f[0]: float(f[2]) for f in (ln.split() for ln in ours.stdout.splitlines())}
    pytest.importorskip("ir_measures")
    theirs = subprocess.run([sys.executable, "-m", "ir_measures", *words[:2], "nDCG@10", "P(rel=2)@5", "-p", "4"],
                            capture_output=True, text=True, check=True).stdout
    assert got == {f[0]: float(f[1]) for f in (ln.split("\t") for ln in theirs.splitlines())}
    res = run_module_inproc(module, [*words[:2], "nDCG@10", "runs/bm25.run"])  # a file among them: no guess
    assert "ir_measures'" not in res.stderr and res.returncode == 2
