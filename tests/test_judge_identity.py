"""What a judge is (j28's leftover): the model, its parameters, the prompt and the server's host and path -- not
the server's port. A local server restarted on another port is the same judge (its answers served, nothing asked
again); another host is another judge; a store written when names held the port is read as today's names, with
a warning, never as a second judge (pref_eval/judge/spec.py)."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from cli_harness import run_judge_inproc

pytest.importorskip("aiohttp")
pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parents[1]
TRUTH = {"q1": {"a": 1.0, "b": 0.0, "c": -1.0, "d": 0.5}}
PAIRS = [("q1", "a", "b"), ("q1", "c", "d"), ("q1", "b", "c"), ("q1", "d", "a")]


def zj(*args, cwd):
    return run_judge_inproc(*args, cwd=cwd)


def setup_files(tmp_path):
    (tmp_path / "q.tsv").write_text("q1\tQID=q1 question\n")
    (tmp_path / "d.tsv").write_text("".join(f"{d}\tDOC={d} text\n" for d in "abcd"))
    (tmp_path / "p.jsonl").write_text("".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b}) + "\n"
                                              for q, a, b in PAIRS))
    return ["p.jsonl", "--queries", "q.tsv", "--docs", "d.tsv", "--store", "s.sqlite"]


def port(url):
    return int(url.split(":")[2].split("/")[0])


def test_parse_spec_names():
    from pref_eval.judge.spec import identity, parse_spec

    assert parse_spec("openai:m@http://127.0.0.1:8000/v1,temperature=0.7,key=MY_KEY").name == \
        "openai:m@http://127.0.0.1/v1,temperature=0.7"
    assert parse_spec("openai:m@http://GPU1.lab:8001/v1").name == "openai:m@http://gpu1.lab/v1"
    assert parse_spec("openai:m@http://[::1]:9/v1").name == "openai:m@http://[::1]/v1"
    assert parse_spec("openai:gpt-4o").name == "openai:gpt-4o"
    assert parse_spec("openai:m@http://h:8000/v1,name=mine").name == "mine"
    assert identity("openai:m@http://127.0.0.1:8000/v1") == "openai:m@http://127.0.0.1/v1"  # a stored old name
    assert identity("cmd:python3 j.py") == "cmd:python3 j.py" and identity("mine") == "mine"


def test_restarted_on_another_port_is_the_same_judge(tmp_path, server):
    args = setup_files(tmp_path)
    s1, u1 = server(truth=TRUTH, seed=2)
    p = zj(*args, "--judge", f"openai:m0@{u1}", "-o", "one.jsonl", cwd=tmp_path)
    assert p.returncode == 0 and "4 requests sent" in p.stderr, p.stderr
    n1 = len(s1.received)
    s2, u2 = server(truth=TRUTH, seed=2)  # the same server, restarted on another port
    assert port(u2) != port(u1)
    p = zj(*args, "--judge", f"openai:m0@{u2}", "-o", "two.jsonl", cwd=tmp_path)
    assert p.returncode == 0 and "0 requests sent" in p.stderr and "4 served from the store" in p.stderr, p.stderr
    assert s2.received == [] and len(s1.received) == n1
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    assert json.loads((tmp_path / "two.jsonl").read_text().splitlines()[0])["judges"] == \
        ["openai:m0@http://127.0.0.1/v1"]
    # another host (or path, or temperature) is another judge: all asked anew
    for other in (u2.replace("127.0.0.1", "localhost"), u2 + "/", f"{u2},temperature=0.5"):
        p = zj(*args, "--judge", f"openai:m0@{other}", "--dry-run", cwd=tmp_path)
        assert p.returncode == 0 and "4 requests would be sent (0 served" in p.stdout + p.stderr, (other, p.stderr)


def test_a_store_of_names_with_the_port(tmp_path, server):
    """A store written before (judge names holding the port): its answers are this judge's, said in a warning;
    an answer stored under both names is read once (the first stored); export and zelo_agree see one judge."""
    args = setup_files(tmp_path)
    s1, u1 = server(truth=TRUTH, seed=2)
    p = zj(*args, "--judge", f"openai:m0@{u1}", "-o", "one.jsonl", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    old = f"openai:m0@{u1}"  # as session 20 stored it
    db = sqlite3.connect(tmp_path / "s.sqlite")
    db.execute("UPDATE answers SET judge = ?", (old,))
    # one question answered again later under today's name, with another vote: the first stored is read
    row = db.execute("SELECT * FROM answers WHERE qid = 'q1' AND doc_1 = 'a' AND doc_2 = 'b'").fetchone()
    db.execute("INSERT INTO answers VALUES (" + ",".join("?" * len(row)) + ")",
               ("openai:m0@http://127.0.0.1/v1", *row[1:6], -row[6], *row[7:15], row[15] + 100))
    db.commit()
    db.close()
    s2, u2 = server(truth=TRUTH, seed=2)
    p = zj(*args, "--judge", f"openai:m0@{u2}", "-o", "two.jsonl", cwd=tmp_path)
    assert p.returncode == 0 and "0 requests sent" in p.stderr and s2.received == [], p.stderr
    assert (f"warning: judge openai:m0@http://127.0.0.1/v1: the answers s.sqlite holds under its former name {old} "
            "are its own") in p.stderr, p.stderr
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()
    p = zj("export", "--store", "s.sqlite", "-o", "exp.jsonl", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    exp = [json.loads(x) for x in (tmp_path / "exp.jsonl").read_text().splitlines()]
    assert sorted((r["qid"], r["doc_a"], r["doc_b"], tuple(r["votes"]), tuple(r["judges"])) for r in exp) == sorted(
        (r["qid"], r["doc_a"], r["doc_b"], tuple(r["votes"]), tuple(r["judges"]))
        for r in map(json.loads, (tmp_path / "one.jsonl").read_text().splitlines()))
    p = zj("export", "--store", "s.sqlite", "--judge", f"openai:m0@{u2}", "-o", "exp2.jsonl", cwd=tmp_path)
    assert p.returncode == 0 and (tmp_path / "exp2.jsonl").read_bytes() == (tmp_path / "exp.jsonl").read_bytes()
