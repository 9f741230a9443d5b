"""zelo_judge on zbench's pairs.json / ai_scores.json judges the texts those files carry (each pair's ``query`` and
documents' ``content``: what zbench's judges were shown), with no --queries / --docs (b29 took the pairs only; the
texts had to come from zbench's dataset). Checked with the local stand-in OpenAI server (tests/fake_openai.py: it
answers from the QID=/DOC= markers it finds in the prompt, so an answer proves the texts were sent) and a cmd:
judge that records the texts it is given."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_harness import run_judge_inproc

pytest.importorskip("aiohttp")
pytest.importorskip("openai")

ROOT = Path(__file__).resolve().parents[1]


def zj(*args, cwd):
    return run_judge_inproc(*args, cwd=cwd)


def zbench_pairs(pairs, query=lambda q: f"QID={q} what is it?", content=lambda q, d: f"DOC={d} about {q}"):
    """zbench's DatasetPairs (zbench/common_types.py @ 7e9d787): pair_id, query_id, query, document_a/b with
    document_id, metadata, content."""
    doc = lambda q, d: {"document_id": d, "metadata": {"k": 1}, "content": content(q, d)}  # noqa: E731
    return {"pairs": [{"pair_id": f"{q}-{a}-{b}", "query_id": q, "query": query(q), "document_a": doc(q, a),
                       "document_b": doc(q, b)} for q, a, b in pairs]}


def scored(pj):
    """zbench's ai_scores.json of those pairs (DatasetPairScoredPairs)."""
    return {"scored_pairs": [{"pair": p, **{k: {"thought": "", "score": 0.5} for k in
                                            ("openai_score", "gemini_score", "anthropic_score")}}
                             for p in pj["pairs"]]}


PAIRS = [("q1", "a", "b"), ("q1", "c", "a"), ("q2", "x", "y"), ("q2", "a", "x"), ("one", "z", "z")]
TRUTH = {"q1": {"a": 1.0, "b": -0.5, "c": 0.3}, "q2": {"x": -1.0, "y": 2.0, "a": 0.0}}


