"""`zelo_pairs init --strategy adaptive --goal ranking` (issue #16): the whole-ranking strategy on real topics.

Checked against independent references:

* with the same judgments, the rounds it asks for are the pairs the simulation `zelo_simulate recovery
  --strategy adaptive` chooses (`pref_eval.zelo.simulate._adaptive_pairs`, the code behind the documented
  table), for both criteria and both starts;
* `result` gives, bit for bit, the scores `zelo_fit` gives for the judgments the state accepted;
* the protocol: budget (capped at all pairs), orientation and ties, duplicates and unrequested pairs ignored,
  an identical batch file replayed changes nothing, a forged state is refused and left untouched, options of
  other strategies refused. `zelo_judge --state` driving it: tests/test_zelo_judge_state.py.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parents[1]


def _run(*args, cwd):
    """``python -m pref_eval.cli.pairs ARGS`` in process (cli_harness.run_module_inproc, the same small
    environment): states and outputs need no process; two concurrent ``add`` processes
    (test_two_adds_at_once_lose_nothing) and zelo_pairs.md's loops (test_docs.py) start real ones."""
    return run_module_inproc("pairs", args, cwd, timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


def _dense(K, sigma, seed):
    """A judged matrix as the simulation draws it: D[i, j] = share of 3 votes for j over i."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0, sigma, K)
    p = 1 / (1 + np.exp(-(x[None, :] - x[:, None])))
    votes = (rng.random((K, K, 3)) < p[..., None]).mean(2)
    D = np.triu(votes, 1)
    return D + np.tril(1 - D.T, -1)


def _drive(session, topic, D):
    """Answer every request of ``topic`` from D until done; the requested pairs in order."""
    asked = []
    for _ in range(10_000):
        req = [(a, b) for t, a, b in session.outstanding() if t == topic]
        if not req:
            return asked
        idx = session.index[topic]
        asked.extend((idx[a], idx[b]) for a, b in req)
        session.add([(topic, a, b, float(D[idx[a], idx[b]])) for a, b in req])
    raise AssertionError("did not finish")


@pytest.mark.parametrize("criterion,start,K,cycles", [("discordance", "matching", 14, 3),
                                                      ("uncertainty", "matching", 12, 4),
                                                      ("discordance", "cycle", 11, 3)])
def test_rounds_are_the_simulations_choices(criterion, start, K, cycles):
    from pref_eval.zelo.ranking_session import RankingSession, topic_seed
    from pref_eval.zelo.simulate import _adaptive_pairs

    D = _dense(K, 1.5, 7)
    s = RankingSession(5, {"cycles": cycles, "window": K, "criterion": criterion, "start": start, "batch": 3})
    s.set_pool("q", [f"d{i}" for i in range(K)])
    asked = _drive(s, "q", D)
    first = np.random.default_rng(topic_seed(5, "q")).permutation(K)  # the topic's draws
    _, a, b = _adaptive_pairs(K, 1, cycles, first[None], D[None], np.random.default_rng(0), K, start, 3, criterion)
    assert asked == list(zip(a.tolist(), b.tolist(), strict=True))
    assert len(asked) == cycles * K and len({tuple(sorted(p)) for p in asked}) == len(asked)


def test_result_equals_zelo_fit_of_the_accepted_judgments(tmp_path):
    from pref_eval import api
    from pref_eval.zelo.ranking_session import RankingSession

    s = RankingSession(1, {"cycles": 2})
    docs = {"q1": [f"doc{k}" for k in (5, 1, 9, 3, 7, 2, 8, 4)], "q2": ["b", "a", "c"]}
    for t, pool in docs.items():
        s.set_pool(t, pool)
        _drive(s, t, _dense(len(pool), 1.0, len(pool)))
    assert s.done()
    lines = [json.dumps({"qid": t, "doc_a": a, "doc_b": b, "score": v}) for group in s.adds for t, a, b, v in group]
    (tmp_path / "j.jsonl").write_text("\n".join(lines) + "\n")
    fit = api.fit(str(tmp_path / "j.jsonl"), as_frame=False)
    got = {(t, d): v for t, st in s.topics.items() for d, v in st["result"].items()}
    want = {(t, d): v for t, d, v in zip(fit["qid"], fit["docno"], fit["score"].tolist(), strict=True)}
    assert got == want  # exact: the same canonical fit


def test_budget_is_capped_and_tiny_topics_are_done():
    from pref_eval.zelo.ranking_session import RankingSession

    s = RankingSession(0, {"cycles": 4})
    s.set_pool("three", ["x", "y", "z"])
    s.set_pool("one", ["only"])
    s.set_pool("two", ["u", "v"])
    assert s.games["one"] is None
    asked = _drive(s, "three", _dense(3, 1.0, 1)) + _drive(s, "two", _dense(2, 1.0, 1))
    assert len(asked) == 3 + 1 and s.done()  # every pair once: min(4K, K(K-1)/2)
    assert s.topics["one"] == {"phase": "done", "result": {"only": 0.0}}


def test_orientation_ties_duplicates_and_unrequested():
    from pref_eval.zelo.ranking_session import RankingSession

    s = RankingSession(0, {"cycles": 1})
    s.set_pool("q", ["a", "b", "c", "d"])
    (t, x, y), (_, u, v) = s.outstanding()
    res = s.add([("q", y, x, 1.0), ("q", u, v, 0.5), ("q", v, u, 0.0), ("q", x, u, 1.0), ("nope", x, y, 1.0)])
    assert res == {"used": 2, "duplicate": 1, "unrequested": 2}
    assert s.adds == [[["q", x, y, 0.0], ["q", u, v, 0.5]]]  # judged the other way round: 1 - s
    assert s.ignored == 3 and len(s.outstanding()) == 1  # the next round: K/4 = 1 pair


@pytest.fixture
def run_file(tmp_path):
    lines = [f"{q} Q0 {q}d{k} {k + 1} {100 - k} r" for q in ("t1", "t2") for k in range(7)]
    p = tmp_path / "r.run"
    p.write_text("\n".join(lines) + "\n")
    return p


def _judge(req_text):
    """Clarke's 4 columns: the document with the lower number wins."""
    out = []
    for line in req_text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        t, a, b = line.split()
        out.append(f"{t} {a} {b} {min(a, b, key=lambda d: int(d.split('d')[-1]))}")
    return "\n".join(out) + "\n"


def test_cli_loop_replay_forgery_and_result(tmp_path, run_file):
    st = tmp_path / "s.json"
    init = _run("init", "--state", st, "--strategy", "adaptive", "--goal", "ranking", "--run", run_file,
                "--depth", "6", "--cycles", "2", "--batch", "2", "--seed", "3", cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    from cli_harness import run_inproc

    for n in range(100):  # the loop in this process (the other calls run as processes)
        nxt = run_inproc("zelo_pairs", ["next", "--state", str(st)], tmp_path)
        assert nxt.returncode == 0, nxt.stderr
        out = nxt.stdout.decode()
        if not out.replace("#", "").strip() or all(ln.startswith("#") for ln in out.splitlines()):
            break
        (tmp_path / f"b{n}.txt").write_text(_judge(out))
        add = run_inproc("zelo_pairs", ["add", "--state", str(st), "-J", str(tmp_path / f"b{n}.txt"), "--format",
                                        "clarke4", "-Q"], tmp_path)
        assert add.returncode == 0, add.stderr
        if n == 0:  # the same file again for the same batch: nothing changes, a warning says so
            before = st.read_bytes()
            again = _run("add", "--state", st, "-J", tmp_path / "b0.txt", "--format", "clarke4", cwd=tmp_path)
            assert again.returncode == 0 and "already added" in again.stderr and st.read_bytes() == before
    status = _run("status", "--state", st, cwd=tmp_path).stdout
    assert "# 2 topics, 2 done; 0 pairs outstanding; 24 judgments used, 0 ignored" in status
    result = _run("result", "--state", st, cwd=tmp_path)
    # -o writes what stdout shows, for status and result alike
    for sub, text in (("status", status), ("result", result.stdout)):
        r = _run(sub, "--state", st, "-o", tmp_path / f"{sub}.txt", cwd=tmp_path)
        assert r.returncode == 0 and r.stdout == "" and (tmp_path / f"{sub}.txt").read_text() == text, r.stderr
    rows = [ln.split() for ln in result.stdout.splitlines()]
    for t in ("t1", "t2"):  # the judge's order (lower number wins) is recovered from 12 of the 15 pairs
        assert [d for q, d, _ in rows if q == t] == [f"{t}d{k}" for k in range(6)]
    refused = _run("result", "--state", st, "--qrels", run_file, cwd=tmp_path)
    assert refused.returncode == 2 and "zelo_fit -J" in refused.stderr, refused.stderr
    import re

    from pref_eval.cli.fit import command as fit_command

    fit_opts = {o for prm in fit_command.params for o in prm.opts}
    named = re.findall(r"(?<![\w-])(-{1,2}[a-z][\w-]*)", refused.stderr.split("zelo_fit", 1)[1])
    assert named and set(named) <= fit_opts, named  # the advice names options zelo_fit has
    obj = json.loads(st.read_text())
    obj["adds"][1][0][3] = 1.0 - obj["adds"][1][0][3]  # a forged answer: the later rounds no longer follow
    forged = json.dumps(obj)
    st.write_text(forged)
    assert _run("status", "--state", st, cwd=tmp_path).returncode == 0  # loading does not refit every round
    for argv in (("result",), ("result", "--verify"), ("status", "--verify")):  # result verifies by default
        bad = _run(*argv, "--state", st, cwd=tmp_path)
        assert bad.returncode == 2 and "not the round the strategy chooses" in bad.stderr, bad.stderr
        assert st.read_text() == forged
    assert _run("result", "--state", st, "--no-verify", cwd=tmp_path).returncode == 0  # the user's choice
    obj["adds"][1][0][3] = 1.0 - obj["adds"][1][0][3]
    obj["adds"][0][0][1:3] = obj["rounds"]["t1"][3][0]  # an answer to a pair asked only later
    st.write_text(json.dumps(obj))
    bad = _run("status", "--state", st, cwd=tmp_path)
    assert bad.returncode == 2 and "did not ask for" in bad.stderr


def test_stored_rounds_are_checked(tmp_path):
    from pref_eval.errors import InputError
    from pref_eval.zelo.ranking_session import RankingSession

    s = RankingSession(2, {"cycles": 2, "batch": 2})
    s.set_pool("q", [f"d{i}" for i in range(8)])
    _drive(s, "q", _dense(8, 1.0, 3))
    good = json.loads(s.to_json())
    assert RankingSession.from_json(good, verify=True).to_json() == s.to_json()
    cases = {"first round": lambda o: o["rounds"]["q"][0].reverse(),
             "pair asked twice": lambda o: o["rounds"]["q"][2].__setitem__(0, o["rounds"]["q"][1][0]),
             "too few pairs": lambda o: o["rounds"]["q"][3].pop(),
             "a round missing": lambda o: o["rounds"]["q"].pop(),
             "unknown document": lambda o: o["rounds"]["q"][1][0].__setitem__(0, "zz")}
    for what, change in cases.items():
        obj = json.loads(s.to_json())
        change(obj)
        with pytest.raises(InputError, match=r"\$\.rounds\.q"):
            RankingSession.from_json(obj, "f.json")
        assert what


@pytest.mark.parametrize("args,message", [
    (["--qrels", "q.qrels", "--cycles", "2"],
     "--cycles does not apply to --strategy tournament (it belongs to --strategy adaptive --goal ranking)"),
    (["--qrels", "q.qrels", "--strategy", "adaptive", "--window", "3"],
     "--window does not apply to --strategy adaptive"),
    (["--strategy", "adaptive", "--goal", "ranking", "--run", "r.run", "--lead", "2"],
     "--lead does not apply to --strategy adaptive --goal ranking"),
    (["--strategy", "adaptive", "--goal", "ranking", "--run", "r.run", "--k", "2"], "--k does not apply to"),
    (["--qrels", "q.qrels", "--goal", "ranking"], "--goal applies to --strategy adaptive"),
    (["--strategy", "adaptive", "--goal", "ranking", "--run", "r.run", "--qrels", "q.qrels"],
     "(got --qrels and --run)"),
    (["--strategy", "adaptive", "--goal", "ranking"], "give exactly one of --qrels, --dataset, --run, --docs"),
    (["--strategy", "adaptive", "--goal", "ranking", "--docs", "r.run", "--depth", "3"], "--depth applies to --run"),
    (["--strategy", "adaptive"], "give exactly one of --qrels, --dataset, --run, --docs"),
    (["--strategy", "adaptive", "--goal", "ranking", "--run", "r.run", "--criterion", "rowsum"], "rowsum"),
    (["--strategy", "adaptive", "--goal", "ranking", "--run", "r.run", "--batch", "0"], "--batch"),
])
def test_init_refusals(tmp_path, run_file, args, message):
    (tmp_path / "q.qrels").write_text("t1 0 t1d1 1\nt1 0 t1d2 2\n")
    res = _run("init", "--state", "s.json", *args, cwd=tmp_path)
    assert res.returncode == 2 and message in res.stderr and "Traceback" not in res.stderr, res.stderr
    assert not (tmp_path / "s.json").exists()


def test_init_from_graded_qrels_takes_grade_above_zero(tmp_path):
    (tmp_path / "q.qrels").write_text("t1 0 a 1\nt1 0 b 2\nt1 0 c 0\nt1 0 d 3\n")
    res = _run("init", "--state", "s.json", "--qrels", "q.qrels", "--strategy", "adaptive", "--goal", "ranking",
               cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads((tmp_path / "s.json").read_text())["topics"] == {"t1": ["d", "b", "a"]}


@pytest.mark.parametrize("seed", [27, 28, 29])
def test_a_round_filled_at_random_asks_no_pair_twice(seed):
    """A round short of window candidates (--window 1, --batch K) is filled with unjudged pairs at random;
    the fill must not draw a pair the round already holds (a round with a repeated pair spent less than its
    budget and its state file was then refused on load: lost state)."""
    from pref_eval.zelo.ranking_session import RankingSession

    K = 10
    s = RankingSession(seed, {"window": 1, "batch": K, "cycles": 3})
    s.set_pool("t", [f"d{i}" for i in range(K)])
    D = _dense(K, 1.5, seed)
    for _ in range(100):
        g = s.games["t"]
        keys = [(min(a, b), max(a, b)) for a, b in g.history[-1]]
        assert len(set(keys)) == len(keys), g.history[-1]
        RankingSession.from_json(s.to_json(), "s.json", verify=True)  # the state loads at every step
        if s.done():
            break
        s.add([("t", a, b, float(D[s.index["t"][a], s.index["t"][b]])) for _, a, b in s.outstanding()])
    assert s.done() and s.comparisons == 3 * K


def test_simulated_fill_asks_no_pair_twice():
    """The simulation's fill (same rule) draws distinct pairs too: cycles * K distinct pairs per trial."""
    from pref_eval.zelo.simulate import _adaptive_pairs

    K, trials, cycles = 10, 30, 3
    rng = np.random.default_rng(0)
    first = np.stack([rng.permutation(K) for _ in range(trials)])
    D = np.stack([_dense(K, 1.5, t) for t in range(trials)])
    q, a, b = _adaptive_pairs(K, trials, cycles, first, D, rng, window=1, start="matching", per_round=K)
    for t in range(trials):
        m = q == t
        keys = {(min(i, j), max(i, j)) for i, j in zip(a[m].tolist(), b[m].tolist(), strict=True)}
        assert len(keys) == cycles * K


def test_status_columns_are_the_rounds():
    """``status``: judged / pairs / outstanding of the open round (as the tournament's of its stage), so that
    judged + outstanding = pairs; the total of judgments is the footer's."""
    from pref_eval.zelo.ranking_session import RankingSession

    s = RankingSession(0, {"cycles": 2, "batch": 2})
    s.set_pool("t", [f"d{i}" for i in range(8)])
    (_, a, b), *rest = s.outstanding()
    assert len(rest) == 3  # the blind matching: 4 pairs
    s.add([("t", a, b, 1.0)])
    assert s.status() == [("t", "round 1", 8, 1, 4, 3, 6)]  # 16 - 4 pairs after it, 2 per round
    s.add([("t", x, y, 0.0) for _, x, y in rest])
    assert s.status() == [("t", "round 2", 8, 0, 2, 2, 5)]
    assert s.comparisons == 4


def test_a_document_listed_twice_names_the_file_and_line(tmp_path):
    """A candidate listed twice is bad input: one line naming the file and the line of the repeat, exit 2."""
    (tmp_path / "d.txt").write_text("t a\nt b\nu a\nt a\n")
    res = _run("init", "--state", "s.json", "--strategy", "adaptive", "--goal", "ranking", "--docs", "d.txt",
               cwd=tmp_path)
    assert res.returncode == 2 and res.stderr == "zelo_pairs: d.txt:4: topic t: document 'a' is listed twice " \
        "among the candidates\n", res.stderr
    assert not (tmp_path / "s.json").exists()


def test_two_adds_at_once_lose_nothing(tmp_path, run_file):
    """Two assessors adding their halves of a round at the same moment: each ``add`` reads, changes and writes
    the state; without a lock the second write dropped the first one's judgments (seen: 150 of 385 lost)."""
    st = tmp_path / "s.json"
    assert _run("init", "--state", st, "--strategy", "adaptive", "--goal", "ranking", "--run", run_file,
                "--cycles", "2", cwd=tmp_path).returncode == 0
    for trial in range(3):
        _run("next", "--state", st, "-o", "b.txt", cwd=tmp_path)
        req = [ln.split() for ln in (tmp_path / "b.txt").read_text().splitlines() if not ln.startswith("#")]
        lines = [f"{q} {a} {b} {min(a, b)}" for q, a, b in req]
        (tmp_path / "h1.txt").write_text("\n".join(lines[::2]) + "\n")
        (tmp_path / "h2.txt").write_text("\n".join(lines[1::2]) + "\n")
        before = json.loads(st.read_text())
        used_before = sum(len(g) for g in before["adds"])
        procs = [subprocess.Popen([sys.executable, "-m", "pref_eval.cli.pairs", "add", "--state", str(st), "-J",
                                   str(tmp_path / h), "--format", "clarke4", "-Q"], cwd=tmp_path,
                                  env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, stderr=subprocess.PIPE)
                 for h in ("h1.txt", "h2.txt")]
        assert [p.wait(120) for p in procs] == [0, 0]
        after = json.loads(st.read_text())
        assert sum(len(g) for g in after["adds"]) == used_before + len(lines), trial


def test_zelo_judge_refuses_a_state_in_use(tmp_path, run_file):
    """``zelo_judge --state`` rewrites the state batch by batch: while another process holds it, refused at
    once (exit 2, one line naming the state), nothing changed."""
    from pref_eval.zelo.state_lock import state_lock

    st = tmp_path / "s.json"
    assert _run("init", "--state", st, "--strategy", "adaptive", "--goal", "ranking", "--run", run_file,
                cwd=tmp_path).returncode == 0
    before = st.read_bytes()
    (tmp_path / "q.tsv").write_text("t1\tquery\n")
    (tmp_path / "d.tsv").write_text("t1d0\ttext\n")
    with state_lock(str(st)):
        p = subprocess.run([sys.executable, "-m", "pref_eval.cli.judge", "--state", str(st), "--queries", "q.tsv",
                            "--docs", "d.tsv", "--store", "x.sqlite", "--judge", "cmd:cat", "-Q"], cwd=tmp_path,
                           env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
                           timeout=120)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and f"{st}: in use by" in p.stderr, p.stderr
    assert st.read_bytes() == before
