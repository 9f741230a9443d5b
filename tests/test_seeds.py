"""Same seed, same bytes; another seed, other draws; a seed out of range refused (session 18's audit).

Every seeded command of tests/fault_workspace.py runs twice with one seed and once with another, in
process; the seed's range is 0 .. 2^64 - 1 on the command line and in the API (pref_eval.seeds); the
seeded draws that read a file do not depend on the order of its lines (zelo_eval / pref_aggregate
``--query_fraction``, ``zelo_pairs init`` from qrels); ``pref_eval.stats.compare(seed=None)`` records the
seed it drew, so the run can be repeated. The oracle is the property itself (bytes equal or not); the
numbers of each procedure are checked against scipy / the peers' outputs elsewhere.
"""
from __future__ import annotations

import json
import random

import pytest
from cli_harness import check_contract, run_inproc

# one seeded invocation per procedure (files of tests/fault_workspace.py), sized so that seeds 0 and 1 draw
# visibly different outputs (the randomization test of 3 queries is exact: its seed is not read, so bootstrap)
SEEDED: dict[str, tuple[str, list[str]]] = {
    "simulate-tournament": ("zelo_simulate", ["tournament", "--matrix", "matrix.txt", "--reps", "20",
                                              "--final-phase", "-Q"]),
    "simulate-recovery": ("zelo_simulate", ["recovery", "--K", "6", "--sigma", "1", "--cycles", "2",
                                            "--trials", "3", "-Q"]),
    "simulate-recovery-adaptive": ("zelo_simulate", ["recovery", "--K", "6", "--sigma", "1", "--cycles", "2",
                                                     "--trials", "3", "--strategy", "adaptive", "-Q"]),
    "simulate-bandit": ("zelo_simulate", ["bandit", "--algorithm", "round-efficient", "--matrix", "matrix.txt",
                                          "--reps", "5", "-Q"]),
    "simulate-adaptive": ("zelo_simulate", ["adaptive", "--matrix", "matrix.txt", "--reps", "5", "-Q"]),
    "simulate-figure3": ("zelo_simulate", ["figure3", "--reps", "2", "--algorithms", "round-efficient", "-Q"]),
    "pairs-cycles": ("zelo_pairs", ["cycles", "--run", "bm25.run", "--depth", "5", "-Q"]),
    "pairs-cycles-zbench": ("zelo_pairs", ["cycles", "--run", "bm25.run", "--depth", "5", "--compat", "zbench",
                                           "-Q"]),
    "compare": ("zelo_compare", ["-P", "pq.tsv", "--tests", "bootstrap,tukey", "--resamples", "200",
                                 "-o", "jsonl"]),
    "aggregate": ("pref_aggregate", ["-P", "prefs.jsonl", "--query_fraction", "0.5", "--num_samples", "3"]),
    "eval-labels": ("zelo_eval", ["-R", "q.qrels", "--label_fraction", "0.5", "--samples", "2", "bm25.run",
                                  "dense.run"]),
    "agree": ("zelo_agree", ["-J", "crowd.txt", "-J", "gpt.human", "-l", "pair", "--resamples", "50", "-Q",
                             "-o", "jsonl"]),
}


def _run(ws, script, argv, seed):
    res = run_inproc(script, [*argv, "--seed", str(seed)], ws)
    assert res.returncode == 0, (script, argv, res.stderr)
    return res.stdout


@pytest.mark.parametrize("case", sorted(SEEDED))
def test_same_seed_same_bytes_other_seed_other_draws(ws, case):
    script, argv = SEEDED[case]
    a, b, c = _run(ws, script, argv, 0), _run(ws, script, argv, 0), _run(ws, script, argv, 1)
    assert a and a == b
    assert a != c, f"{case}: --seed accepted but not read"
    # the default is seed 0 (--help says so)
    res = run_inproc(script, argv, ws)
    assert res.returncode == 0 and res.stdout == a


TOO_BIG = str(2**64)


@pytest.mark.parametrize("case", sorted(SEEDED))
def test_seed_range_is_0_to_2_64_minus_1(ws, case):
    """2^64 and more were taken (numpy takes any integer); 2^64 - 1 is the largest seed."""
    script, argv = SEEDED[case]
    res = run_inproc(script, [*argv, "--seed", TOO_BIG], ws)
    assert check_contract(res, script=script, expect={2}) == []
    assert "--seed" in res.stderr and "18446744073709551615" in res.stderr
    assert _run(ws, script, argv, 2**64 - 1)


