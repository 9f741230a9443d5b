"""zelo_compare's tests on degenerate inputs (session-8 trial d17), against scipy live.

One topic: scipy's bootstrap refuses fewer than two observations (the
bootstrap distribution of one value is a point); our bootstrap p-value and
interval are null there, as the t-test's (df = 0). Before the fix the
bootstrap gave p = 1/(B+1) and marked one topic as a significant difference.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from pref_eval.stats.paired import bootstrap_test, t_test

stats = pytest.importorskip("scipy.stats")


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
    out = subprocess.run([sys.executable, "-m", "pref_eval.cli.compare", "-P", str(per), "--tests",
                          "t,wilcoxon,sign,randomization,bootstrap", "-o", "jsonl"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    assert {r["test"] for r in rows} == {"t", "wilcoxon", "sign", "randomization", "bootstrap"}
    assert not any(r["significant"] for r in rows), rows
    boot = next(r for r in rows if r["test"] == "bootstrap")
    assert boot["p_value"] is None and boot["ci_low"] is None
