"""zelo_compare's tests on degenerate inputs (session-8 trial d17), against scipy live.

One topic: scipy's bootstrap refuses fewer than two observations (the
bootstrap distribution of one value is a point); our bootstrap p-value and
interval are null there, as the t-test's (df = 0). Before the fix the
bootstrap gave p = 1/(B+1) and marked one topic as a significant difference.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from cli_harness import run_module_inproc

from pref_eval.stats.paired import bootstrap_test, t_test

stats = pytest.importorskip("scipy.stats")

# the zelo_compare calls below run in process (cli_harness.run_module_inproc): exit status, the stderr line
# and the records need no process (zelo_compare's real processes: test_docs.py, test_cli_common.py)


@pytest.mark.parametrize("method", ["BCa", "percentile", "basic"])
def test_bootstrap_of_one_topic_is_undefined(method):
    with pytest.raises(ValueError):
        stats.bootstrap((np.array([0.2]),), np.mean, rng=0, method=method)
    res = bootstrap_test(np.array([[0.2], [0.0]]), resamples=99, seed=0, ci_method=method)
    assert np.isnan(res["p_value"]).all() and np.isnan(res["ci_low"]).all() and np.isnan(res["ci_high"]).all()
    assert math.isnan(t_test(np.array([[0.2]]))["p_value"][0])  # the t-test agrees: undefined


def test_two_topics_still_tested():
    d = np.array([0.3, 0.1])
    res = bootstrap_test(d[None, :], resamples=999, seed=3, ci_method="percentile")
    ref = stats.bootstrap((d,), np.mean, n_resamples=999, rng=3, method="percentile").confidence_interval
    assert res["ci_low"][0] == pytest.approx(ref.low) and res["ci_high"][0] == pytest.approx(ref.high)
    assert 0 < res["p_value"][0] <= 1


def test_zelo_compare_one_topic_is_never_significant(tmp_path):
    per = tmp_path / "one.tsv"
    per.write_text("run\tqid\tmeasure\tvalue\nA\t1\tmap\t0.5\nB\t1\tmap\t0.3\n")
    out = run_module_inproc("compare", ["-P", str(per), "--tests",
                          "t,wilcoxon,sign,randomization,bootstrap", "-o", "jsonl"], ".", timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    assert {r["test"] for r in rows} == {"t", "wilcoxon", "sign", "randomization", "bootstrap"}
    assert not any(r["significant"] for r in rows), rows
    boot = next(r for r in rows if r["test"] == "bootstrap")
    assert boot["p_value"] is None and boot["ci_low"] is None


@pytest.mark.parametrize("args, needle", [
    (["--tests", "t", "--resamples", "50"], "--resamples applies only with --tests including randomization"),
    (["--tests", "t", "--seed", "3"], "--seed applies only with"),
    (["--tests", "t", "--wilcoxon-method", "exact"], "--wilcoxon-method applies only with --tests including wilcoxon"),
    (["--tests", "t", "--zero-method", "pratt"], "--zero-method applies only with"),
    (["--tests", "t", "--sign-min-diff", "0.1"], "--sign-min-diff applies only with --tests including sign"),
    (["--tests", "t", "--ci-method", "basic"], "--ci-method applies only with --tests including bootstrap"),
    (["--tests", "sign", "--confidence", "0.9"], "--confidence applies only with --tests including t or bootstrap"),
    (["--tests", "tukey", "--correction", "bonferroni"], "--correction applies only with --tests including t or"),
    (["--depth", "5"], "--depth applies only with -R"),
    (["-l", "2"], "-l applies only with -R"),
    (["--rbo-p", "0.5"], "--rbo-p applies only with --orderings"),
    (["--rbo-ties", "w"], "--rbo-ties applies only with --orderings"),
])
def test_an_option_no_requested_test_reads_is_refused(tmp_path, args, needle):
    """Was: silently ignored (``--tests t --resamples 50`` ran the t-test and said nothing)."""
    per = tmp_path / "p.tsv"
    per.write_text("run\tqid\tmeasure\tvalue\n" + "".join(f"{r}\t{q}\tmap\t{v}\n" for q in range(1, 5)
                                                          for r, v in (("A", q / 10), ("B", q / 20))))
    out = run_module_inproc("compare", ["-P", str(per), *args], ".", timeout=120)
    assert out.returncode == 2 and needle in out.stderr and out.stderr.count("\n") == 1, out.stderr


def test_comparison_options_with_orderings_are_refused(tmp_path):
    a, b = tmp_path / "a.tsv", tmp_path / "b.tsv"
    a.write_text("A\t0.3\nB\t0.2\nC\t0.1\n")
    b.write_text("A\t0.3\nC\t0.2\nB\t0.1\n")
    for extra in (["--tests", "t"], ["--seed", "4"], ["-m", "map"], ["--alpha", "0.1"]):
        out = run_module_inproc("compare", ["--orderings", str(a), str(b), *extra], ".", timeout=120)
        assert out.returncode == 2 and "not with --orderings" in out.stderr, (extra, out.stderr)
    out = run_module_inproc("compare", ["--orderings", str(a), str(b),
                          "--rbo-p", "0.5"], ".", timeout=120)
    assert out.returncode == 0, out.stderr
    out = run_module_inproc("compare", ["--orderings", str(a), str(b), "--rbo-ties", "b"], ".", timeout=120)
    assert out.returncode == 0 and "rbo_ext(p=0.9,ties=b)" in out.stdout, out.stderr
    # --rbo-p 0 computes no RBO: a tie treatment for it is refused, not ignored
    out = run_module_inproc("compare", ["--orderings", str(a), str(b), "--rbo-p", "0", "--rbo-ties", "b"], ".",
                            timeout=120)
    assert out.returncode == 2 and "--rbo-ties applies only with --rbo-p above 0" in out.stderr, out.stderr


def test_test_options_are_accepted_with_their_test(tmp_path):
    per = tmp_path / "p.tsv"
    per.write_text("run\tqid\tmeasure\tvalue\n" + "".join(f"{r}\t{q}\tmap\t{v}\n" for q in range(1, 5)
                                                          for r, v in (("A", q / 10), ("B", q / 20))))
    args = ["--tests", "t,wilcoxon,sign,randomization,bootstrap", "--resamples", "50", "--seed", "3",
            "--wilcoxon-method", "exact", "--zero-method", "pratt", "--sign-min-diff", "0.01", "--ci-method", "basic",
            "--confidence", "0.9", "-o", "jsonl"]
    out = run_module_inproc("compare", ["-P", str(per), *args], ".", timeout=120)
    assert out.returncode == 0, out.stderr
    rows = {json.loads(x)["test"]: json.loads(x) for x in out.stdout.splitlines()}
    assert rows["bootstrap"]["ci_method"] == "basic" and rows["randomization"]["seed"] == 3
    assert rows["wilcoxon"]["zero_method"] == "pratt" and rows["sign"]["min_diff"] == 0.01