def test_api_seed_range_and_none():
    import numpy as np

    from pref_eval import pairs, simulate
    from pref_eval.errors import UsageError

    m = np.array([[0.5, 0.8], [0.2, 0.5]])
    assert simulate(m, 2, seed=2**64 - 1)
    for bad in (2**64, -1, 1.5, "3", None, True):
        with pytest.raises(UsageError, match="seed"):
            simulate(m, 2, seed=bad)
    # pairs(seed=None) drew unseeded pairs that nothing recorded: refused now
    with pytest.raises(UsageError, match="seed"):
        pairs([("q", ["a", "b", "c"])], 2, None)


def _long_table():
    import pandas as pd

    rng = random.Random(3)
    rows = [(r, f"q{q}", "m", rng.random()) for r in ("a", "b", "c") for q in range(12)]
    return pd.DataFrame(rows, columns=["run", "qid", "measure", "value"])


def test_stats_compare_without_seed_records_the_seed_it_drew():
    """``seed=None`` drew from the system's entropy and the records said ``seed: None``: the draws could not be
    had again. Now the records hold the seed drawn, and that seed gives the same records."""
    from pref_eval.errors import UsageError
    from pref_eval.stats import compare

    df = _long_table()
    from pandas.testing import assert_frame_equal

    got = compare(df, tests=["randomization", "bootstrap", "tukey"], resamples=200, seed=None).records
    seeds = set(got["seed"].tolist())
    assert len(seeds) == 1 and isinstance(next(iter(seeds)), int)
    again = compare(df, tests=["randomization", "bootstrap", "tukey"], resamples=200, seed=seeds.pop()).records
    assert_frame_equal(again, got)
    for bad in (-1, 2**64, 1.5):
        with pytest.raises(UsageError, match="seed"):
            compare(df, tests=["bootstrap"], resamples=10, seed=bad)


def test_compare_streams_do_not_depend_on_the_other_tests(ws):
    """One ``--seed`` for every resampling test: each test starts its own ``default_rng(seed)``, so a test's
    records are the same whichever other tests run (docs/zelo_compare.md, Seeds)."""
    def records(tests):
        out = _run(ws, "zelo_compare", ["-P", "pq.tsv", "--tests", tests, "--resamples", "200", "-o", "jsonl"], 5)
        return {(r["measure"], r["run_a"], r["run_b"], r["test"]): r for r in map(json.loads, out.splitlines())}

    both = records("randomization,bootstrap,tukey")
    for t in ("randomization", "bootstrap", "tukey"):
        alone = records(t)
        assert alone and all(both[k] == v for k, v in alone.items())


def _shuffled(path, seed):
    lines = path.read_text().splitlines(keepends=True)
    random.Random(seed).shuffle(lines)
    path.write_text("".join(lines))


def _full_inputs(ws):
    from conftest import ROOT

    (ws / "o").mkdir()
    (ws / "s").mkdir()
    for d in ("o", "s"):
        (ws / d / "q.qrels").write_text((ROOT / "qrels/dl19-sample.qrels").read_text())
        for r in ("bm25", "dense"):
            (ws / d / f"{r}.run").write_text((ROOT / f"runs/{r}.run").read_text())
    _shuffled(ws / "s/q.qrels", 1)
    _shuffled(ws / "s/bm25.run", 2)


def test_eval_query_fraction_does_not_depend_on_line_order(ws):
    """--query_fraction drew among the queries in the qrels file's order: another order of the lines, other
    queries for the same seed."""
    _full_inputs(ws)
    argv = ["-R", "q.qrels", "--query_fraction", "0.5", "--samples", "3", "--seed", "2", "bm25.run", "dense.run"]
    a, b = run_inproc("zelo_eval", argv, ws / "o"), run_inproc("zelo_eval", argv, ws / "s")
    assert a.returncode == b.returncode == 0 and a.stdout == b.stdout
    # per query: the same lines (they come in the qrels' order of the queries)
    a, b = run_inproc("zelo_eval", ["-q", *argv], ws / "o"), run_inproc("zelo_eval", ["-q", *argv], ws / "s")
    assert a.returncode == b.returncode == 0 and sorted(a.stdout.splitlines()) == sorted(b.stdout.splitlines())


def test_aggregate_query_fraction_does_not_depend_on_line_order(ws):
    """pref_aggregate --query_fraction drew among sample 0's queries in file order."""
    _full_inputs(ws)
    assert run_inproc("zelo_eval", ["-R", "q.qrels", "-q", "--output", "p.jsonl", "bm25.run", "dense.run"],
                      ws / "o").returncode == 0
    (ws / "s/p.jsonl").write_text((ws / "o/p.jsonl").read_text())
    _shuffled(ws / "s/p.jsonl", 3)

    def queries(d):
        res = run_inproc("pref_aggregate", ["-P", "p.jsonl", "-q", "--query_fraction", "0.5", "--num_samples",
                                            "4", "--seed", "2"], ws / d)
        assert res.returncode == 0, res.stderr
        rows = [json.loads(x) for x in res.stdout.splitlines()]
        return [sorted(r["qid"] for r in rows if r["sample"] == s and r["qid"] != "all") for s in range(4)]

    got = queries("o")
    assert got == queries("s") and len({tuple(x) for x in got}) > 1


