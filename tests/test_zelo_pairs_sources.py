"""`zelo_pairs init`: every strategy (tournament, adaptive best, adaptive ranking) takes its documents from
exactly one of --qrels, --run (repeatable, pooled to --depth), --docs, --dataset.

Checked against references outside the code under test:

* the qrels path and the ranking from a run give the bytes of the states written by main at fa3db88, before
  the sources were shared (tests/data/zelo/pool_states);
* a candidate source for the tournament and the best item is the documented pool rule: the state is the one
  --qrels gives for a file grading every candidate 1 (and a topic with no candidate: all graded 0), the pool
  computed here from the run lines by hand (top --depth by score, union over the runs);
* the same seed gives the same bytes whatever the order of the lines and of the runs (the whole ranking from
  --docs or --dataset too: documents sorted, the state of the same file graded 1 by --qrels; already sorted
  inputs keep the bytes main wrote at 690f055, pool_states/ranking-docs.json).
"""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parents[1]
STATES = Path(__file__).parent / "data" / "zelo" / "pool_states"  # written by pref_eval at fa3db88


def _run(*args, cwd):
    return run_module_inproc("pairs", args, cwd, timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


STRATEGIES = {"tournament": ["--strategy", "tournament"], "adaptive": ["--strategy", "adaptive"],
              "ranking": ["--strategy", "adaptive", "--goal", "ranking"]}


@pytest.mark.parametrize("name,source", [("tournament", ["--qrels", "q.qrels"]), ("adaptive", ["--qrels", "q.qrels"]),
                                         ("ranking", ["--qrels", "q.qrels"]),
                                         ("ranking-run", ["--run", "a.run", "--depth", "5"])])
def test_states_are_the_bytes_main_wrote_before(tmp_path, name, source):
    strategy = STRATEGIES[name.split("-")[0]]
    res = _run("init", "--state", str(tmp_path / "s.json"), *source, *strategy, "--seed", "7", cwd=STATES)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "s.json").read_bytes() == (STATES / f"{name}.json").read_bytes()


def _runs(tmp_path):
    """Two runs of two topics (scores tie in b.run's t1: docno ascending breaks them) and the pool of their top 3
    computed by hand."""
    a = [("t1", "x1", 9), ("t1", "x2", 8), ("t1", "x3", 7), ("t1", "x4", 6), ("t2", "y1", 3), ("t2", "y2", 2)]
    b = [("t1", "x9", 5), ("t1", "x5", 5), ("t1", "x1", 5), ("t1", "x0", 1), ("t3", "z1", 1)]
    for name, rows in (("a.run", a), ("b.run", b)):
        lines = [f"{q} Q0 {d} {i} {s} {name}" for i, (q, d, s) in enumerate(rows)]
        random.Random(1).shuffle(lines)
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    return {"t1": {"x1", "x2", "x3", "x5", "x9"}, "t2": {"y1", "y2"}, "t3": {"z1"}}


def _pools(state):
    obj = json.loads(state.read_text())
    if "games" in obj:
        return {t: set(p) for t, p in obj["topics"].items()}
    return {t: set(v["pool"]) for t, v in obj["topics"].items()}


