"""Registry-wide tests over every output writer (scikit-learn's ``test_common`` habit).

Every module of ``pref_eval/output/`` is a writer (``atomic.py`` is the file
primitive); ``WRITERS`` names, for each, a command line that goes through it on
the shipped data. For every case:

* **shape**: the output parses in its format (trec_eval's three columns, a
  rectangular TSV/CSV with a header, one JSON object per line, a Markdown
  table with one column count, a LaTeX tabular, a qrels of four fields);
* **line and query order**: shuffling the lines of the input files (which
  also reorders the queries) gives the same bytes (``"bytes"``), or, where
  the documented output order is the input order, the same rows in another
  order (``"rows"``: zelo_eval's preference mode lists queries as
  pref_eval.py does, in qrels order; zELO files list documents in order of
  first appearance). Per-query tables are shuffled within each run (the
  runs keep their order of first appearance, which labels them); an
  ordering file given as a ranked list is not shuffled (its order is the
  data); ``pref_aggregate`` sums in file order, as pref_aggregate.py, and is
  checked for shape only;
* **run order**: where a command takes several runs, reversing them gives the
  same rows (the output lists runs in command-line order, so the rows are
  compared as a set).

``test_every_writer_module_is_covered`` fails when a writer module is added
without a case here.
"""
from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest

from cli_harness import run_inproc
from conftest import ROOT

Q = "qrels/dl19-sample.qrels"
RUNS = ["runs/bm25.run", "runs/dense.run", "runs/rerank.run"]
JUDGE = "judgments/dl19-sample.judge"


def _trec(text: str) -> None:
    for ln in text.splitlines():
        assert len(ln.split()) == 3, ln


def _table(sep: str):
    def check(text: str) -> None:
        rows = list(csv.reader(io.StringIO(text), delimiter=sep))
        assert len(rows) >= 2 and len({len(r) for r in rows}) == 1, rows[:3]
    return check


def _jsonl(text: str) -> None:
    lines = text.splitlines()
    assert lines
    for ln in lines:
        assert isinstance(json.loads(ln), dict), ln


def _markdown(text: str) -> None:
    rows = [ln for ln in text.splitlines() if ln.startswith("|")]
    assert rows and len({ln.count("|") for ln in rows}) == 1, rows[:3]


def _latex(text: str) -> None:
    assert "\\begin{tabular}" in text and "\\end{tabular}" in text


def _qrels(text: str) -> None:
    for ln in text.splitlines():
        f = ln.split()
        assert len(f) == 4 and f[3].lstrip("-").isdigit(), ln


def _scores(text: str) -> None:
    lines = text.splitlines()
    assert lines[0].split("\t")[:4] == ["qid", "docno", "score", "se"]
    assert len({len(ln.split("\t")) for ln in lines}) == 1


def _text(text: str) -> None:
    assert text.strip()


# name: (writer module, argv, shape check, output file or None for stdout, line-order contract, run-order case)
WRITERS = {
    "trec_text": ("trec", ["zelo_trec", "-q", "-m", "official", "-m", "ndcg_cut.10", Q, RUNS[0]], _trec, None,
                  "bytes", False),
    "eval_trec_blocks": ("trec", ["zelo_eval", "-R", Q, "-m", "map", "-m", "P.10", *RUNS], _trec, None, "bytes", True),
    "long_tsv": ("table", ["zelo_eval", "-R", Q, "-o", "tsv", "-q", "-m", "map", "-m", "ndcg_cut.10", *RUNS],
                 _table("\t"), None, "bytes", True),
    "long_csv": ("table", ["zelo_eval", "-R", Q, "-o", "csv", "-q", "-m", "map", *RUNS], _table(","), None,
                 "bytes", True),
    "long_jsonl": ("table", ["zelo_eval", "-R", Q, "-o", "jsonl", "-q", "-m", "map", *RUNS], _jsonl, None,
                   "bytes", True),
    "pref_jsonl": ("preferences", ["zelo_eval", "-R", Q, "-q", *RUNS], _jsonl, None, "rows", False),
    "pref_table": ("preferences", ["zelo_eval", "-R", Q, "-o", "tsv", "-q", "-m", "rpp", "-m", "p@10", *RUNS],
                   _table("\t"), None, "rows", False),
    "orderings_json": ("orderings", ["pref_aggregate", "-P", "prefs.jsonl"],
                       _jsonl, None, None, False),
    "orderings_markdown": ("orderings", ["pref_aggregate", "-P", "prefs.jsonl", "-o", "markdown"], _markdown,
                           None, None, False),
    "compare_text": ("comparisons", ["zelo_compare", "-P", "tests/data/stats/perquery.tsv"], _text, None,
                     "bytes", False),
    "compare_markdown": ("comparisons", ["zelo_compare", "-P", "tests/data/stats/perquery.tsv", "-o", "markdown"],
                         _markdown, None, "bytes", False),
    "compare_latex": ("comparisons", ["zelo_compare", "-P", "tests/data/stats/perquery.tsv", "-o", "latex"],
                      _latex, None, "bytes", False),
    "compare_csv": ("comparisons", ["zelo_compare", "-P", "tests/data/stats/perquery.tsv", "-o", "csv"],
                    _table(","), None, "bytes", False),
    "compare_jsonl": ("comparisons", ["zelo_compare", "-P", "tests/data/stats/perquery.tsv", "-o", "jsonl"],
                      _jsonl, None, "bytes", False),
    "compare_orderings": ("comparisons", ["zelo_compare", "--orderings", "tests/data/stats/order_a.tsv",
                                          "tests/data/stats/order_b.txt"], _text, None, "bytes", False),
    "zelo_scores": ("zelo_scores", ["zelo_fit", "-J", JUDGE, "-Q"], _scores, None, "rows", False),
    "graded_qrels": ("qrels", ["zelo_fit", "-J", JUDGE, "-Q", "-o", "s.tsv", "--qrels", "out.qrels",
                               "--grades", "0,1,2,3"], _qrels, "out.qrels", "rows", False),
}
# Sums over queries, judgments and documents are taken in one canonical order (query ids, document ids;
# issue #11: zelo_compare's query columns, zelo_eval's preference summaries, zelo_fit's documents and
# judgments), so the "bytes" and "rows" contracts hold to the last bit.
# writer modules not exercised here, with the test file that covers them
ELSEWHERE = {"agree": "tests/test_agree_cli.py", "judgments": "tests/test_zelo_judge.py"}
INPUTS = ("qrels/", "runs/", "judgments/", "tests/data/")


