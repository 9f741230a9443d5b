"""``zelo_judge -v`` (session 26): a line per request (outcome, seconds, each retry and its wait) and per batch on
stderr, never the key; ``-Q`` silences, ``-v -Q`` is refused. The stand-in server's fault plan (tests/fake_openai.py)
is the oracle of what each request met."""
from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("openai")
pytest.importorskip("aiohttp.web")

from test_judge_adversarial import KEY, zj  # noqa: E402

LINE = re.compile(r"^zelo_judge: (openai:m0@\S+) (q0) (q0d\d) (q0d\d): (.*) \((\d+\.\d\d) s\)$")
RETRY = re.compile(r"^zelo_judge: openai:m0@\S+ q0 (q0d\d) (q0d\d): (attempt .*; retry in .*)$")


def _collection(tmp_path):
    truth = {"q0": {"q0d0": 1.0, "q0d1": 0.0, "q0d2": -1.0}}
    (tmp_path / "q.tsv").write_text("q0\tQID=q0 a question\n")
    (tmp_path / "d.tsv").write_text("".join(f"{d}\tDOC={d} text\n" for d in truth["q0"]))
    pairs = [("q0d0", "q0d1"), ("q0d0", "q0d2"), ("q0d1", "q0d2")]
    (tmp_path / "p.jsonl").write_text("".join(json.dumps({"qid": "q0", "doc_a": a, "doc_b": b}) + "\n"
                                              for a, b in pairs))
    return truth, [tmp_path / "p.jsonl", "--queries", tmp_path / "q.tsv", "--docs", tmp_path / "d.tsv"]


def test_verbose_tells_each_request_its_retries_and_the_batch(tmp_path, server):
    truth, args = _collection(tmp_path)
    faults = {("m0", "q0", "q0d0", "q0d1"): ["429", "500"], ("m0", "q0", "q0d0", "q0d2"): ["garbage"],
              ("m0", "q0", "q0d1", "q0d2"): ["500", "500", "500"]}
    srv, url = server(truth=truth, faults=faults, api_key=KEY)
    base = [*args, "--judge", f"openai:m0@{url}", "--retries", 2, "--backoff", "0.01"]
    p = zj(*base, "--store", tmp_path / "s.sqlite", "-v")
    assert p.returncode == 0, p.stderr
    assert KEY not in p.stderr and KEY[:12] not in p.stderr
    lines = p.stderr.splitlines()
    assert lines[0] == "zelo_judge: batch of 3 pairs: 3 questions to ask", lines
    done = {m.group(3, 4): m.group(5) for m in map(LINE.match, lines) if m and "retry in" not in m.group(5)}
    assert set(done) == {("q0d0", "q0d1"), ("q0d0", "q0d2"), ("q0d1", "q0d2")}, lines
    assert re.fullmatch(r"vote -?0\.8 after 3 attempts", done["q0d0", "q0d1"]), done  # 429, 500, then the answer
    assert done["q0d0", "q0d2"].startswith("unparsable: "), done
    assert done["q0d1", "q0d2"] == "failed after 3 attempts: HTTP 500", done
    retries = [m.group(1, 2, 3) for m in map(RETRY.match, lines) if m]
    waits = [re.fullmatch(r"attempt (\d) failed after \d+\.\d\d s \((HTTP \d+)\); retry in (\d+\.\d\d) s", r[2])
             for r in retries]
    assert all(waits) and len(waits) == 4, retries  # two for the first pair, two for the third
    assert [(r[0], r[1], w.group(1), w.group(2)) for r, w in zip(retries, waits, strict=True)
            if r[:2] == ("q0d0", "q0d1")] == [("q0d0", "q0d1", "1", "HTTP 429"), ("q0d0", "q0d1", "2", "HTTP 500")]
    assert all(0.0 <= float(w.group(3)) <= 0.02 for w in waits)  # --backoff 0.01: min(60, 0.01·2^k)·U(½, 1)
    # without -v: none of these lines (the summary only); -Q: nothing; -v -Q: refused
    q = zj(*base, "--store", tmp_path / "t.sqlite")
    assert q.returncode == 0 and not any(LINE.match(ln) or "batch of" in ln for ln in q.stderr.splitlines())
    r = zj(*base, "--store", tmp_path / "u.sqlite", "-Q")
    assert (r.returncode, r.stderr) == (0, "")
    bad = zj(*base, "--store", tmp_path / "w.sqlite", "-v", "-Q")
    assert (bad.returncode, bad.stderr) == (2, "zelo_judge: -v/--verbose and -Q/--quiet: choose one (-Q silences "
                                                "every line on stderr)\n")
    assert not (tmp_path / "w.sqlite").exists()


