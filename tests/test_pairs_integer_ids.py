"""``pref_eval.pairs(queries)`` with integer ids (b38's leftover): docnos are strings everywhere else (the
readers, records given as qrels or runs: :func:`pref_eval.io.frames.id_text`), and zbench's pairs hold strings
(``DatasetPairDocument.document_id: str``, ``DatasetPair.query_id: str``: pydantic refuses the number 3). The
pairs were written as JSON numbers (``{"qid": 1, "doc_a": 3, ...}``) and returned as ints. Oracles: zbench's own
models (run live, slow) and the rule of the record readers (an integer as its digits; None, a float or an empty
id refused).
"""
from __future__ import annotations

import json

import pytest

import pref_eval
from pref_eval.errors import UsageError

import zbench_live as zl


def test_integer_ids_are_written_and_returned_as_strings(tmp_path):
    got = pref_eval.pairs([(1, [10, 2, 3]), ("q2", ["a", 7])], cycles=2, seed=3, output=str(tmp_path / "p.jsonl"))
    assert all(isinstance(x, str) for p in got for x in p)
    lines = [json.loads(x) for x in (tmp_path / "p.jsonl").read_text().splitlines()]
    assert all(isinstance(v, str) for r in lines for v in r.values())
    # the same pairs as the same ids given as strings (a permutation per query: the ids' type draws nothing)
    assert got == pref_eval.pairs([("1", ["10", "2", "3"]), ("q2", ["a", "7"])], cycles=2, seed=3)
    assert [(r["qid"], r["doc_a"], r["doc_b"]) for r in lines] == got


def test_an_integer_and_its_digits_are_one_document():
    with pytest.raises(Exception, match=r"topic 1: document '3' is listed twice"):
        pref_eval.pairs([(1, [3, "3", 4])])


@pytest.mark.parametrize("queries, where", [
    ([("q", ["a", None])], "query 'q': document 2 is None"),
    ([("q", ["a", 2.0])], "query 'q': document 2 is 2.0"),
    ([("q", ["", "b"])], "query 'q': document 1 is ''"),
    ([(1.0, ["a", "b"])], "query 1's qid is 1.0"),
    ([("q", ["a", "b"]), (None, ["a", "b"])], "query 2's qid is None"),
])
def test_what_is_no_id_is_refused(queries, where):
    """None was written as null, 2.0 as 2.0 (whose str "2.0" matches no docno "2"), '' as an empty id."""
    with pytest.raises(UsageError, match="^queries: " + where.replace("(", r"\(").replace(".", r"\.")
                       + "; expected a string or an integer id$"):
        pref_eval.pairs(queries)


@pytest.mark.slow  # zbench in a process (pydantic's import): ~1 s
def test_zbench_takes_the_pairs_ids(tmp_path):
    """zbench's pair models validate the ids of our JSON lines (they refused the JSON number of the old code)."""
    pytest.importorskip("pydantic")
    root = zl.zbench_or_skip(tmp_path / "zb")
    pref_eval.pairs([(1, [10, 2, 3])], cycles=1, seed=3, output=str(tmp_path / "p.jsonl"))
    script = zl.PRELUDE + r'''
import json
from zbench.common_types import DatasetPair
for line in open(sys.argv[1]):
    r = json.loads(line)
    doc = lambda d: {"document_id": d, "metadata": {}, "content": "x"}
    try:
        DatasetPair.model_validate({"pair_id": "p", "query_id": r["qid"], "query": "q",
                                    "document_a": doc(r["doc_a"]), "document_b": doc(r["doc_b"])})
    except Exception as e:
        print(type(e).__name__)
    else:
        print("ok")
'''
    assert zl.run(root, script, str(tmp_path / "p.jsonl")).split() == ["ok"] * 3
