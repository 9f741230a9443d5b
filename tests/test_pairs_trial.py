"""An outside user's trial of zelo_pairs, zelo_simulate and the ``zelo`` group (session 10, p19).

Each test is a defect the trial found, checked from the shell user's side (in-process runs of the
console scripts): a repeated ``next`` changed the tournament, ``--p``/``--f`` below their floor were
raised silently, ``result --qrels`` of another qrels dropped the top set silently, ids with white
space were written into space-separated request lines, ``recovery --sigma 1e308`` was a traceback.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_harness import check_contract, run_inproc

QRELS = "\n".join(f"t{q} 0 d{i:02d} {1 + (i % 3)}" for q in range(2) for i in range(24)) + "\n"


def _pairs(ws: Path, *argv: str, code: int = 0):
    res = run_inproc("zelo_pairs", list(argv), ws)
    assert res.returncode == code, res.stderr
    return res


def _judge(ws: Path, batch: str, out: str) -> bool:
    """The smaller docno wins (Clarke's 'topic docA docB winner'); False when the batch is empty."""
    lines = [x.split()[:3] for x in (ws / batch).read_text().splitlines() if x and not x.startswith("#")]
    (ws / out).write_text("".join(f"{t} {a} {b} {min(a, b)}\n" for t, a, b in lines))
    return bool(lines)


def _tournament(ws: Path, state: str, nexts: int) -> str:
    """Run the tournament to its end with ``nexts`` calls of ``next`` before each batch; its result."""
    _pairs(ws, "init", "--state", state, "--qrels", "q.qrels", "--k", "3", "--p", "5", "--f", "7", "--seed", "4")
    for _ in range(100):
        for _ in range(nexts):
            _pairs(ws, "next", "--state", state, "-o", "b.txt")
        if not _judge(ws, "b.txt", "j.txt"):
            break
        _pairs(ws, "add", "--state", state, "-J", "j.txt", "--format", "clarke4", "-Q")
    return _pairs(ws, "result", "--state", state).stdout.decode()


def test_tournament_next_again_asks_the_same_pairs_and_keeps_the_result(tmp_path):
    """``next`` twice before any judgment printed other pairs and changed the later pruning stages
    (the seeded stream advanced on every ``next``): same seed and same answers gave another top set."""
    (tmp_path / "q.qrels").write_text(QRELS)
    _pairs(tmp_path, "init", "--state", "s.json", "--qrels", "q.qrels", "--seed", "2")
    first = _pairs(tmp_path, "next", "--state", "s.json").stdout
    assert _pairs(tmp_path, "next", "--state", "s.json").stdout == first
    assert _tournament(tmp_path, "a.json", 1) == _tournament(tmp_path, "b.json", 2)


def test_tournament_next_after_an_answer_draws_again(tmp_path):
    """Only a repeated ``next`` with nothing added in between gives the same lines: after an ``add``
    the outstanding pairs are the rest, in their own draw."""
    (tmp_path / "q.qrels").write_text(QRELS)
    _pairs(tmp_path, "init", "--state", "s.json", "--qrels", "q.qrels", "--seed", "2")
    _pairs(tmp_path, "next", "--state", "s.json", "-o", "b.txt")
    _judge(tmp_path, "b.txt", "j.txt")
    one = (tmp_path / "j.txt").read_text().splitlines()[0]
    (tmp_path / "j1.txt").write_text(one + "\n")
    _pairs(tmp_path, "add", "--state", "s.json", "-J", "j1.txt", "--format", "clarke4", "-Q")
    rest = _pairs(tmp_path, "next", "--state", "s.json").stdout.decode().splitlines()
    assert len(rest) == len((tmp_path / "b.txt").read_text().splitlines()) - 1
    assert " ".join(one.split()[:3]) not in rest


@pytest.mark.parametrize("argv,floor", [(["--k", "5", "--p", "3"], "--p"), (["--k", "3", "--p", "3"], "--p"),
                                        (["--k", "2", "--p", "4", "--f", "4"], "--f")])
def test_tournament_p_f_below_floor_refused(tmp_path, argv, floor):
    """prefj.py raises p to k + 1 and f to p + 1 (with a warning); we raised them silently. Refused now."""
    (tmp_path / "q.qrels").write_text(QRELS)
    res = run_inproc("zelo_pairs", ["init", "--state", "s.json", "--qrels", "q.qrels", *argv], tmp_path)
    assert check_contract(res, script="zelo_pairs", expect={2}) == []
    assert floor in res.stderr and not (tmp_path / "s.json").exists()
    (tmp_path / "m.txt").write_text("0.5 0.75\n0.25 0.5\n")
    sim = run_inproc("zelo_simulate", ["tournament", "--matrix", "m.txt", "--reps", "2", *argv, "-Q"], tmp_path)
    assert check_contract(sim, script="zelo_simulate", expect={2}) == []
    assert floor in sim.stderr


def test_tournament_p_f_at_floor_accepted(tmp_path):
    (tmp_path / "q.qrels").write_text(QRELS)
    _pairs(tmp_path, "init", "--state", "s.json", "--qrels", "q.qrels", "--k", "3", "--p", "4", "--f", "5")
    st = json.loads((tmp_path / "s.json").read_text())
    assert (st["k"], st["p"], st["f"]) == (3, 4, 5)


@pytest.mark.parametrize("other,what", [("zz 0 d00 1\n", "t0"), ("t0 0 x 1\nt1 0 d00 1\n", "d0")])
def test_result_qrels_of_another_collection_refused(tmp_path, other, what):
    """``result --qrels`` with qrels the state was not started from printed nothing for the state's
    topics (exit 0), or left the top documents out and printed the others' grades."""
    (tmp_path / "q.qrels").write_text(QRELS)
    (tmp_path / "o.qrels").write_text(other)
    _tournament(tmp_path, "s.json", 1)
    assert _pairs(tmp_path, "result", "--state", "s.json", "--qrels", "q.qrels").stdout
    res = run_inproc("zelo_pairs", ["result", "--state", "s.json", "--qrels", "o.qrels"], tmp_path)
    assert check_contract(res, script="zelo_pairs", expect={2}, names=("o.qrels",)) == []
    assert what in res.stderr and res.stdout == b""


@pytest.mark.parametrize("bad", ["a b", "a\u00a0b", "a\u3000b"])
def test_ids_with_white_space_refused_for_request_lines(tmp_path, bad):
    """A zbench dataset may name a document 'a b'; ``next`` wrote 'q a b c' (four words for three
    fields), so no judge could answer it unambiguously. Refused at ``init``, naming the file and id."""
    ds = {"query": {"id": "q"}, "documents": [{"id": x} for x in ("c", bad, "e")]}
    (tmp_path / "ds.jsonl").write_text(json.dumps(ds) + "\n")
    res = run_inproc("zelo_pairs", ["init", "--state", "s.json", "--strategy", "adaptive", "--goal", "ranking",
                                    "--dataset", "ds.jsonl"], tmp_path)
    assert check_contract(res, script="zelo_pairs", expect={2}, names=("ds.jsonl",)) == []
    assert repr(bad) in res.stderr and not (tmp_path / "s.json").exists()
    ds["query"]["id"] = bad
    ds["documents"][1]["id"] = "b"
    (tmp_path / "ds.jsonl").write_text(json.dumps(ds) + "\n")
    res = run_inproc("zelo_pairs", ["init", "--state", "s.json", "--strategy", "adaptive", "--goal", "ranking",
                                    "--dataset", "ds.jsonl"], tmp_path)
    assert check_contract(res, script="zelo_pairs", expect={2}, names=("ds.jsonl",)) == []


def test_ids_like_numbers_stay_distinct(tmp_path):
    """'01' and '1' are two topics and two documents all the way to the result."""
    (tmp_path / "q.qrels").write_text("01 0 1 1\n01 0 01 1\n1 0 1 1\n1 0 01 1\n")
    _pairs(tmp_path, "init", "--state", "s.json", "--qrels", "q.qrels")
    _pairs(tmp_path, "next", "--state", "s.json", "-o", "b.txt")
    lines = sorted(x for x in (tmp_path / "b.txt").read_text().splitlines() if not x.startswith("#"))
    assert [sorted(x.split()[1:]) for x in lines] == [["01", "1"], ["01", "1"]]
    assert sorted(x.split()[0] for x in lines) == ["01", "1"]
    (tmp_path / "j.txt").write_text("01 01 1 01\n1 01 1 1\n")
    _pairs(tmp_path, "add", "--state", "s.json", "-J", "j.txt", "--format", "clarke4")
    assert _pairs(tmp_path, "result", "--state", "s.json").stdout.decode() == "01 01 1.0\n1 1 1.0\n"


@pytest.mark.parametrize("sigma", ["1e308", "1e306", "1.7e305"])
def test_recovery_sigma_beyond_range_refused(tmp_path, sigma):
    """``recovery --sigma 1e308``: a traceback (OverflowError deriving the seed). A range now."""
    res = run_inproc("zelo_simulate", ["recovery", "--K", "5", "--sigma", sigma, "--cycles", "1", "--trials", "2",
                                       "-Q"], tmp_path)
    assert check_contract(res, script="zelo_simulate", expect={2}) == []
    assert "--sigma" in res.stderr


def test_tournament_same_seed_same_pairs_whatever_the_hash_seed(tmp_path):
    """Topics whose stage ended in one ``add`` drew their next stage's pairs in the order of a Python set
    of topic names, which changes with PYTHONHASHSEED: the same seed and answers gave other pairs in
    another process. Both processes must write the same state bytes."""
    import os
    import subprocess
    import sys

    (tmp_path / "q.qrels").write_text("".join(f"t{q} 0 d{i:02d} 1\n" for q in range(6) for i in range(40)))
    states = []
    for hs in ("1", "2", "3"):
        env = dict(os.environ, PYTHONHASHSEED=hs)
        st = f"s{hs}.json"
        for argv in (["init", "--state", st, "--qrels", "q.qrels", "--k", "2", "--seed", "1"],
                     ["next", "--state", st, "-o", "b.txt"]):
            subprocess.run([sys.executable, "-m", "pref_eval.cli.pairs", *argv], cwd=tmp_path, env=env, check=True)
        _judge(tmp_path, "b.txt", f"j{hs}.txt")
        subprocess.run([sys.executable, "-m", "pref_eval.cli.pairs", "add", "--state", st, "-J", f"j{hs}.txt",
                        "--format", "clarke4", "-Q"], cwd=tmp_path, env=env, check=True)
        states.append(json.loads((tmp_path / st).read_text())["topics"])
    assert states[0]["t0"]["phase"] == "prune" and states[0]["t0"]["judged"] == {}  # a second stage was drawn
    assert states[0] == states[1] == states[2]
    assert len({json.dumps(s, sort_keys=True) for s in states}) == 1


def test_final_phase_same_answers_to_the_second_request_count(tmp_path):
    """--final-phase asks every final pair a second time; for a final pool of two the answer file is the
    same bytes as the first round's whenever the left/right draw repeats, and ``add`` dropped it as "already
    added": the topic never finished (the docs' loop ran forever with -Q). Counted now; the same file added
    twice for one ``next`` still changes nothing."""
    (tmp_path / "q.qrels").write_text("q 0 a 1\nq 0 b 1\n")
    for seed in range(4):
        st = f"s{seed}.json"
        _pairs(tmp_path, "init", "--state", st, "--qrels", "q.qrels", "--final-phase", "--seed", str(seed))
        for _ in range(2):
            _pairs(tmp_path, "next", "--state", st, "-o", "b.txt")
            _judge(tmp_path, "b.txt", "j.txt")
            _pairs(tmp_path, "add", "--state", st, "-J", "j.txt", "--format", "clarke4", "-Q")
            again = _pairs(tmp_path, "add", "--state", st, "-J", "j.txt", "--format", "clarke4")
            assert "already added" in again.stderr
        assert _pairs(tmp_path, "next", "--state", st).stdout == b""
        assert _pairs(tmp_path, "result", "--state", st).stdout == b"q a 2.0\n"


def test_forged_issued_refused(tmp_path):
    (tmp_path / "q.qrels").write_text(QRELS)
    _pairs(tmp_path, "init", "--state", "s.json", "--qrels", "q.qrels")
    _pairs(tmp_path, "next", "--state", "s.json", "-o", "b.txt")
    st = json.loads((tmp_path / "s.json").read_text())
    for bad in ([st["step"], 0], [0], "x", [0, st["comparisons"] + 1]):
        (tmp_path / "f.json").write_text(json.dumps(dict(st, issued=bad)))
        res = run_inproc("zelo_pairs", ["next", "--state", "f.json"], tmp_path)
        assert check_contract(res, script="zelo_pairs", expect={2}, names=("f.json",)) == []
        assert "issued" in res.stderr


def _tie_judge(ws: Path, batch: str, out: str, tie) -> bool:
    """Canonical JSONL answers: score ``tie(topic, a, b)`` (½ = a tie)."""
    lines = [x.split()[:3] for x in (ws / batch).read_text().splitlines() if x and not x.startswith("#")]
    (ws / out).write_text("".join(json.dumps({"qid": t, "doc_a": a, "doc_b": b, "score": tie(t, a, b)}) + "\n"
                                  for t, a, b in lines))
    return bool(lines)


@pytest.mark.parametrize("final_phase", [[], ["--final-phase"]])
def test_tournament_all_ties_ends(tmp_path, final_phase):
    """Judges that answer every pair with a tie gave every document p/2 = 3.5 > 3 wins: each pruning stage kept
    the whole pool and started again, for ever. A stage that prunes nobody keeps the documents with the most
    wins; when those are all of them (the judgments cannot separate the documents) the topic ends with the
    whole pool as its top set, all tied."""
    (tmp_path / "q.qrels").write_text("".join(f"t{q} 0 d{i:02d} 1\n" for q in range(2) for i in range(24)))
    _pairs(tmp_path, "init", "--state", "s.json", "--qrels", "q.qrels", "--k", "2", *final_phase)
    batches = 0
    while batches < 20:
        _pairs(tmp_path, "next", "--state", "s.json", "-o", "b.txt")
        if not _tie_judge(tmp_path, "b.txt", "j.jsonl", lambda t, a, b: 0.5):
            break
        _pairs(tmp_path, "add", "--state", "s.json", "-J", "j.jsonl", "-Q")
        batches += 1
    assert batches == 1
    res = [x.split() for x in _pairs(tmp_path, "result", "--state", "s.json").stdout.decode().splitlines()]
    assert sorted((t, d) for t, d, _ in res) == [(f"t{q}", f"d{i:02d}") for q in range(2) for i in range(24)]
    assert {w for _, _, w in res} == {"3.5"}  # every document in 7 pairs here, all tied


def test_tournament_stage_that_prunes_nobody_keeps_the_most_wins(tmp_path):
    """Ties for every pair but d00's, which d00 wins by 3/4 to 1/4: nobody has <= 3 wins (the others 3.25 or
    3.5), so the most wins survive (d00) instead of the whole pool again."""
    (tmp_path / "q.qrels").write_text("".join(f"t 0 d{i:02d} 1\n" for i in range(16)))
    _pairs(tmp_path, "init", "--state", "s.json", "--qrels", "q.qrels", "--k", "1")
    _pairs(tmp_path, "next", "--state", "s.json", "-o", "b.txt")
    _tie_judge(tmp_path, "b.txt", "j.jsonl", lambda t, a, b: 0.25 if a == "d00" else 0.75 if b == "d00" else 0.5)
    _pairs(tmp_path, "add", "--state", "s.json", "-J", "j.jsonl", "-Q")
    st = json.loads((tmp_path / "s.json").read_text())["topics"]["t"]
    assert st["pool"] == ["d00"] and st["phase"] == "done"


PLOT_ARGV = {"systems": ["systems", "-R", "q.qrels", "-m", "map", "a.run", "b.run", "-o", "p.svg", "-Q"],
             "pairs": ["pairs", "-R", "q.qrels", "-m", "map", "a.run", "b.run", "-o", "p.svg", "-Q"],
             "matrix": ["matrix", "-J", "j.txt", "--format", "clarke4", "-o", "p.svg", "-Q"]}


@pytest.mark.parametrize("kind,opt,value", [("systems", "--seed", "-1"), ("pairs", "--seed", "-1"),
                                            ("matrix", "--prior", "nan"), ("matrix", "--prior", "inf")])
def test_plot_option_ranges(tmp_path, kind, opt, value):
    """zelo_plot systems/pairs took ``--seed -1`` (zelo_compare refuses it) and ``matrix --prior nan``/``inf``
    (zelo_fit refuses them; inf drew with a RuntimeWarning): declared ranges now, the parser's exit 2."""
    pytest.importorskip("PIL")
    (tmp_path / "q.qrels").write_text("q1 0 d1 1\nq2 0 d1 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 1 a\nq2 Q0 d2 1 1 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d2 1 1 b\nq2 Q0 d1 1 1 b\n")
    (tmp_path / "j.txt").write_text("q d1 d2 d1\n")
    assert run_inproc("zelo_plot", PLOT_ARGV[kind], tmp_path).returncode == 0
    res = run_inproc("zelo_plot", [*PLOT_ARGV[kind], opt, value], tmp_path)
    assert check_contract(res, script="zelo_plot", expect={2}) == []
    assert opt in res.stderr and "Traceback" not in res.stderr and "Warning" not in res.stderr


def test_cycles_docs_listed_twice_refused(tmp_path):
    """``cycles --docs`` with a document listed twice for a query paired the document with itself (8 self-pairs
    for 'q a' twice); ``init --docs`` refuses it, and so does ``cycles`` now, naming the line."""
    (tmp_path / "d.txt").write_text("q a\nq b\nq a\n")
    res = run_inproc("zelo_pairs", ["cycles", "--docs", "d.txt", "-Q"], tmp_path)
    assert check_contract(res, script="zelo_pairs", expect={2}, names=("d.txt:3",)) == []
    assert res.stdout == b""


def test_cycles_depth_without_run_refused(tmp_path):
    """``--depth`` belongs to ``--run``; with ``--docs`` or ``--dataset`` it was ignored."""
    (tmp_path / "d.txt").write_text("q a\nq b\n")
    res = run_inproc("zelo_pairs", ["cycles", "--docs", "d.txt", "--depth", "1", "-Q"], tmp_path)
    assert check_contract(res, script="zelo_pairs", expect={2}) == []
    assert "--depth" in res.stderr and res.stdout == b""


@pytest.mark.parametrize("argv,option", [(["cycles", "--docs", "d.txt", "-Q", "-o", "d.txt"], "--docs"),
                                         (["result", "--state", "s.json", "-o", "s.json"], "--state"),
                                         (["next", "--state", "s.json", "-o", "s.json"], "--state")])
def test_output_onto_input_names_the_input_option(tmp_path, argv, option):
    """``-o d.txt`` over ``--docs d.txt`` was refused as "the same file as -o d.txt": the option the user gave
    the input with is named now."""
    (tmp_path / "d.txt").write_text("q a\nq b\n")
    (tmp_path / "q.qrels").write_text(QRELS)
    _pairs(tmp_path, "init", "--state", "s.json", "--qrels", "q.qrels")
    before = (tmp_path / "s.json").read_bytes()
    res = run_inproc("zelo_pairs", argv, tmp_path)
    assert check_contract(res, script="zelo_pairs", expect={2}) == []
    assert f"same file as {option} " in res.stderr, res.stderr
    assert (tmp_path / "s.json").read_bytes() == before and (tmp_path / "d.txt").read_text() == "q a\nq b\n"