def test_verbose_from_python_and_under_state(tmp_path, capsys):
    """``judge(log=Log(..., verbose=True))`` writes the same lines; under ``--state`` one batch line per batch and
    one request line per stored answer (a cmd: judge)."""
    import sqlite3
    import sys
    from pathlib import Path

    from click.testing import CliRunner

    from pref_eval.api import judge
    from pref_eval.cli.pairs import command
    from pref_eval.log import Log

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "g.qrels").write_text("".join(f"q0 0 q0d{j} {j % 3}\n" for j in range(12)))
    (tmp_path / "q.tsv").write_text("q0\tQID=q0 a question\n")
    (tmp_path / "d.tsv").write_text("".join(f"q0d{j}\tDOC=q0d{j} text\n" for j in range(12)))
    (tmp_path / "truth.txt").write_text("".join(f"q0 q0d{j} {j * 0.5}\n" for j in range(12)))
    res = CliRunner().invoke(command, ["init", "--state", str(tmp_path / "st.json"), "--qrels",
                                       str(tmp_path / "g.qrels"), "--seed", "1", "--strategy", "adaptive"],
                             catch_exceptions=False)
    assert res.exit_code == 0, res.output
    spec = f"cmd:{sys.executable} {root / 'tools' / 'toy_judge.py'} {tmp_path / 'truth.txt'} --seed 1"
    judge(state=str(tmp_path / "st.json"), queries=str(tmp_path / "q.tsv"), docs=str(tmp_path / "d.tsv"),
          judges=[spec], store=str(tmp_path / "s.sqlite"), log=Log("zelo_judge", verbose=True))
    err = capsys.readouterr().err.splitlines()
    batches = [ln for ln in err if re.fullmatch(r"zelo_judge: batch of \d+ pairs: \d+ questions to ask", ln)]
    request = re.compile(r"zelo_judge: cmd:\S.* q0 q0d\d+ q0d\d+.*: vote -?[\d.]+ \(\d+\.\d\d s\)")
    asked = [ln for ln in err if request.fullmatch(ln)]
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        n = db.execute("SELECT count(*) FROM answers").fetchone()[0]
    assert len(batches) >= 2 and len(asked) == n > 0, err
    judge(state=str(tmp_path / "st.json"), queries=str(tmp_path / "q.tsv"), docs=str(tmp_path / "d.tsv"),
          judges=[spec], store=str(tmp_path / "s.sqlite"), log=Log("zelo_judge", quiet=True, verbose=True))
    assert capsys.readouterr().err == ""  # quiet wins in the Log of a Python caller


def test_export_verbose_counts_what_it_writes(tmp_path, server):
    """``zelo_judge export -v`` (session 27; the run had -v, export had not): the prompt and, per judge, the votes
    written and how many of them are null -- counted here from the exported lines themselves (json), the stand-in's
    fault plan deciding which votes fail (one unparsable, one failed after its retries)."""
    truth, args = _collection(tmp_path)
    faults = {("m0", "q0", "q0d0", "q0d2"): ["garbage"], ("m0", "q0", "q0d1", "q0d2"): ["500", "500"]}
    srv, url = server(truth=truth, faults=faults, api_key=KEY)
    for model in ("m0", "m1"):
        p = zj(*args, "--judge", f"openai:{model}@{url}", "--retries", 1, "--backoff", "0.01",
               "--store", tmp_path / "s.sqlite", "-Q")
        assert p.returncode == 0, p.stderr
    e = zj("export", "--store", tmp_path / "s.sqlite", "-o", tmp_path / "all.jsonl", "-v")
    assert e.returncode == 0, e.stderr
    written: dict[str, list[int]] = {}
    for line in (tmp_path / "all.jsonl").read_text().splitlines():
        rec = json.loads(line)
        for name, vote in zip(rec["judges"], rec["votes"], strict=True):
            written.setdefault(name, [0, 0])
            written[name][0] += 1
            written[name][1] += vote is None
    n_lines = len((tmp_path / "all.jsonl").read_text().splitlines())
    assert sorted(written.values()) == [[3, 0], [3, 2]] and written[min(written)] == [3, 2], written  # m0 < m1
    want = [f"zelo_judge: prompt {{}} (the default prompt): {n_lines} lines",
            *(f"zelo_judge: {name}: {t} votes written, {z} of them null (failed or unparsable)"
              for name, (t, z) in sorted(written.items())),
            f"zelo_judge: {n_lines} pairs exported"]
    got = e.stderr.splitlines()
    assert re.fullmatch(r"zelo_judge: prompt ([0-9a-f]{12}) \(the default prompt\): \d+ lines", got[0]), got
    assert got == [want[0].format(got[0].split()[2]), *want[1:]], got
    plain = zj("export", "--store", tmp_path / "s.sqlite", "-o", tmp_path / "plain.jsonl")
    assert plain.stderr.splitlines() == [want[-1]]  # without -v: the count only
    assert (tmp_path / "plain.jsonl").read_bytes() == (tmp_path / "all.jsonl").read_bytes()  # -v changes no byte
    bad = zj("export", "--store", tmp_path / "s.sqlite", "-v", "-Q")
    assert (bad.returncode, bad.stderr) == (2, "zelo_judge: -v/--verbose and -Q/--quiet: choose one (-Q silences "
                                                "every line on stderr)\n")
