"""zelo_plot systems|pairs refuse an option they would not read (as zelo_compare does), never ignore it.

Before: ``pairs -C FILE --seed 5`` / ``--correction bonferroni`` / ``-c`` (the tests come from the file),
``systems --seed 5`` with the t-test and the t interval, and ``--test tukey --correction bh`` (Tukey's HSD is
family-wise by construction: no correction is applied) all drew the picture, exit 0. The refusals come before
anything is evaluated or drawn, so these cases need no plotting library.
"""
from __future__ import annotations

import pytest
from cli_harness import run_module_inproc

from conftest import ROOT

QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUNS = [str(ROOT / "runs" / f"{r}.run") for r in ("bm25", "rerank")]


@pytest.fixture(scope="module")
def compare_file(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmp")
    res = run_module_inproc("compare", ["-R", QRELS, "-m", "map", "-o", "jsonl", *RUNS], cwd=d)
    assert res.returncode == 0, res.stderr
    (d / "cmp.jsonl").write_text(res.stdout)
    return str(d / "cmp.jsonl")


@pytest.mark.parametrize(("args", "flag", "needs"), [
    (["pairs", "-C", "{C}", "--seed", "5"], "--seed", "-R or -P"),
    (["pairs", "-C", "{C}", "--correction", "bonferroni"], "--correction", "-R or -P"),
    (["pairs", "-C", "{C}", "-c"], "-c", "-R or -P"),
    (["systems", "-R", QRELS, "-m", "map", "--seed", "5", *RUNS], "--seed", "--ci bootstrap"),
    (["pairs", "-R", QRELS, "-m", "map", "--test", "wilcoxon", "--seed", "5", *RUNS], "--seed", "tukey"),
    (["systems", "-R", QRELS, "-m", "map", "--test", "tukey", "--correction", "bh", *RUNS], "--correction",
     "other than tukey"),
    (["pairs", "-R", QRELS, "-m", "map", "--test", "hsd", "--correction", "holm", *RUNS], "--correction",
     "other than tukey"),
])
def test_an_option_the_plot_would_not_read_is_refused(tmp_path, compare_file, args, flag, needs):
    argv = [a.replace("{C}", compare_file) for a in args] + ["-o", str(tmp_path / "x.svg")]
    res = run_module_inproc("plot", argv, cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    [line] = res.stderr.splitlines()
    assert line.startswith(f"zelo_plot: {flag} applies only with") and needs in line, line
    assert not (tmp_path / "x.svg").exists()


@pytest.mark.parametrize("args", [
    ["systems", "-R", QRELS, "-m", "map", "--seed", "5", "--ci", "bootstrap", *RUNS],
    ["systems", "-R", QRELS, "-m", "map", "--seed", "5", "--test", "perm", *RUNS],
    ["systems", "-R", QRELS, "-m", "map", "--test", "tukey", "--seed", "3", *RUNS],
    ["pairs", "-R", QRELS, "-m", "map", "--correction", "bh", *RUNS],
])
def test_the_options_the_plot_reads_are_accepted(tmp_path, args):
    pytest.importorskip("matplotlib", reason="matplotlib not installed (pip install 'pref_eval[plot]')")
    res = run_module_inproc("plot", [*args, "-o", str(tmp_path / "x.svg")], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "x.svg").stat().st_size > 0