@pytest.mark.parametrize("strategy", ["tournament", "adaptive"])
def test_tournament_and_best_take_the_pool_of_runs_docs_or_dataset(tmp_path, strategy):
    """Refused before ('--run does not apply to --strategy tournament', '--strategy adaptive needs --qrels')."""
    pool = _runs(tmp_path)
    opts = [*STRATEGIES[strategy], "--seed", "5"]
    res = _run("init", "--state", "r.json", "--run", "a.run", "--run", "b.run", "--depth", "3", *opts, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert _pools(tmp_path / "r.json") == pool
    # the documented rule: the state --qrels gives when every candidate is graded 1
    (tmp_path / "g.qrels").write_text("".join(f"{t} 0 {d} 1\n" for t in pool for d in pool[t]))
    assert _run("init", "--state", "g.json", "--qrels", "g.qrels", *opts, cwd=tmp_path).returncode == 0
    assert (tmp_path / "r.json").read_bytes() == (tmp_path / "g.json").read_bytes()
    # the runs in the other order, a 'qid docno' file in any line order, a zbench dataset: the same bytes
    assert _run("init", "--state", "b.json", "--run", "b.run", "--run", "a.run", "--depth", "3", *opts,
                cwd=tmp_path).returncode == 0
    lines = [f"{t} {d}" for t in pool for d in pool[t]]
    random.Random(2).shuffle(lines)
    (tmp_path / "c.docs").write_text("\n".join(lines) + "\n")
    assert _run("init", "--state", "d.json", "--docs", "c.docs", *opts, cwd=tmp_path).returncode == 0
    (tmp_path / "ds.jsonl").write_text("".join(json.dumps({"query": {"id": t}, "documents": [{"id": d} for d in
                                                                                             sorted(pool[t])]}) + "\n"
                                               for t in sorted(pool, reverse=True)))
    assert _run("init", "--state", "z.json", "--dataset", "ds.jsonl", *opts, cwd=tmp_path).returncode == 0
    for other in ("b.json", "d.json", "z.json"):
        assert (tmp_path / other).read_bytes() == (tmp_path / "g.json").read_bytes(), other


def test_ranking_docs_and_dataset_do_not_depend_on_line_order(tmp_path):
    """The whole ranking from a 'qid docno' list or a zbench dataset, topics and documents shuffled: the state
    --qrels gives for a file grading every candidate 1 (documents by docno), and for already sorted inputs the
    bytes main wrote at 690f055, before they were sorted (pool_states/p.docs, p.jsonl: ranking-docs.json)."""
    pools: dict[str, list[str]] = {}
    for line in (STATES / "p.docs").read_text().splitlines():
        qid, docno = line.split()
        pools.setdefault(qid, []).append(docno)
    rnd = random.Random(4)
    lines = [f"{q} {d}" for q in pools for d in pools[q]]
    rnd.shuffle(lines)
    (tmp_path / "s.docs").write_text("\n".join(lines) + "\n")
    topics = list(pools)
    rnd.shuffle(topics)
    (tmp_path / "s.jsonl").write_text("".join(json.dumps({"query": {"id": q}, "documents": [
        {"id": d} for d in rnd.sample(pools[q], len(pools[q]))]}) + "\n" for q in topics))
    (tmp_path / "g.qrels").write_text("".join(f"{q} 0 {d} 1\n" for q in topics for d in pools[q]))
    opts = [*STRATEGIES["ranking"], "--seed", "7"]
    fixture = (STATES / "ranking-docs.json").read_bytes()
    for name, source in (("a.json", ["--docs", str(STATES / "p.docs")]),
                         ("b.json", ["--dataset", str(STATES / "p.jsonl")]),
                         ("c.json", ["--docs", "s.docs"]), ("d.json", ["--dataset", "s.jsonl"]),
                         ("g.json", ["--qrels", "g.qrels"])):
        res = _run("init", "--state", name, *source, *opts, cwd=tmp_path)
        assert res.returncode == 0, res.stderr
        assert (tmp_path / name).read_bytes() == fixture, name


@pytest.mark.parametrize("strategy", ["tournament", "adaptive", "ranking"])
def test_pools_of_zero_and_one_document_as_the_qrels_path(tmp_path, strategy):
    """A dataset topic with no document and one with a single document give the state of qrels with no
    document graded > 0 and one: nothing to ask, the single document the answer."""
    (tmp_path / "ds.jsonl").write_text('{"query": {"id": "t0"}, "documents": []}\n'
                                       '{"query": {"id": "t1"}, "documents": [{"id": "a"}]}\n'
                                       '{"query": {"id": "t2"}, "documents": [{"id": "c"}, {"id": "b"}]}\n')
    (tmp_path / "q.qrels").write_text("t0 0 z 0\nt1 0 a 1\nt2 0 b 1\nt2 0 c 1\n")
    opts = [*STRATEGIES[strategy], "--seed", "3"]
    assert _run("init", "--state", "d.json", "--dataset", "ds.jsonl", *opts, cwd=tmp_path).returncode == 0
    assert _run("init", "--state", "q.json", "--qrels", "q.qrels", *opts, cwd=tmp_path).returncode == 0
    assert (tmp_path / "d.json").read_bytes() == (tmp_path / "q.json").read_bytes()
    nxt = _run("next", "--state", "d.json", cwd=tmp_path)
    asked = {(x[0], frozenset(x[1:])) for x in (line.split() for line in nxt.stdout.splitlines()) if x[0] != "#"}
    assert nxt.returncode == 0 and asked == {("t2", frozenset("bc"))}, nxt.stdout


@pytest.mark.parametrize("strategy", ["tournament", "adaptive", "ranking"])
@pytest.mark.parametrize("args,message", [
    (["--qrels", "q.qrels", "--run", "a.run"], "give exactly one of --qrels, --dataset, --run, --docs (got --qrels "
                                               "and --run)"),
    (["--docs", "c.docs", "--dataset", "ds.jsonl"], "(got --dataset and --docs)"),
    ([], "give exactly one of --qrels, --dataset, --run, --docs"),
    (["--docs", "c.docs", "--depth", "2"], "--depth applies to --run"),
    (["--docs", "twice.docs"], "twice.docs:3: topic t1: document 'x' is listed twice"),
])
def test_two_sources_or_none_refused_in_one_line(tmp_path, strategy, args, message):
    (tmp_path / "q.qrels").write_text("t1 0 x 1\n")
    (tmp_path / "a.run").write_text("t1 Q0 x 1 1 r\n")
    (tmp_path / "c.docs").write_text("t1 x\n")
    (tmp_path / "twice.docs").write_text("t1 x\nt1 y\nt1 x\n")
    res = _run("init", "--state", "s.json", *STRATEGIES[strategy], *args, cwd=tmp_path)
    assert res.returncode == 2 and message in res.stderr, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and not (tmp_path / "s.json").exists()
