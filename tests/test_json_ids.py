"""JSON ids and names are strings or integers (their digits), nothing else, in every small JSON reader.

``str()`` of a JSON value made ``null`` the id ``'None'`` and ``true`` the id ``'True'``: the ordering reader
of ``zelo_compare --orderings`` (zelo_eval tables as JSON lines: run and measure names, and ``true`` read as
the value 1.0) and the text reader of ``zelo_judge --queries/--docs/--pairs`` (a ``null`` id under one key
fell through to the next key). Each is now a ``file:line`` error; the judgment and zbench readers had the
rule already (tests/test_zelo_formats.py)."""
from __future__ import annotations

import json

import pytest

from pref_eval.errors import InputError
from pref_eval.io.orderings import read_ordering
from pref_eval.io.texts import read_docs, read_pairs, read_queries

BAD = [None, True, 1.5, [], {}]


def _lines(tmp_path, *recs) -> str:
    p = tmp_path / "f.jsonl"
    p.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return str(p)


@pytest.mark.parametrize("bad", [*BAD, "missing"])
@pytest.mark.parametrize("key", ["run", "measure", "value"])
def test_ordering_table_names_and_values(tmp_path, key, bad):
    good = {"run": "b", "qid": "all", "measure": "P_10", "value": 0.4}
    row = {"run": "a", "qid": "all", "measure": "P_10", "value": 0.5}
    if bad == "missing":
        del row[key]
    else:
        row[key] = bad
    p = _lines(tmp_path, good, row)
    if key == "value" and bad == 1.5:
        assert read_ordering(p)[0] == {"b": 0.4, "a": 1.5}
        return
    with pytest.raises(InputError) as ei:
        read_ordering(p)
    assert ei.value.line == 2
    # an integer name is its digits, as in the judgment readers
    row[key] = 7
    assert read_ordering(_lines(tmp_path, good, row), "7" if key == "measure" else None)[0] == (
        {"b": 0.4, "7": 0.5} if key == "run" else {"b": 0.4, "a": 7.0} if key == "value" else {"a": 0.5})


@pytest.mark.parametrize("bad", BAD)
def test_text_ids(tmp_path, bad):
    for read, rec, key in ((read_queries, {"qid": bad, "id": "x", "text": "t"}, "qid"),
                           (read_docs, {"docno": bad, "doc_id": "x", "text": "t"}, "docno"),
                           (read_docs, {"query": {"id": "q", "query": ""}, "documents": [{"id": bad, "content": ""}]},
                            "id"),
                           (read_queries, {"query": {"id": bad, "query": ""}, "documents": []}, "id"),
                           (read_pairs, {"qid": "q", "doc_a": bad, "doc_b": "b"}, "doc_a")):
        p = _lines(tmp_path, {"qid": "q0", "docno": "d0", "text": "t", "doc_a": "a", "doc_b": "b"}, rec)
        with pytest.raises(InputError) as ei:
            read(p)
        assert ei.value.line == 2, (read.__name__, key, bad)
    p = _lines(tmp_path, {"qid": 7, "text": "t"})
    assert read_queries(p).queries == {"7": "t"}
