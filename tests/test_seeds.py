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


# --- seed lists: one stream per (seed, index...) list (session 19; pref_eval.seeds.stream_seed) --------------
# The oracle is numpy itself: streams are compared by their draws, and the lists pref_eval gave default_rng
# before session 19 are written out here (``default_rng([seed, r])`` ...), not taken from pref_eval.

W = 2**32
SPECIAL = (0, 1, 2, W - 1, W, W + 1, 5 * W, 2**63, 2**64 - 1)


def _draws(seed_list):
    import numpy as np

    return tuple(np.random.default_rng(seed_list).integers(0, 2**63, 4).tolist())


def test_numpy_reads_a_seed_list_as_stream_seed_s_proof_says():
    """The premises of stream_seed's docstring, live: 32-bit words, least significant first, concatenated,
    padded with zero words to 4, a longer list not padded."""
    assert _draws([2**32, 0]) == _draws([0, 1]) == _draws([0, 1, 0, 0])  # the collision of session 18
    assert _draws([2**40, 3]) == _draws([0, 256, 3])
    assert _draws([2**32, 5]) == _draws([0, 1 + 5 * 2**32])
    assert _draws(7) == _draws([7]) and _draws(2**40) == _draws([2**40])
    assert _draws([1, 2, 3, 4]) != _draws([1, 2, 3, 4, 0]) and _draws([1, 2]) == _draws([1, 2, 0])


@pytest.mark.parametrize("wide", [(0,), (0, 1)])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_stream_seed_one_stream_per_tuple_and_the_old_list_when_it_was_one(n, wide):
    """Every n-tuple of SPECIAL values (seeds and indices of 1 and 2 words, zeros at the end) names its own
    stream (numpy's draws differ), where the old lists collided; where the old list was unambiguous it is
    kept, and a seed list of numbers below 2^32 is always kept (every docs table and stored state)."""
    import itertools

    from pref_eval.seeds import stream_seed

    tuples = list(itertools.product(SPECIAL, repeat=n))
    new = {t: _draws(stream_seed(*t, wide=wide)) for t in tuples}
    assert len(set(new.values())) == len(tuples)
    old = {t: _draws(list(t)) for t in tuples}
    assert (len(set(old.values())) < len(tuples)) == (n > 1)  # the old lists of 2 or more parts collided
    for t in tuples:
        if all(p < W for p in t) or (wide == (0,) and all(p < W for p in t[1:]) and t[-1] != 0):
            assert stream_seed(*t, wide=wide) == list(t)
    # the fixed-width form of m parts never meets a kept list of at most m parts (other sites, other lengths)
    kept = {_draws(list(t)) for k in range(1, n + 1) for t in itertools.product(SPECIAL, repeat=k)
            if stream_seed(*t, wide=wide) == list(t)}
    assert not kept & {_draws(stream_seed(*t, fixed=True)) for t in tuples}


def test_stream_seed_refuses_a_part_out_of_range():
    from pref_eval.seeds import stream_seed

    for bad in (-1, 2**64, 1.0, True):
        with pytest.raises(ValueError, match="0 .. 2"):
            stream_seed(0, bad)
    with pytest.raises(ValueError):
        stream_seed()


def _recording_bandit(monkeypatch):
    """simulate_bandit with an algorithm that records the first draws of each repetition's stream."""
    import numpy as np

    from pref_eval.zelo import bandits

    seen: list[tuple] = []

    def record(M, T, rng):
        seen.append(tuple(rng.integers(0, 2**63, 4).tolist()))
        return bandits.BanditResult(best=np.array([0]), comparisons=0, max_pair=0)

    monkeypatch.setitem(bandits.ALGORITHMS, "record", record)
    return seen


def test_bandit_repetitions_of_a_large_seed_are_not_a_small_seed_s(monkeypatch):
    """Session 18: zelo_simulate bandit seed 2^32's repetition 0 drew seed 0's repetition 1 (``[2**32, 0]`` is
    ``[0, 1]`` to numpy). Now its own; seeds 0, 1, 12345, 2^32 - 1 draw ``default_rng([seed, r])`` as before,
    and a large seed's repetitions r >= 1 too."""
    import numpy as np

    from pref_eval.zelo.bandits import simulate_bandit

    seen = _recording_bandit(monkeypatch)
    M = np.full((3, 3), 0.5)
    for seed in (0, 1, 12345, W - 1, W):
        seen.clear()
        simulate_bandit("record", M, reps=3, seed=seed, T=10)
        for r in range(3):
            if seed < W or r > 0:
                assert seen[r] == _draws([seed, r]), (seed, r)
        if seed == W:
            large = seen[0]
    seen.clear()
    simulate_bandit("record", M, reps=2, seed=0, T=10)
    assert large != seen[1]


