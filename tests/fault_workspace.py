"""A small workspace with one valid file of every input kind, and one valid
invocation per command and sub-command (the fault and fuzz tests start from these).

Inputs are the repository's sample data (qrels/, runs/, judgments/,
tests/data/) cut to a few topics so each command runs in well under a second;
derived inputs (preference lines, per-query tables, score files, a tournament
state, an adaptive state) are written by the commands themselves.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from cli_harness import ROOT, run_inproc

TOPICS = 3


def _first_topics(src: Path, dst: Path, n: int = TOPICS) -> None:
    keep: list[str] = []
    out = []
    for line in src.read_text().splitlines():
        q = line.split()[0]
        if q not in keep:
            if len(keep) == n:
                continue
            keep.append(q)
        out.append(line)
    dst.write_text("\n".join(out) + "\n")


def build(ws: Path) -> Path:
    ws.mkdir(parents=True, exist_ok=True)
    _first_topics(ROOT / "qrels/dl19-sample.qrels", ws / "q.qrels")
    for name in ("bm25", "dense", "rerank"):
        _first_topics(ROOT / f"runs/{name}.run", ws / f"{name}.run")
    _first_topics(ROOT / "judgments/dl19-sample.judge", ws / "j.judge")
    zb = ROOT / "tests/data/zelo/zbench/case_small"
    shutil.copy(zb / "dataset.jsonl", ws / "dataset.jsonl")
    shutil.copy(zb / "ai_scores.json.gz", ws / "zb_scores.json.gz")
    # zbench's annotated JSON lines and two rerankers' files in its format (zelo_eval -R ANN RERANKER...)
    pool = ROOT / "tests/data/zelo/zbench/case_dl19pool"
    shutil.copy(pool / "zbench_annotated.jsonl", ws / "ann.jsonl")
    shutil.copy(pool / "rerank_dense.jsonl", ws / "rd.jsonl")
    shutil.copy(pool / "rerank_rerank.jsonl", ws / "rr.jsonl")
    shutil.copy(ROOT / "tests/data/stats/order_a.tsv", ws / "order_a.tsv")
    shutil.copy(ROOT / "tests/data/stats/order_b.txt", ws / "order_b.txt")
    shutil.copy(ROOT / "judgments/dl21-crowd-sample.txt", ws / "crowd.txt")
    shutil.copy(ROOT / "judgments/dl21-gpt4o-sample.human", ws / "gpt.human")
    run_lines = (ws / "bm25.run").read_text().split("\n")
    (ws / "docs.tsv").write_text("".join(sorted({f"{x.split()[2]}\tdocument {x.split()[2]}\n"
                                                 for x in run_lines if x})))
    (ws / "queries.tsv").write_text("".join(sorted({f"{x.split()[0]}\tquery {x.split()[0]}\n"
                                                    for x in run_lines if x})))
    (ws / "matrix.txt").write_text("0.5 0.8 0.9\n0.2 0.5 0.7\n0.1 0.3 0.5\n")
    (ws / "docs.txt").write_text("q1 d1\nq1 d2\nq1 d3\nq1 d4\n")
    (ws / "groups.txt").write_text("# run tag, group (zelo_pairs pool --groups)\nbm25 lab\ndense lab\nrerank other\n")
    # the submission records as a spreadsheet exports them (zelo_eval --run-types; --groups reads them too)
    (ws / "types.csv").write_text('Run tag,Group,Run type\nbm25,lab,automatic\ndense,"lab, two",automatic\n'
                                  "rerank,other,manual\n")
    # a JSON-lines judgment file (zelo_fit's own format)
    (ws / "j.jsonl").write_text('{"qid": "q1", "doc_a": "d1", "doc_b": "d2", "score": 1}\n'
                                '{"qid": "q1", "doc_a": "d2", "doc_b": "d3", "score": 0.5}\n'
                                '{"qid": "q1", "doc_a": "d1", "doc_b": "d3", "score": 0}\n')
    # zelo_judge: texts, a stand-in judge program (answers from the docno) and pairs
    (ws / "jq.tsv").write_text("q1\tfirst query\n")
    (ws / "jd.tsv").write_text("".join(f"d{i}\ttext {i}\n" for i in range(1, 5)))
    # answers to the first round of rs.json (seed 0, a matching of q1's four documents: the pairs below),
    # every pair in both orders so that whichever orientation was asked is answered (the other is ignored)
    (ws / "rs-round1.jsonl").write_text("".join(
        f'{{"qid": "q1", "doc_a": "{a}", "doc_b": "{b}", "score": {1 if a > b else 0}}}\n'
        for a in ("d1", "d2", "d3", "d4") for b in ("d1", "d2", "d3", "d4") if a < b))
    (ws / "judge.py").write_text("import json, sys\nfor line in sys.stdin:\n    r = json.loads(line)\n"
                                 "    print(json.dumps({'score': 0.5 if r['docno_b'] > r['docno_a'] else -0.5}), "
                                 "flush=True)\n")
    # zbench's pairs.json of q1's documents with their texts (zelo_judge judges those; session 21, j30)
    doc = lambda d: {"document_id": d, "metadata": {}, "content": f"text {d[1:]}"}  # noqa: E731
    (ws / "zbp.json").write_text(json.dumps({"pairs": [
        {"pair_id": f"q1-{a}-{b}", "query_id": "q1", "query": "first query", "document_a": doc(a),
         "document_b": doc(b)} for a, b in (("d1", "d2"), ("d3", "d1"), ("d2", "d4"), ("d4", "d3"))]}, indent=4))
    (ws / "jg.qrels").write_text("q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 1\nq1 0 d4 3\n")  # the judged documents' grades
    derived = [
        ("zelo_eval", ["-R", "q.qrels", "-q", "-o", "pref", "--output", "prefs.jsonl", "bm25.run", "dense.run",
                       "rerank.run"]),
        ("zelo_eval", ["-R", "q.qrels", "-q", "-m", "map", "-m", "ndcg_cut_10", "-o", "tsv", "--output", "pq.tsv",
                       "bm25.run", "dense.run", "rerank.run"]),
        ("zelo_compare", ["-P", "pq.tsv", "--tests", "t", "-o", "jsonl", "--output", "cmp.jsonl"]),
        ("zelo_fit", ["-J", "j.judge", "-Q", "-o", "scores.tsv"]),
        ("zelo_pairs", ["init", "--state", "s.json", "--qrels", "q.qrels"]),
        ("zelo_pairs", ["cycles", "--docs", "docs.txt", "--cycles", "2", "-Q", "-o", "pairs.jsonl"]),
        ("zelo_judge", ["pairs.jsonl", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge", JUDGE,
                        "--store", "judge.sqlite", "-Q", "-o", "judged.jsonl"]),
        # an adaptive state (as.json), and its twin driven to the end by zelo_judge: every answer
        # that as.json will ask for (repeated pairs included) is then in judge.sqlite
        ("zelo_pairs", ["init", "--state", "as.json", "--qrels", "jg.qrels", "--strategy", "adaptive"]),
        # a whole-ranking state (rs.json), one round judged
        ("zelo_pairs", ["init", "--state", "rs.json", "--strategy", "adaptive", "--goal", "ranking", "--docs",
                        "docs.txt", "--cycles", "1"]),
        ("zelo_pairs", ["add", "--state", "rs.json", "-J", "rs-round1.jsonl", "-Q"]),
        ("zelo_pairs", ["init", "--state", "as-done.json", "--qrels", "jg.qrels", "--strategy", "adaptive"]),
        ("zelo_judge", ["--state", "as-done.json", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge", JUDGE,
                        "--store", "judge.sqlite", "-Q"]),
    ]
    for script, argv in derived:
        res = run_inproc(script, argv, ws)
        if res.returncode != 0:
            raise RuntimeError(f"workspace: {script} {argv}: {res.stderr}")
    return ws


# One valid invocation per command / sub-command; OUT marks the output file option value.
OUT = "{OUT}"
JUDGE = f"cmd:{sys.executable} judge.py"
VALID: dict[str, tuple[str, list[str]]] = {
    "trec": ("zelo_trec", ["-m", "map", "q.qrels", "bm25.run"]),
    "eval": ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-o", "tsv", "--output", OUT, "bm25.run"]),
    "eval-pref": ("zelo_eval", ["-R", "q.qrels", "--output", OUT, "bm25.run", "dense.run"]),
    # session 21 (k30): a track's batch: a bad run left out (none here), per-topic min / median / max, the pool
    "eval-keep-going": ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-c", "--keep-going", "-o", "tsv", "--output", OUT,
                                      "bm25.run", "dense.run"]),
    "eval-topics": ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-m", "P@5", "-c", "-o", "topics", "--output", OUT,
                                  "bm25.run", "dense.run", "rerank.run"]),
    # session 22 (k31): the per-topic table as JSON lines, the pool with its contributions report beside it
    "eval-topics-jsonl": ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-o", "topics-jsonl", "--output", OUT,
                                        "bm25.run", "dense.run"]),
    # session 23 (k32): the per-topic table to read (LaTeX), the pool's contributions per group
    "eval-topics-latex": ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-o", "topics-latex", "--digits", "3",
                                        "--output", OUT, "bm25.run", "dense.run"]),
    # session 24 (k33): the per-topic table per run type, with quartiles
    "eval-topics-types": ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-o", "topics-csv", "--run-types", "types.csv",
                                        "--quartiles", "--output", OUT, "bm25.run", "dense.run", "rerank.run"]),
    # session 25 (k35): CLEF's per-topic statistics (a JSON lines table: std null on a one-run row)
    "eval-topics-clef": ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-o", "topics-jsonl", "--run-types", "types.csv",
                                       "--clef-stats", "--output", OUT, "bm25.run", "dense.run", "rerank.run"]),
    "pairs-pool-contributions": ("zelo_pairs", ["pool", "--depth", "5", "--qrels", "q.qrels", "-Q",
                                                "--contributions", "contrib.tsv", "-o", OUT, "bm25.run", "dense.run"]),
    "aggregate": ("pref_aggregate", ["-P", "prefs.jsonl", "--output", OUT]),
    "fit": ("zelo_fit", ["-J", "j.judge", "-Q", "-o", OUT]),
    "fit-jsonl": ("zelo_fit", ["-J", "j.jsonl", "-Q", "-o", OUT]),
    "pairs-cycles": ("zelo_pairs", ["cycles", "--run", "bm25.run", "--depth", "5", "--seed", "1", "-Q",
                                    "-o", OUT]),
    "pairs-pool": ("zelo_pairs", ["pool", "--depth", "5", "--qrels", "q.qrels", "-Q", "-o", OUT, "bm25.run",
                                  "dense.run"]),
    "pairs-docs": ("zelo_pairs", ["cycles", "--docs", "docs.txt", "--cycles", "2", "-Q", "-o", OUT]),
    "pairs-dataset": ("zelo_pairs", ["cycles", "--dataset", "dataset.jsonl", "-Q", "-o", OUT]),
    "pairs-next": ("zelo_pairs", ["next", "--state", "s.json", "-o", OUT]),
    "pairs-next-ranking": ("zelo_pairs", ["next", "--state", "rs.json", "-o", OUT]),
    "pairs-status": ("zelo_pairs", ["status", "--state", "rs.json", "-o", OUT]),
    "pairs-result": ("zelo_pairs", ["result", "--state", "as-done.json", "-o", OUT]),
    "pairs-result-qrels": ("zelo_pairs", ["result", "--state", "as-done.json", "--qrels", "jg.qrels", "-o", OUT]),
    "simulate-tournament": ("zelo_simulate", ["tournament", "--matrix", "matrix.txt", "--reps", "3", "-Q",
                                              "-o", OUT]),
    "simulate-recovery": ("zelo_simulate", ["recovery", "--K", "5", "--sigma", "1", "--cycles", "2",
                                            "--trials", "2", "-Q", "-o", OUT]),
    "simulate-bandit": ("zelo_simulate", ["bandit", "--algorithm", "round-efficient", "--matrix", "matrix.txt",
                                          "--reps", "3", "-Q", "-o", OUT]),
    "simulate-adaptive": ("zelo_simulate", ["adaptive", "--matrix", "matrix.txt", "--reps", "2", "-Q", "-o", OUT]),
    "simulate-figure3": ("zelo_simulate", ["figure3", "--reps", "1", "--algorithms", "round-efficient",
                                           "-Q", "-o", OUT]),
    "compare-R": ("zelo_compare", ["-R", "q.qrels", "-m", "map", "--tests", "t", "--output", OUT,
                                   "bm25.run", "dense.run"]),
    "compare-P": ("zelo_compare", ["-P", "pq.tsv", "--tests", "t", "--output", OUT]),
    # every answer is already in judge.sqlite: the run asks nothing and leaves the store as it was
    "judge": ("zelo_judge", ["pairs.jsonl", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge", JUDGE,
                             "--store", "judge.sqlite", "-Q", "-o", OUT]),
    "judge-export": ("zelo_judge", ["export", "--store", "judge.sqlite", "-Q", "-o", OUT]),
    # the adaptive state driven to its end, every answer from the store (the state is rewritten)
    "judge-state": ("zelo_judge", ["--state", "as.json", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge", JUDGE,
                                   "--store", "judge.sqlite", "-Q", "-o", OUT]),
    "compare-orderings": ("zelo_compare", ["--orderings", "order_a.tsv", "order_b.txt", "--output", OUT]),
    "agree": ("zelo_agree", ["-J", "j.judge", "-J", "j.jsonl", "-l", "pair", "-l", "document", "--resamples", "0",
                             "-Q", "--output", OUT]),
}
# zelo_plot is optional (matplotlib); its cases are added when it imports.
PLOT: dict[str, tuple[str, list[str]]] = {
    "plot-scores": ("zelo_plot", ["scores", "-S", "scores.tsv", "-Q", "-o", OUT]),
    "plot-matrix": ("zelo_plot", ["matrix", "-J", "j.judge", "-Q", "-o", OUT]),
}


def argv_with(argv: list[str], out: str) -> list[str]:
    return [out if a == OUT else a for a in argv]
