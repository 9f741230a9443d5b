"""A zbench dataset (QueryDocuments JSONL) names each query once and each of its documents once.

zbench's ``step4_compose_annotated_dataset`` annotates a query given on two lines twice, and for a
document id listed twice in one query it judges only the last copy (``id_to_idx`` keeps the last
index) while still printing both; ``zelo_pairs cycles`` drew self-pairs ``d0 d0`` from such a list
(LLM calls that cannot inform the fit) and ``zelo_fit`` merged the copies silently. Both are refused
with ``FILE:LINE`` (exit 2), as ``--docs`` candidate lists already were.
"""
from __future__ import annotations

import json

import pytest

from cli_harness import run_module_inproc


def _dataset(path, queries):
    path.write_text("".join(json.dumps({"query": {"id": q, "query": f"query {q}"},
                                        "documents": [{"id": d, "content": d} for d in docs]}) + "\n"
                            for q, docs in queries), encoding="utf-8")
    return path


def _judgments(path):
    path.write_text('{"qid": "q1", "doc_a": "d0", "doc_b": "d1", "score": 1}\n', encoding="utf-8")
    return path


def _run(mod, *args, cwd):
    """``python -m pref_eval.cli.<mod> ARGS`` in process (cli_harness.run_module_inproc): outputs, exit status and
    the stderr line need no process."""
    return run_module_inproc(mod, args, cwd)


CASES = {
    "document-twice": ([("q0", ["a", "b"]), ("q1", ["d0", "d1", "d2", "d0"])], 2,
                       "document 'd0' listed twice for query 'q1'"),
    "query-twice": ([("q1", ["d0", "d1"]), ("q2", ["x", "y"]), ("q1", ["d0", "d1"])], 3,
                    "query 'q1' again (first on line 1); give each query once"),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("command", ["fit", "fit-compat", "pairs"])
def test_repeated_query_or_document_is_file_line_error(tmp_path, case, command):
    queries, line, msg = CASES[case]
    _dataset(tmp_path / "ds.jsonl", queries)
    _judgments(tmp_path / "j.jsonl")
    if command == "pairs":
        r = _run("pairs", "cycles", "--dataset", "ds.jsonl", "-Q", cwd=tmp_path)
        prog = "zelo_pairs"
    else:
        extra = ["--compat", "zbench", "--output-format", "zbench"] if command == "fit-compat" else []
        r = _run("fit", "-J", "j.jsonl", "--dataset", "ds.jsonl", *extra, "-o", "out", "-Q", cwd=tmp_path)
        prog = "zelo_fit"
        assert not (tmp_path / "out").exists()
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr == f"{prog}: ds.jsonl:{line}: {msg}\n"


def test_distinct_ids_still_read(tmp_path):
    """The same document id in two queries, and ids differing only in case, are distinct and fine."""
    _dataset(tmp_path / "ds.jsonl", [("q1", ["d0", "D0", "d1"]), ("q2", ["d0", "d1"])])
    _judgments(tmp_path / "j.jsonl")
    r = _run("fit", "-J", "j.jsonl", "--dataset", "ds.jsonl", "-Q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    rows = [ln.split("\t")[:2] for ln in r.stdout.splitlines()[1:]]
    assert rows == [["q1", "d0"], ["q1", "D0"], ["q1", "d1"], ["q2", "d0"], ["q2", "d1"]]
    r = _run("pairs", "cycles", "--dataset", "ds.jsonl", "--cycles", "3", "-Q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    pairs = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert pairs and all(p["doc_a"] != p["doc_b"] for p in pairs)