def test_tournament_repetitions_past_1000003_are_not_the_next_seed_s(monkeypatch):
    """``S·1000003 + r`` made zelo_simulate tournament's seed S, repetition r + 1000003 seed S + 1's repetition
    r. The old derived seed is kept while r < 1000003 (and it is <= 2^64 - 1); past it the repetition's
    pairings come from their own fixed-width stream. Checked on the tournaments simulate_tournament builds."""
    import numpy as np

    from pref_eval.seeds import PRODUCT, product_seed
    from pref_eval.zelo import simulate
    from pref_eval.zelo.tournament import Tournament

    built: list[Tournament] = []

    class Recording(Tournament):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            built.append(self)

    monkeypatch.setattr(simulate, "Tournament", Recording)
    M = np.array([[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]])
    for seed in (0, 1, 12345, W - 1):
        built.clear()
        simulate.simulate_tournament(M, reps=3, seed=seed)
        assert [(t.seed, t.stream) for t in built] == [(seed * 1_000_003 + r, None) for r in range(3)]
    assert product_seed(5, PRODUCT - 1) == 5 * 1_000_003 + PRODUCT - 1 and product_seed(5, PRODUCT) is None
    # seed 5's repetition 1000003 against seed 6's repetition 0, stage 1: other pairings now
    old_seed6 = Tournament(seed=6 * 1_000_003 + 0)
    new_seed5 = Tournament(seed=5, stream=(5, PRODUCT, PRODUCT))
    assert _draws_of(old_seed6) == _draws([6 * 1_000_003, 1])
    assert _draws_of(new_seed5) != _draws_of(old_seed6)


def _draws_of(t):
    return tuple(t._rng().integers(0, 2**63, 4).tolist())


def test_adaptive_session_topics_past_1000003_are_not_the_next_seed_s():
    """The adaptive session's topic n of seed S was seeded ``S·1000003 + n`` (topic n + 1000003 of S = topic n
    of S + 1). Kept below 1000003 topics (for every seed: an integer seed is one stream per integer);
    past it, a fixed-width stream. The pool count is faked (a million topics would take minutes)."""
    import numpy as np

    from pref_eval.zelo.adaptive_session import AdaptiveSession

    PRODUCT = 1_000_003

    class Many(dict):
        def __len__(self):
            return PRODUCT + super().__len__()  # the first topic added is number 1000003 + 1

    def first_draws(seed, many):
        s = AdaptiveSession(seed)
        if many:
            s.pools = Many()
        s.add_topic("t", {"a": 1, "b": 1, "c": 1})
        return tuple(s.games["t"].rng.integers(0, 2**63, 4).tolist())

    for seed in (0, 1, 12345, 2**64 - 1):
        assert first_draws(seed, False) == _draws(seed * 1_000_003 + 1)
    assert first_draws(5, True) != first_draws(6, False)  # topic 1000004 of seed 5, topic 1 of seed 6 (was one)
    assert first_draws(6, False) == tuple(np.random.default_rng(6 * 1_000_003 + 1).integers(0, 2**63, 4).tolist())


OLD_STATES = "data/zelo/old_seed_states"  # written by pref_eval at aef4552 (before session 19), seed 2^40 + 3


def test_old_large_seed_tournament_state_continues_with_the_old_stream(monkeypatch):
    """A tournament state of seed 2^40 + 3 written before session 19 asks, after its first stages are judged,
    the pairs the old derivation ``default_rng([seed, step])`` draws (the list was never ambiguous: step >= 1)."""
    from pathlib import Path

    import numpy as np

    from pref_eval.zelo.tournament import Tournament

    text = (Path(__file__).parent / OLD_STATES / "tournament.json").read_text()

    def play(t):
        for _ in range(10):
            req = t.outstanding()
            if not req:
                break
            t.add((q, a, b, float(a > b)) for q, a, b in req)
        return t.to_json()

    new = play(Tournament.from_json(text, "tournament.json"))
    old_t = Tournament.from_json(text, "tournament.json")

    def old_rng():
        old_t.step += 1
        return np.random.default_rng([old_t.seed, old_t.step])  # the code before session 19

    monkeypatch.setattr(old_t, "_rng", old_rng)
    assert old_t.seed == 2**40 + 3 and new == play(old_t) and json.loads(new)["step"] > 2


@pytest.mark.parametrize("name", ["adaptive", "ranking"])
def test_old_large_seed_sessions_verify(name):
    """The adaptive and ranking session states of seed 2^40 + 3 written before session 19 load with
    ``--verify``: the replay from the seed draws what they hold (the derived seeds did not move)."""
    from pathlib import Path

    from pref_eval.zelo.pair_state import parse_state

    text = (Path(__file__).parent / OLD_STATES / f"{name}.json").read_text()
    s = parse_state(text, f"{name}.json", verify=True)
    assert s.seed == 2**40 + 3 and s.to_json() + "\n" == text


def test_stream_seed_takes_numpy_integers_as_python_ints():
    """An API seed of np.int64 / np.uint64 names the stream of the same Python int (CI at fa3db88 refused
    np.int64(0)), and the derived product seed does not wrap around in 64 bits."""
    import numpy as np

    from pref_eval.seeds import PRODUCT, product_seed, stream_seed

    assert stream_seed(np.int64(5), np.int64(1)) == [5, 1]
    assert stream_seed(np.uint64(2**64 - 1), 3) == stream_seed(2**64 - 1, 3)
    assert product_seed(np.uint64(2**63), np.int64(1)) == 2**63 * PRODUCT + 1
    assert type(product_seed(np.int64(7), 2)) is int
    for bad in (True, 1.0, -1, 2**64, np.float64(3)):
        with pytest.raises(ValueError):
            stream_seed(bad)
