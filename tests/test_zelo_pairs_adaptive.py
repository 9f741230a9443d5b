"""`zelo_pairs init --strategy adaptive`: the adaptive strategy through the tournament's batch protocol.

Checked: a judge that follows a known total order makes it return the best document of every
topic; replaying a batch changes nothing; a state file is rebuilt only from judgments the strategy
asked for (a forged one is refused and left untouched); options of the other strategy are refused.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parents[1]


def _run(*args, cwd):
    """``python -m pref_eval.cli.pairs ARGS`` in process (cli_harness.run_module_inproc, the same small
    environment): each call reads and writes the state file as a process does (no module keeps state)."""
    return run_module_inproc("pairs", args, cwd, timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def qrels(tmp_path):
    lines = []
    for t in ("t1", "t2"):
        for i in range(9):
            lines.append(f"{t} 0 d{i} {1 + (i % 3)}")
    lines.append("t2 0 zero 0")
    p = tmp_path / "q.qrels"
    p.write_text("\n".join(lines) + "\n")
    return p


def _judge(req_text: str) -> str:
    """Clarke's 4-column answers: the lower-numbered document always wins."""
    out = []
    for line in req_text.splitlines():
        f = line.split()
        if len(f) not in (3, 4) or line.startswith("#"):  # (4: a pair asked again, with its repetition)
            continue
        t, a, b = f[:3]
        out.append(f"{t} {a} {b} {a if int(a[1:]) < int(b[1:]) else b}")
    return "\n".join(out) + "\n"


def test_adaptive_protocol_finds_the_best(tmp_path, qrels):
    st = tmp_path / "s.json"
    assert _run("init", "--state", st, "--qrels", qrels, "--strategy", "adaptive", "--seed", "3",
                cwd=tmp_path).returncode == 0
    from cli_harness import run_inproc

    for n in range(200):  # the loop in this process (init, result and status run as processes)
        nxt = run_inproc("zelo_pairs", ["next", "--state", str(st)], tmp_path)
        assert nxt.returncode == 0, nxt.stderr
        if not nxt.stdout.strip():
            break
        batch = tmp_path / f"b{n}.txt"
        batch.write_text(_judge(nxt.stdout.decode()))
        add = run_inproc("zelo_pairs", ["add", "--state", str(st), "-J", str(batch), "--format", "clarke4", "-Q"],
                         tmp_path)
        assert add.returncode == 0, add.stderr
        if n == 0:  # replaying the same batch changes nothing
            before = st.read_bytes()
            again = _run("add", "--state", st, "-J", batch, "--format", "clarke4", cwd=tmp_path)
            assert again.returncode == 0 and st.read_bytes() == before
    else:
        pytest.fail("the adaptive strategy did not finish")
    res = _run("result", "--state", st, cwd=tmp_path)
    assert res.returncode == 0
    best = {line.split()[0]: line.split()[1] for line in res.stdout.splitlines()}
    assert best == {"t1": "d0", "t2": "d0"}
    status = _run("status", "--state", st, cwd=tmp_path)
    assert status.returncode == 0 and "done" in status.stdout
    state = json.loads(st.read_text())
    assert state["strategy"] == "adaptive" and state["version"] == 2
    # every pair judged at most max_per_pair (6) times
    from collections import Counter

    pairs = Counter((t, min(a, b), max(a, b)) for g in state["adds"] for t, a, b, _ in g)
    assert max(pairs.values()) <= 6


def test_adaptive_state_forged_or_wrong_is_refused_untouched(tmp_path, qrels):
    st = tmp_path / "s.json"
    assert _run("init", "--state", st, "--qrels", qrels, "--strategy", "adaptive", cwd=tmp_path).returncode == 0
    state = json.loads(st.read_text())
    cases = {
        "forged": {**state, "adds": [[["t1", "d0", "d1", 0.0]] * 9]},
        "version": {**state, "version": 0},
        "unknown key": {**state, "extra": 1},
        "bad score": {**state, "adds": [[["t1", "d0", "d1", 2.0]]]},
        "params": {**state, "params": {**state["params"], "lead": -1}},
        "pool": {**state, "topics": {"t1": ["d0", "d0"]}},
    }
    for label, obj in cases.items():
        bad = tmp_path / f"bad-{label.replace(' ', '_')}.json"
        bad.write_text(json.dumps(obj))
        before = bad.read_bytes()
        p = _run("next", "--state", bad, cwd=tmp_path)
        assert p.returncode == 2, (label, p.stderr)
        assert str(bad.name) in p.stderr and "adaptive state" in p.stderr and "Traceback" not in p.stderr, label
        assert bad.read_bytes() == before
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({**state, "version": 3, "new key": 1}))
    p = _run("next", "--state", newer, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and newer.name in p.stderr, p.stderr
    assert p.stderr.startswith("zelo_pairs: ") and p.stderr.endswith(
        ": written by a newer pref_eval (format 3; this version reads up to 2)\n"), p.stderr


def test_strategy_options_are_honoured_or_refused(tmp_path, qrels):
    st = tmp_path / "s.json"
    p = _run("init", "--state", st, "--qrels", qrels, "--strategy", "adaptive", "--k", "3", cwd=tmp_path)
    assert p.returncode == 2 and "--k does not apply to --strategy adaptive" in p.stderr
    p = _run("init", "--state", st, "--qrels", qrels, "--lead", "3", cwd=tmp_path)
    assert p.returncode == 2 and "--lead does not apply to --strategy tournament" in p.stderr
    assert not st.exists()
    assert _run("init", "--state", st, "--qrels", qrels, "--strategy", "adaptive", "--max-per-pair", "4",
                cwd=tmp_path).returncode == 0
    assert json.loads(st.read_text())["params"]["max_per_pair"] == 4
