"""ranx.compare's keywords typed as zelo_compare options name ours (session 23, e32; u31's leftover: click said
"No such option '--max-p'" with no guess, or guessed '--marker-test' for '--stat-test'). The equivalences are
those of the API's refusal of the same keywords (``pref_eval.api.comparison._RANX_COMPARE_OPTIONS``) and of
ranx's documented ``compare(qrels, runs, metrics, max_p, stat_test, ...)``."""
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
    res = run_module_inproc("eval", ["--max-p", "1", *BASE])  # other commands: click's own message
    assert res.returncode == 2 and res.stderr.startswith("zelo_eval: No such option '--max-p'.")