@pytest.mark.parametrize("strategy", ["tournament", "adaptive"])
def test_pairs_init_does_not_depend_on_qrels_line_order(ws, strategy):
    """The tournament's one stream over the topics, the adaptive games' per-topic seeds and the order of equal
    grades followed the qrels file's order: the same seed asked other pairs of another order of the lines."""
    _full_inputs(ws)
    for d in ("o", "s"):
        assert run_inproc("zelo_pairs", ["init", "--state", "st.json", "--qrels", "q.qrels", "--strategy", strategy,
                                         "--seed", "3"], ws / d).returncode == 0
    assert (ws / "o/st.json").read_bytes() == (ws / "s/st.json").read_bytes()
    a = run_inproc("zelo_pairs", ["next", "--state", "st.json"], ws / "o")
    b = run_inproc("zelo_pairs", ["next", "--state", "st.json"], ws / "s")
    assert a.returncode == b.returncode == 0 and a.stdout and a.stdout == b.stdout


def test_hash_seed_and_blas_threads_change_no_byte(ws):
    """Two processes that differ in PYTHONHASHSEED and in the BLAS / OpenMP thread counts: the same bytes, for
    the resampling tests (numpy arrays throughout) and the query sampling of pref_aggregate."""
    import os
    import subprocess
    import sys

    from conftest import ROOT

    cmds = [["pref_eval.cli.compare", "-P", "pq.tsv", "--tests", "bootstrap,tukey", "--resamples", "300",
             "--seed", "7", "-o", "jsonl"],
            ["pref_eval.cli.aggregate", "-P", "prefs.jsonl", "--query_fraction", "0.5", "--num_samples", "3",
             "--seed", "7"]]
    for argv in cmds:
        outs = []
        for h, t in (("1", "1"), ("2", "2")):
            env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=h, OPENBLAS_NUM_THREADS=t,
                       OMP_NUM_THREADS=t, MKL_NUM_THREADS=t)
            p = subprocess.run([sys.executable, "-m", *argv], cwd=ws, env=env, capture_output=True, timeout=120)
            assert p.returncode == 0, p.stderr
            outs.append(p.stdout)
        assert outs[0] and outs[0] == outs[1], argv[0]


def test_tukey_p_values_do_not_depend_on_the_order_of_the_runs():
    """The randomised Tukey HSD permuted the runs within each query in the order they came in (first appearance
    in the file, the command line's order): the same seed gave a pair another p-value when the runs came in
    another order (zelo_plot pairs -P on a shuffled file: 0.158 and 0.151). Now drawn in name order."""
    from pref_eval.stats import compare

    df = _long_table()
    got = []
    for runs in (["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]):
        rec = compare(df, tests=["tukey", "randomization"], resamples=300, seed=2, runs=runs).records
        got.append({(t, frozenset((a, b))): p for t, a, b, p in zip(rec.test, rec.run_a, rec.run_b, rec.p_value,
                                                                     strict=True)})
    assert got[0] == got[1] == got[2] and len(got[0]) == 6


STDIN_CASES = {  # case of SEEDED: (the file read from stdin instead, its name in the output, the name of stdin)
    "compare": ("pq.tsv", None, None),
    "aggregate": ("prefs.jsonl", None, None),
    "eval-labels": ("q.qrels", None, None),
    "pairs-cycles": ("bm25.run", None, None),
    "simulate-tournament": ("matrix.txt", b"matrix.txt\t", b"-\t"),
    "agree": ("crowd.txt", b'"crowd.txt"', b'"stdin"'),
}


@pytest.mark.parametrize("case", sorted(STDIN_CASES))
def test_stdin_gives_the_file_s_draws(ws, case):
    script, argv = SEEDED[case]
    name, in_file, in_stdin = STDIN_CASES[case]
    a = _run(ws, script, argv, 3)
    res = run_inproc(script, [*["-" if x == name else x for x in argv], "--seed", "3"], ws,
                     stdin=(ws / name).read_bytes())
    assert res.returncode == 0, res.stderr
    b = res.stdout if in_stdin is None else res.stdout.replace(in_stdin, in_file)
    assert a and a == b
