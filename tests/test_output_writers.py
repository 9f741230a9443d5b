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
    "pref_jsonl": ("preferences", ["zelo_eval", "-R", Q, "-q", *RUNS], _jsonl, None, "rows", True),
    "pref_table": ("preferences", ["zelo_eval", "-R", Q, "-o", "tsv", "-q", "-m", "rpp", "-m", "p@10", *RUNS],
                   _table("\t"), None, "rows", True),
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
                    _table(","), None, "bytes", True),
    "compare_jsonl": ("comparisons", ["zelo_compare", "-P", "tests/data/stats/perquery.tsv", "-o", "jsonl"],
                      _jsonl, None, "bytes", True),
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
ELSEWHERE = {"agree": "tests/test_agree_cli.py", "judgments": "tests/test_zelo_judge.py",
             # seeded draws: candidate order is the data (cycles over it), and simulations read no file lines
             "pairs": "tests/test_zelo_pairs.py", "simulations": "tests/test_zelo_simulate.py",
             # not a writer: json.dumps-equal quoting used by the preferences writer (hypothesis-tested there)
             "json_text": "tests/test_pref_output.py",
             # not a writer: LaTeX / Markdown escaping of names (checked against markdown-it-py and a LaTeX reader)
             "markup": "tests/test_paper_table.py"}
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
        if runs:
            rev = [a for a in argv if not a.startswith("runs/")] + runs[::-1]
            again = _run(base, rev, out_file)
        else:  # a per-query table: its runs in reverse order of first appearance
            again = _run(_reverse_runs(tmp_path / "revruns", argv), argv, out_file)
        norm = ORIENT.get(case, lambda t: sorted(t.splitlines()))
        assert norm(again) == norm(text), "rows depend on the order of the runs"


def _reverse_runs(tmp_path: Path, argv: list[str]) -> Path:
    _workspace(tmp_path, argv, None)
    for a in argv:
        if a.endswith(".tsv") and a.startswith("tests/"):
            lines = (tmp_path / a).read_bytes().splitlines(keepends=True)
            head, body = lines[:1], lines[1:]
            col = head[0].rstrip(b"\n").split(b"\t").index(b"run")
            runs = list(dict.fromkeys(ln.split(b"\t")[col] for ln in body))
            body.sort(key=lambda ln: -runs.index(ln.split(b"\t")[col]))
            (tmp_path / a).write_bytes(b"".join(head + body))
    return tmp_path


def _neg(v):
    return -v if isinstance(v, int) else 0.0 - float(v)


def _orient_pref_jsonl(text: str) -> list[str]:
    """Preference lines with each pair oriented (smaller run id first), values negated when swapped:
    RPP and the lexicographic measures are antisymmetric, and must be so to the last bit."""
    out = []
    for ln in text.splitlines():
        o = json.loads(ln)
        if "runi" in o and o["runi"] > o["runj"]:
            o = {k: (o["runj"] if k == "runi" else o["runi"] if k == "runj" else
                     v if k in ("qid", "sample", "type") else _neg(v)) for k, v in o.items()}
        out.append(json.dumps(o, sort_keys=True))
    return sorted(out)


def _orient_pref_table(text: str) -> list[tuple]:
    rows = list(csv.reader(io.StringIO(text), delimiter="\t"))
    out = []
    for ri, rj, q, m, v in rows[1:]:
        if rj and ri > rj:
            ri, rj, v = rj, ri, repr(_neg(v))
        out.append((ri, rj, q, m, repr(float(v))))
    return [tuple(rows[0])] + sorted(out)


def _orient_records(records: list[dict]) -> list[str]:
    """zelo_compare records keyed by (measure, unordered pair, test): swapping the runs negates the
    mean difference, the effect size, the t statistic and the CI and swaps wins and losses; the
    p-values (and their corrections) stay, to the last bit."""
    out = []
    for r in records:
        r = dict(r)
        if r["run_a"] > r["run_b"]:
            r["run_a"], r["run_b"] = r["run_b"], r["run_a"]
            r["wins"], r["losses"] = r["losses"], r["wins"]
            for k in ("mean_diff", "d_z"):
                r[k] = repr(_neg(r[k]))
            if r["test"] == "t":
                r["statistic"] = repr(_neg(r["statistic"]))
            if r.get("ci_low") not in ("", None):
                r["ci_low"], r["ci_high"] = repr(_neg(r["ci_high"])), repr(_neg(r["ci_low"]))
        if r["test"] not in ("t",):
            r.pop("statistic", None)  # rank and count statistics of the reversed pair are other numbers
        out.append(json.dumps({k: (repr(float(v)) if isinstance(v, float) or k in ("mean_diff", "d_z", "ci_low",
                                                                                    "ci_high", "statistic")
                                   and v not in ("", None) else str(v)) for k, v in r.items()}, sort_keys=True))
    return sorted(out)


ORIENT = {
    "pref_jsonl": _orient_pref_jsonl,
    "pref_table": _orient_pref_table,
    "compare_csv": lambda t: _orient_records(list(csv.DictReader(io.StringIO(t)))),
    "compare_jsonl": lambda t: _orient_records([json.loads(ln) for ln in t.splitlines()]),
}


def test_every_writer_module_is_covered():
    modules = {p.stem for p in (ROOT / "pref_eval" / "output").glob("*.py")} - {"__init__", "atomic"}
    covered = {w[0] for w in WRITERS.values()} | set(ELSEWHERE)
    assert modules <= covered, f"writer modules without a case in WRITERS: {sorted(modules - covered)}"
    for path in ELSEWHERE.values():
        assert (ROOT / path).is_file()
