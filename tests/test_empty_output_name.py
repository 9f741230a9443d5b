"""An empty output name (``--output "$OUT"`` with OUT unset in a lab's shell script; u37's trial): status 2, one
line, nothing written, nothing read into standard output. Before, ``zelo_eval``, ``zelo_compare``, ``zelo_fit``,
``zelo_agree``, ``zelo_pairs`` and ``zelo_simulate`` took ``""`` for standard output (``output or "-"``),
``pref_aggregate`` said "cannot write: Is a directory", ``zelo_fit -o ''`` raised IndexError (a traceback) and
``zelo_fit --diagnostics ''`` wrote nothing without a word (docs/exit-codes.md).
"""
from __future__ import annotations

import pytest
from cli_harness import digest_tree, run_inproc
from fault_workspace import OUT, PLOT, VALID, argv_with

CASES = {k: v for k, v in VALID.items() if OUT in v[1]}
EXTRA = {  # the other output options, each empty with the main output a file
    "fit-qrels": ("zelo_fit", ["-J", "j.judge", "-Q", "-o", "s.tsv", "--qrels", OUT]),
    "fit-diagnostics": ("zelo_fit", ["-J", "j.judge", "-Q", "-o", "s.tsv", "--diagnostics", OUT]),
    "pairs-pool-contributions-empty": ("zelo_pairs", ["pool", "--depth", "5", "-Q", "--contributions", OUT,
                                                      "-o", "pool.txt", "bm25.run"]),
    "judge-store": ("zelo_judge", ["pairs.jsonl", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge",
                                   "cmd:false", "--store", OUT, "-Q", "-o", "j.out"]),
}


EXTRA["judge-store-dry-run"] = ("zelo_judge", [*EXTRA["judge-store"][1], "--dry-run"])


@pytest.mark.parametrize("case", sorted({**CASES, **EXTRA}))
def test_empty_output_name_refused(ws, case):
    script, argv = {**CASES, **EXTRA}[case]
    before = digest_tree(ws)
    res = run_inproc(script, argv_with(argv, ""), ws)
    assert res.returncode == 2, (res.returncode, res.stderr)
    assert not res.stdout
    line, = res.stderr.splitlines()
    if case.startswith("judge-store"):  # a store is a file: no standard output (session 28)
        assert line.endswith("--store: the file name is empty (an unset shell variable?); give the store's file "
                             "name"), line
    else:
        assert "file name is empty (an unset shell variable?); write - for standard output" in line, line
    if case in EXTRA:  # the option is named
        assert f": {argv[argv.index(OUT) - 1]}: the file name is empty" in line, line
    assert digest_tree(ws) == before


def test_plot_empty_output_refused(ws):
    pytest.importorskip("matplotlib")
    script, argv = PLOT["plot-scores"]
    before = digest_tree(ws)
    res = run_inproc(script, argv_with(argv, ""), ws)
    assert res.returncode == 2 and not res.stdout and len(res.stderr.splitlines()) == 1, res.stderr
    assert digest_tree(ws) == before


def test_the_api_refuses_it_too(ws, monkeypatch):
    import pref_eval
    from pref_eval.errors import UsageError

    monkeypatch.chdir(ws)
    with pytest.raises(UsageError, match="^output file name is empty"):
        pref_eval.evaluate_runs("q.qrels", ["bm25.run"], measures=["map"], output="")
    with pytest.raises(UsageError, match="^diagnostics: the file name is empty"):
        pref_eval.fit(["j.judge"], output="s.tsv", diagnostics="")