def _workspace(tmp_path: Path, argv: list[str], shuffle: int | None) -> list[str]:
    """Copy every input file of ``argv`` into ``tmp_path`` (lines shuffled with seed ``shuffle``)."""
    out = []
    for a in argv:
        if a.startswith(INPUTS):
            src = ROOT / a
            lines = src.read_bytes().splitlines(keepends=True)
            if shuffle is not None and src.suffix != ".txt":  # a .txt ordering is a ranked list: order is data
                table = src.suffix in (".tsv", ".csv")
                head = lines[:1] if table else []
                body = [ln if ln.endswith(b"\n") else ln + b"\n" for ln in lines[1:]] if table else lines
                random.Random(shuffle).shuffle(body)
                if table and b"run" in head[0].split(b"\t" if src.suffix == ".tsv" else b","):
                    col = head[0].split(b"\t" if src.suffix == ".tsv" else b",").index(b"run")
                    orig = [ln.split(b"\t" if src.suffix == ".tsv" else b",")[col] for ln in lines[1:]]
                    rank = {r: i for i, r in reversed(list(enumerate(orig)))}
                    body.sort(key=lambda ln: rank[ln.split(b"\t" if src.suffix == ".tsv" else b",")[col]])
                lines = head + body
            dst = tmp_path / a
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(b"".join(lines))
        out.append(a)
    if "prefs.jsonl" in argv:  # pref_aggregate's input: zelo_eval -q on the shipped runs
        for a in (Q, *RUNS):
            (tmp_path / a).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / a).write_bytes((ROOT / a).read_bytes())
        res = run_inproc("zelo_eval", ["-R", Q, "-q", *RUNS, "--output", "prefs.jsonl"], tmp_path)
        assert res.returncode == 0, res
    return out


def _run(tmp_path: Path, argv: list[str], out_file: str | None) -> str:
    res = run_inproc(argv[0], argv[1:], tmp_path)
    assert res.returncode == 0, res
    return (tmp_path / out_file).read_text(encoding="utf-8") if out_file else res.stdout.decode("utf-8")


@pytest.mark.parametrize("case", sorted(WRITERS))
def test_writer_shape_and_order_invariance(tmp_path, case):
    _module, argv, shape, out_file, contract, run_case = WRITERS[case]
    base = tmp_path / "base"
    argv = _workspace(base, argv, None)
    text = _run(base, argv, out_file)
    shape(text)
    if contract:
        shuffled = tmp_path / "shuffled"
        _workspace(shuffled, argv, 7)
        got = _run(shuffled, argv, out_file)
        if contract == "bytes":
            assert got == text, "output depends on the order of input lines"
        else:
            assert got != text or case == "graded_qrels"  # the shuffle did reorder the output
            assert sorted(got.splitlines()) == sorted(text.splitlines()), "values depend on the order of input lines"
    if run_case:
        runs = [a for a in argv if a.startswith("runs/")]
        rev = [a for a in argv if not a.startswith("runs/")] + runs[::-1]
        again = _run(base, rev, out_file)
        assert sorted(again.splitlines()) == sorted(text.splitlines()), "rows depend on the order of the runs"


def test_every_writer_module_is_covered():
    modules = {p.stem for p in (ROOT / "pref_eval" / "output").glob("*.py")} - {"__init__", "atomic"}
    covered = {w[0] for w in WRITERS.values()} | set(ELSEWHERE)
    assert modules <= covered, f"writer modules without a case in WRITERS: {sorted(modules - covered)}"
    for path in ELSEWHERE.values():
        assert (ROOT / path).is_file()

