"""A zbench user's first contact: zbench's own files and flow through pref_eval's commands.

The live checks run zbench itself (tests/zbench_live.py: its code from the mirror, in a scratch folder, a local
judge for its LLM calls) and are marked slow; the others are hand-worked.
"""
from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

import zbench_live as zl
from cli_harness import run_module_inproc


def cli(module, *args, cwd=".", **kw):
    r = run_module_inproc(module, [str(a) for a in args], cwd=cwd, **kw)
    assert "Traceback" not in r.stderr, r.stderr
    return r


def annotated(path: Path, queries: dict[str, dict[str, float]]) -> Path:
    """zbench AnnotatedQueryDocuments JSONL, as zbench writes it (compact, unicode unescaped)."""
    with open(path, "w", encoding="utf-8") as fh:
        for q, docs in queries.items():
            fh.write(json.dumps({"query": {"id": q, "query": "t"},
                                 "documents": [{"id": d, "content": "c", "metadata": {}, "score": s}
                                               for d, s in docs.items()]},
                                separators=(",", ":"), ensure_ascii=False) + "\n")
    return path


def values(stdout: str) -> dict[tuple[str, str], float]:
    return {(o["qid"], o["measure"]): o["value"] for o in map(json.loads, stdout.splitlines())}


def test_eval_takes_zbench_annotated_files_hand_worked(tmp_path):
    """zbench's step 2 ("benchmark a reranker against zELO") with zbench's own files: the zELO ground truth and the
    reranker's output are both AnnotatedQueryDocuments JSONL. Before, zelo_eval -R refused the ground truth
    ('expected 4 fields qid iter docno rel, found 19 fields') and the run ('score '"query' is not a number')."""
    ln2, ln3 = math.log(2), math.log(3)
    gt = annotated(tmp_path / "zelo.jsonl", {"q é": {"d a": ln3, "d b": ln2, "日本": 0.0}, "q2": {"x": 1.0}})
    run = annotated(tmp_path / "rerank.jsonl", {"q é": {"d a": 0.1, "d b": 0.9, "日本": 0.5}})
    r = cli("eval", "-R", gt, run, "-o", "jsonl", "-q", "-m", "zndcg", "-m", "zacc", "-m", "zrecall@1",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = values(r.stdout)
    # run order: d b (gain 2), 日本 (1), d a (3); ideal 3, 2, 1; discounts 1, 1/log2 3, 1/2
    d = [1.0, 1 / math.log2(3), 0.5]
    assert got[("q é", "zndcg")] == pytest.approx((2 * d[0] + 1 * d[1] + 3 * d[2]) / (3 * d[0] + 2 * d[1] + d[2]),
                                                  rel=1e-12)
    assert got[("q é", "zacc")] == pytest.approx(1 / 3)  # only (d b, 日本) is ordered as zELO orders it
    assert got[("q é", "zrecall@1")] == 0.0
    assert ("q2", "zndcg") not in got  # a ground-truth query the run lacks is skipped, as zbench ignores it
    # the same numbers as the score TSV and the TREC run that hold them
    tsv, trec = tmp_path / "zelo.tsv", tmp_path / "rerank.run"
    tsv.write_text("qid\tdocno\tscore\tse\n" + f"qé\tda\t{ln3!r}\tnan\nqé\tdb\t{ln2!r}\tnan\nqé\tjp\t0.0\tnan\n")
    trec.write_text("qé Q0 da 3 0.1 r\nqé Q0 db 1 0.9 r\nqé Q0 jp 2 0.5 r\n")
    r2 = cli("eval", "-R", tsv, trec, "-o", "jsonl", "-q", "-m", "zndcg", "-m", "zacc", "-m", "zrecall@1",
             cwd=tmp_path)
    other = values(r2.stdout)
    assert [other[("qé", m)] for m in ("zndcg", "zacc", "zrecall@1")] == \
        [got[("q é", m)] for m in ("zndcg", "zacc", "zrecall@1")]
    # and a TSV ground truth with a zbench-format run, a zbench ground truth with a TREC run
    run_zb = annotated(tmp_path / "rerank2.jsonl", {"qé": {"da": 0.1, "db": 0.9, "jp": 0.5}})
    gt_zb = annotated(tmp_path / "zelo2.jsonl", {"qé": {"da": ln3, "db": ln2, "jp": 0.0}})
    for g, rr in ((tsv, run_zb), (gt_zb, trec)):
        r3 = cli("eval", "-R", g, rr, "-o", "jsonl", "-q", "-m", "zndcg", "-m", "zacc", "-m", "zrecall@1",
                 cwd=tmp_path)
        assert values(r3.stdout) == other, r3.stderr


@pytest.mark.parametrize("which, line, message", [
    ("gt", '{"query":{"id":"q","query":"t"},"documents":[{"id":"a","content":"c","score":NaN}]}',
     'zelo.jsonl:2: expected {"query": {"id": ...}, "documents": [{"id": ..., "score": a finite number}'),
    ("gt", '{"query":{"id":"q0","query":"t"},"documents":[{"id":"a","content":"c","score":1}]}',
     "zelo.jsonl:2: query 'q0' again (first on line 1); give each query once"),
    ("run", '{"query":{"id":"q","query":"t"},"documents":[{"id":"a","content":"c"}]}',
     'r.jsonl:2: expected {"query": {"id": ...}, "documents": [{"id": ..., "score": a finite number}'),
    ("run", '{"query":{"id":"q","query":"t"},"documents":[{"id":"a","score":1},{"id":"a","score":2}]}',
     "r.jsonl:2: document 'a' listed twice for query 'q'"),
])
def test_eval_zbench_annotated_bad_lines_name_file_and_line(tmp_path, which, line, message):
    first = '{"query":{"id":"q0","query":"t"},"documents":[{"id":"a","content":"c","score":0.5}]}\n'
    (tmp_path / "zelo.jsonl").write_text(first + (line + "\n" if which == "gt" else ""))
    (tmp_path / "r.jsonl").write_text(first + (line + "\n" if which == "run" else ""))
    r = cli("eval", "-R", "zelo.jsonl", "r.jsonl", cwd=tmp_path)
    assert r.returncode == 2 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith(f"zelo_eval: {message}"), r.stderr


def test_judge_takes_zbench_pairs_json_and_ai_scores(tmp_path):
    """zbench's pairs.json (step 2) and ai_scores.json (step 3) as zelo_judge's PAIRS: the same pairs in the same
    order; zbench's self-pair of a one-document query is left out with a warning. Before: 'expected a JSON object
    per line'."""
    doc = lambda d: {"document_id": d, "metadata": {}, "content": f"text {d}"}  # noqa: E731
    pairs = [("q 1", "a", "b"), ("q 1", "b", "a"), ("q 1", "ü", "a"), ("one", "z", "z"), ("q 1", "a", "ü")]
    pj = {"pairs": [{"pair_id": f"{q}-{a}-{b}", "query_id": q, "query": "t", "document_a": doc(a),
                     "document_b": doc(b)} for q, a, b in pairs]}
    (tmp_path / "pairs.json").write_text(json.dumps(pj, indent=4, ensure_ascii=False))
    sc = {"scored_pairs": [{"pair": p, **{k: {"thought": "", "score": 0.5} for k in
                                          ("openai_score", "gemini_score", "anthropic_score")}} for p in pj["pairs"]]}
    (tmp_path / "ai_scores.json").write_text(json.dumps(sc, indent=4))
    ds = tmp_path / "ds.jsonl"
    zl.write_dataset(ds, {"q 1": ["a", "b", "ü"], "one": ["z"]})
    (tmp_path / "judge.py").write_text("import json, sys\nfor l in sys.stdin:\n    r = json.loads(l)\n"
                                       "    print(json.dumps({'id': r['id'], 'score': 0.5}), flush=True)\n")
    want = [p for p in pairs if p[1] != p[2]]
    for name in ("pairs.json", "ai_scores.json"):
        r = cli("judge", name, "--judge", f"cmd:{sys.executable} judge.py", "--store",
                f"{name}.sqlite", "-o", f"{name}.out", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        got = [tuple(o[k] for k in ("qid", "doc_a", "doc_b")) for o in
               map(json.loads, (tmp_path / f"{name}.out").read_text().splitlines())]
        assert got == want
        assert f"{name}: left out 1 pair(s) of a document with itself (first: one z z;" in r.stderr
    (tmp_path / "bad.json").write_text('{"pairs": [\n  {"query_id": "q"},\n  {"query_id": "q"}\n]}')
    r = cli("judge", "bad.json", "--docs", ds, "--judge", f"cmd:{sys.executable} judge.py", "--store", "b.sqlite",
            cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("zelo_judge: bad.json:2: pairs[0]: expected query_id, "), \
        r.stderr


def test_pairs_compat_self_pairs_warned_and_judge_says_why(tmp_path):
    """zelo_pairs --compat zbench writes zbench's self-pairs of a one-document query (zbench's pairs exactly);
    zelo_judge refuses them: zelo_pairs now says so, and zelo_judge's refusal says what they are."""
    ds = tmp_path / "ds.jsonl"
    zl.write_dataset(ds, {"q": ["a", "b", "c"], "one": ["z"]})
    r = cli("pairs", "cycles", "--dataset", ds, "--compat", "zbench", "--seed", "3", "-o", "p.jsonl", cwd=tmp_path)
    assert r.returncode == 0
    assert "4 pair(s) of a document with itself (first: one z z)" in r.stderr
    line = 1 + [json.loads(x)["qid"] for x in (tmp_path / "p.jsonl").read_text().splitlines()].index("one")
    (tmp_path / "judge.py").write_text("")
    r = cli("judge", "p.jsonl", "--docs", ds, "--judge", f"cmd:{sys.executable} judge.py", "--store", "s.sqlite",
            cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr.startswith(f"zelo_judge: p.jsonl:{line}: pair of document z with itself (expected two different "
                               "documents; zbench's self-pair of a one-document query"), r.stderr


# ------------------------------------------------------------------------------------------ zbench, run live
QUERIES = {
    **{f"q{k}": [f"d{j:03d}" for j in range(n)] for k, n in enumerate([17, 24, 12])},
    "q space": ["doc a", "doc b", "doc c", "doc d", "doc e"],
    "qü": ["dé1", "dé2", "日本", "d😀", "d5", "d6"],
    "q2doc": ["x", "y"],
    "q3doc": ["x", "y", "z"],
    "q1doc": ["only"],
}


@pytest.mark.slow
def test_zbench_flow_live(tmp_path):
    """zbench's annotation (steps 1-4, seed 7, 4 cycles) and benchmark functions, run live, against
    zelo_pairs cycles --compat zbench, zelo_judge (three cmd: judges asking zbench's judge function),
    zelo_fit --compat zbench --output-format zbench and zelo_eval -R on zbench's own files: the same pairs, votes,
    bytes, and measure values where the definitions agree (docs/differences-zelo.md)."""
    root = zl.zbench_or_skip(tmp_path / "zb")
    ds = tmp_path / "ds.jsonl"
    zl.write_dataset(ds, QUERIES)
    zl.run(root, zl.ANNOTATE, str(ds), str(tmp_path / "zb_annotated.jsonl"), "7", "4", "None", cwd=tmp_path)
    work = tmp_path / "data" / "annotation" / "ds"
    zb_pairs = [(p["query_id"], p["document_a"]["document_id"], p["document_b"]["document_id"])
                for p in json.loads((work / "pairs.json").read_text())["pairs"]]
    assert len(zb_pairs) == 4 * sum(map(len, QUERIES.values())) == 280  # docs/differences-zelo.md
    # pairs
    r = cli("pairs", "cycles", "--dataset", ds, "--compat", "zbench", "--seed", "7", "-o", "p.jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    ours = [(o["qid"], o["doc_a"], o["doc_b"])
            for o in map(json.loads, (tmp_path / "p.jsonl").read_text().splitlines())]
    assert ours == zb_pairs
    # votes: zelo_judge on zbench's pairs.json, with the texts it carries (no --docs: session 21)
    judge = zl.write_judge(tmp_path)
    judges = [f"--judge=cmd:{sys.executable} {judge} {m}" for m in ("openai", "anthropic", "google")]
    r = cli("judge", work / "pairs.json", *judges, "--store", "s.sqlite", "-o", "j.jsonl", "-Q",
            cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    mine = [(o["qid"], o["doc_a"], o["doc_b"], o["votes"]) for o in
            map(json.loads, (tmp_path / "j.jsonl").read_text().splitlines())]
    theirs = [(p["pair"]["query_id"], p["pair"]["document_a"]["document_id"], p["pair"]["document_b"]["document_id"],
               [p[k]["score"] for k in ("openai_score", "anthropic_score", "gemini_score")])
              for p in json.loads((work / "ai_scores.json").read_text())["scored_pairs"]]
    theirs = [t for t in theirs if t[1] != t[2]]
    assert mine == theirs and len(mine) == 276  # the 4 self-pairs left out (docs/differences-zelo.md)
    assert sum(v == 0 for t in theirs for v in t[3]) > 0  # ties among the votes
    # the fit: from our judgments and from zbench's ai_scores.json, zbench's bytes
    want = (tmp_path / "zb_annotated.jsonl").read_bytes()
    for js in ("j.jsonl", work / "ai_scores.json"):
        r = cli("fit", "-J", js, "--dataset", ds, "--compat", "zbench", "--output-format", "zbench", "-o", "f.jsonl",
                "-Q", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert (tmp_path / "f.jsonl").read_bytes() == want
    # zbench's benchmark of a reranker file (tie-free scores) against its annotation, and zelo_eval -R on both files
    run = tmp_path / "rerank.jsonl"
    with open(ds, encoding="utf-8") as fh, open(run, "w", encoding="utf-8") as out:
        for line in fh:
            rec = json.loads(line)
            for d in rec["documents"]:
                d["score"] = d["metadata"]["first_stage_score"]
            if rec["query"]["id"] != "q1doc":  # zbench's accuracy divides by zero on a one-document query
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
    qids = [json.loads(x)["query"]["id"] for x in run.read_text(encoding="utf-8").splitlines()]
    counts = {"ndcg": 0, "acc": 0, "recall": 0}
    for lim in (None, 10, 5):
        zb = json.loads(zl.run(root, zl.BENCH, str(run), str(tmp_path / "zb_annotated.jsonl"), str(lim)))
        args = ["-R", "zb_annotated.jsonl", run, "-o", "jsonl", "-q", "-m", "zndcg", "-m", "zacc", "-m", "zrecall@5",
                "-m", "zrecall@3,5"] + (["-M", str(lim)] if lim else [])
        r = cli("eval", *args, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        got = values(r.stdout)
        for i, q in enumerate(qids):
            n = min(len(QUERIES[q]), lim or 99)
            assert got[(q, "zndcg")] == pytest.approx(zb["ndcg"][i], rel=1e-13, abs=0)
            assert got[(q, "zacc")] == pytest.approx(zb["acc"][i], rel=1e-13, abs=0)
            counts["ndcg"] += 1
            counts["acc"] += 1
            for m, key in (("zrecall@5", "recall_5_None"), ("zrecall@3,5", "recall_3_5")):
                if n >= 5:  # zbench divides by k_gt even when fewer documents exist; we by min(k_gt, n)
                    assert got[(q, m)] == zb[key][i]
                    counts["recall"] += 1
                else:
                    assert got[(q, m)] == pytest.approx(zb[key][i] * 5 / n)
    assert counts == {"ndcg": 21, "acc": 21, "recall": 30}, counts
    assert np.isfinite([v for v in got.values()]).all()


def test_fit_nan_vote_in_ai_scores_says_why(tmp_path):
    """A NaN model score in ai_scores.json: zbench's own files cannot hold one (pydantic writes NaN as null, which
    its reader then refuses: checked here with pydantic), so it is refused, now saying what it is rather than
    'expected ... numbers (problem: openai_score)'."""
    from pydantic import BaseModel

    class Score(BaseModel):
        score: float

    assert Score(score=float("nan")).model_dump_json() == '{"score":null}'
    with pytest.raises(ValueError):
        Score.model_validate_json('{"score": null}')
    pair = {"pair_id": "q-a-b", "query_id": "q", "query": "t",
            "document_a": {"document_id": "a", "metadata": {}, "content": "x"},
            "document_b": {"document_id": "b", "metadata": {}, "content": "y"}}
    sp = [{"pair": pair, **{k: {"thought": "", "score": s} for k, s in
                            (("openai_score", 0.5), ("gemini_score", -0.5), ("anthropic_score", 0.0))}}] * 2
    sp = json.loads(json.dumps(sp))
    sp[1]["gemini_score"]["score"] = float("nan")
    (tmp_path / "ai_scores.json").write_text(json.dumps({"scored_pairs": sp}, indent=4))
    lines = (tmp_path / "ai_scores.json").read_text().splitlines()
    line = 1 + [i for i, x in enumerate(lines) if x == "        {"][1]  # where scored_pairs[1] starts
    r = cli("fit", "-J", "ai_scores.json", cwd=tmp_path)
    assert r.returncode == 2
    assert r.stderr == (f"zelo_fit: ai_scores.json:{line}: scored_pairs[1]: gemini_score.score is NaN, not a vote "
                        "(a tie or a failed call is 0.0 in zbench's files)\n")


def test_eval_run_id_tag_of_a_zbench_run_says_why(tmp_path):
    """--run-id tag reads a TREC run's 6th column; a zbench-format run has none. Before: "score '"query' is not a
    number"."""
    annotated(tmp_path / "zelo.jsonl", {"q": {"a": 1.0, "b": 0.0}})
    annotated(tmp_path / "r.jsonl", {"q": {"a": 0.0, "b": 1.0}})
    r = cli("eval", "-R", "zelo.jsonl", "--run-id", "tag", "r.jsonl", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr == ("zelo_eval: --run-id tag: r.jsonl is zbench JSONL, which names no run; "
                                              "use --run-id path (the default) or --name RUN=LABEL\n")
    r = cli("eval", "-R", "zelo.jsonl", "--name", "r.jsonl=zerank", "-m", "zacc", "r.jsonl", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.split() == ["runid", "all", "zerank", "zacc", "all", "0.0000"]


@pytest.mark.slow
def test_zbench_position_bias_from_swapped_marks_live(tmp_path):
    """zbench shows each model the two documents in a random order and marks the thought "(SWAPPED)" when B came
    first. zelo_agree's position_bias of an ai_scores.json now reads those marks (before: every vote was taken as
    asked A first, so only pairs the file lists in both orientations counted: 139 of the 759 decisive votes
    here). Oracle: the share computed by hand from zbench's file, whose judge favours the document shown first."""
    root = zl.zbench_or_skip(tmp_path / "zb")
    ds = tmp_path / "ds.jsonl"
    zl.write_dataset(ds, {f"q{k}": [f"d{j}" for j in range(20)] for k in range(4)})
    zl.run(root, zl.ANNOTATE, str(ds), str(tmp_path / "zb.jsonl"), "3", "4", "None", "0.35", cwd=tmp_path)
    path = tmp_path / "data" / "annotation" / "ds" / "ai_scores.json"
    sp = json.loads(path.read_text())["scored_pairs"]
    votes = []  # (query, unordered pair, shown first, winner or None)
    for x in sp:
        q, a, b = x["pair"]["query_id"], x["pair"]["document_a"]["document_id"], x["pair"]["document_b"]["document_id"]
        for m in ("openai_score", "anthropic_score", "gemini_score"):
            s, swapped = x[m]["score"], x[m]["thought"].startswith("(SWAPPED)")
            votes.append((q, frozenset((a, b)), b if swapped else a, None if s == 0 else (b if s > 0 else a)))
    firsts: dict = {}
    for q, pair, first, _ in votes:
        firsts.setdefault((q, pair), set()).add(first)
    decisive = [(first, w) for q, pair, first, w in votes if w is not None and len(firsts[(q, pair)]) == 2]
    want = sum(first == w for first, w in decisive) / len(decisive)
    (tmp_path / "copy.json").write_bytes(path.read_bytes())
    r = cli("agree", "-J", path, "-J", "copy.json", "-o", "jsonl", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = [o for o in map(json.loads, r.stdout.splitlines()) if o["statistic"] == "position_bias"]
    assert got[0]["n"] == len(decisive) > 600
    assert got[0]["value"] == pytest.approx(want, rel=1e-12) and want > 0.6