@pytest.mark.parametrize("name", ["pairs.json", "ai_scores.json"])
def test_zbench_pairs_judged_with_their_own_texts(tmp_path, server, name):
    srv, url = server(truth=TRUTH, seed=5)
    pj = zbench_pairs(PAIRS)
    (tmp_path / name).write_text(json.dumps(pj if name == "pairs.json" else scored(pj), indent=4))
    p = zj(name, "--judge", f"openai:m0@{url}", "--store", "s.sqlite", "-o", "out.jsonl", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    want = [x for x in PAIRS if x[1] != x[2]]
    assert sorted(srv.received) == sorted(("m0", *x) for x in want)  # every prompt held the file's markers
    out = [json.loads(x) for x in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [(o["qid"], o["doc_a"], o["doc_b"]) for o in out] == want
    assert [o["votes"] for o in out] == [[srv.score("m0", *x)] for x in want]
    assert "pairs not sent (missing text)" not in p.stderr


def test_the_texts_are_zbench_s_exactly(tmp_path):
    """A cmd: judge records the query and documents it is asked about: the file's strings, byte for byte
    (accents, CJK, an emoji, a line break, per query: document a of q1 and of q2 are different texts)."""
    qtext = {"q1": "première question ✓", "q2": "二番目\nline two 😀"}
    ctext = {("q1", "a"): "A of q1", ("q1", "b"): "B ü", ("q1", "c"): "C", ("q2", "x"): "日本語",
             ("q2", "y"): "y\ty", ("q2", "a"): "A of q2 (another text than q1's a)"}
    pj = zbench_pairs(PAIRS[:4], query=qtext.get, content=lambda q, d: ctext[(q, d)])
    (tmp_path / "pairs.json").write_text(json.dumps(pj, ensure_ascii=False, indent=4), encoding="utf-8")
    (tmp_path / "rec.py").write_text(
        "import json, sys\nlog = open('seen.jsonl', 'a', encoding='utf-8')\nfor line in sys.stdin:\n"
        "    r = json.loads(line)\n    log.write(json.dumps([r['qid'], r['query'], r['docno_a'], r['doc_a'], "
        "r['docno_b'], r['doc_b']]) + '\\n')\n    log.flush()\n"
        "    print(json.dumps({'id': r['id'], 'score': 0.5}), flush=True)\n")
    p = zj("pairs.json", "--judge", f"cmd:{sys.executable} rec.py", "--store", "s.sqlite", "-o", "o.jsonl",
           cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    seen = [json.loads(x) for x in (tmp_path / "seen.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(map(tuple, seen)) == sorted((q, qtext[q], a, ctext[(q, a)], b, ctext[(q, b)])
                                              for q, a, b in PAIRS[:4])


def test_texts_given_twice(tmp_path):
    """--docs / --queries besides: the same texts are fine; another text for a document or query the pairs file
    carries is refused (one line, exit 2, nothing asked), as is a pairs file giving one document two texts."""
    pj = zbench_pairs(PAIRS[:4])
    (tmp_path / "pairs.json").write_text(json.dumps(pj, indent=2))
    (tmp_path / "judge.py").write_text("import json, sys\nfor l in sys.stdin:\n    r = json.loads(l)\n"
                                       "    print(json.dumps({'id': r['id'], 'score': 0.5}), flush=True)\n")
    judge = ["--judge", f"cmd:{sys.executable} judge.py", "--store", "s.sqlite"]
    same = "b\tDOC=b about q1\nc\tDOC=c about q1\ny\tDOC=y about q2\n"  # (a is in two queries, two texts)
    (tmp_path / "same.tsv").write_text(same)
    (tmp_path / "q.tsv").write_text("q1\tQID=q1 what is it?\nq2\tQID=q2 what is it?\nq9\tmore\n")
    p = zj("pairs.json", "--docs", "same.tsv", "--queries", "q.tsv", *judge, "-o", "o.jsonl", cwd=tmp_path)
    assert p.returncode == 0 and "4 requests sent" in p.stderr, p.stderr
    (tmp_path / "other.tsv").write_text(same.replace("DOC=b about q1", "DOC=b edited"))
    p = zj("pairs.json", "--docs", "other.tsv", *judge, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr == (
        "zelo_judge: pairs.json: document b of query q1: its text differs from the one in --docs other.tsv; expected "
        "the same text (zbench's pairs file carries the texts its judges were shown: leave --queries and --docs out "
        "to judge those)\n"), p.stderr
    (tmp_path / "oq.tsv").write_text("q2\tanother question\n")
    p = zj("pairs.json", "--queries", "oq.tsv", *judge, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr.startswith(
        "zelo_judge: pairs.json: query q2: its text differs from the one in --queries oq.tsv; "), p.stderr
    pj["pairs"][3]["document_b"]["content"] = "DOC=x changed"  # x of q2, first given in element 2
    (tmp_path / "twice.json").write_text(json.dumps(pj, indent=2))
    lines = json.dumps(pj, indent=2).split("\n")
    at = {pid: lines.index(f'      "pair_id": "{pid}",') for pid in ("q2-x-y", "q2-a-x")}  # = its "{" line, 1-based
    p = zj("twice.json", *judge, cwd=tmp_path)
    assert p.returncode == 2 and p.stderr == (
        f"zelo_judge: twice.json:{at['q2-a-x']}: document x of query q2 again with another text (first in element 2, "
        f"line {at['q2-x-y']}); expected each text once\n"), p.stderr
    assert not (tmp_path / "s.sqlite-wal").exists()


def test_pairs_without_texts_still_take_docs(tmp_path):
    """A zbench-shaped pairs file without ``query`` / ``content`` (hand-made): the texts come from --docs as
    before; with neither, the usual refusal (every pair lacks its text)."""
    pj = zbench_pairs(PAIRS[:2])
    for p in pj["pairs"]:
        del p["query"], p["document_a"]["content"], p["document_b"]["content"]
    (tmp_path / "pairs.json").write_text(json.dumps(pj))
    (tmp_path / "judge.py").write_text("import json, sys\nfor l in sys.stdin:\n    r = json.loads(l)\n"
                                       "    print(json.dumps({'id': r['id'], 'score': 0.5}), flush=True)\n")
    (tmp_path / "d.tsv").write_text("a\tA\nb\tB\nc\tC\n")
    (tmp_path / "q.tsv").write_text("q1\tQ\n")
    judge = ["--judge", f"cmd:{sys.executable} judge.py"]
    p = zj("pairs.json", "--docs", "d.tsv", "--queries", "q.tsv", *judge, "--store", "s.sqlite", cwd=tmp_path)
    assert p.returncode == 0 and "2 requests sent" in p.stderr, p.stderr
    p = zj("pairs.json", *judge, "--store", "t.sqlite", cwd=tmp_path)  # (--store given once: r36)
    assert p.returncode == 2 and "query text" in p.stderr, p.stderr
