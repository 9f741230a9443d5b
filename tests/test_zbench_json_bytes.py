"""zbench's ``ai_scores.json`` / ``pairs.json`` (and JSON lines pairs) holding a raw byte that is not UTF-8: one
rule for zelo_fit (``-J``, judgments) and zelo_judge (``PAIRS``), session 29. Before, zelo_fit refused the file
(``FILE:LINE: byte 0xe9 is not UTF-8 text``: JSON is UTF-8, RFC 8259) while zelo_judge took the byte as the id's;
now both refuse it with that line. What zbench itself does decides it: its ``load_json`` / ``open(path, "r")``
stops with a UnicodeDecodeError on the raw byte (checked live below, as in b38's dataset check), and it cannot
write such a file (its JSON comes from pydantic, UTF-8). The escape ``\\udce9`` (our writers' form) is read by
both commands as that byte's id."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_harness import run_module_inproc

sys.path.insert(0, str(Path(__file__).parent))
import zbench_live as zl  # noqa: E402


def _pair(qid: str) -> dict:
    """One of zbench's pairs, every field its DatasetPair declares."""
    return {"pair_id": f"{qid}-a-b", "query_id": qid, "query": "the query",
            "document_a": {"document_id": "a", "metadata": {}, "content": "text A"},
            "document_b": {"document_id": "b", "metadata": {}, "content": "text B"}}


def _files(d: Path, qid_bytes: bytes) -> dict[str, bytes]:
    """The three JSON kinds a PAIRS file may be, with ``qid_bytes`` put in place of the id ``QID`` (raw bytes
    or a ``\\udcNN`` escape written as JSON)."""
    scores = [{f"{m}_score": {"thought": "", "score": s} for m in ("openai", "anthropic", "gemini")}
              for s in (0.5, -0.5)]  # (zbench's three judges)
    scored = {"scored_pairs": [{"pair": _pair("q1"), **scores[0]}, {"pair": _pair("QID"), **scores[1]}]}
    pairs = {"pairs": [_pair("q1"), _pair("QID")]}
    lines = [{"qid": "q1", "doc_a": "a", "doc_b": "b", "score": 1.0}, {"qid": "QID", "doc_a": "a", "doc_b": "b",
                                                                       "score": 0.0}]
    out = {"ai_scores.json": json.dumps(scored, indent=4).encode(), "pairs.json": json.dumps(pairs).encode(),
           "p.jsonl": "".join(json.dumps(x) + "\n" for x in lines).encode()}
    for name, data in out.items():
        (d / name).write_bytes(data.replace(b"QID", qid_bytes))
    return out


def _line(data: bytes) -> int:
    return data[:data.index(b"QID")].count(b"\n") + 1


@pytest.mark.parametrize("name", ["ai_scores.json", "pairs.json", "p.jsonl"])
def test_a_raw_byte_is_refused_by_both_commands(tmp_path, name):
    """The same FILE:LINE line from zelo_judge (it took the byte as the id's: the case fails on the old code) and
    from zelo_fit -J (the judgment files: ai_scores.json, JSON lines)."""
    data = _files(tmp_path, b"q\xe9")[name]
    line = _line(data)
    judged = run_module_inproc("judge", [name, "--dry-run", "--judge", "openai:m@http://127.0.0.1:9/v1",
                                         "--store", "s.sqlite"], tmp_path)
    assert judged.returncode == 2 and judged.stderr.startswith(
        f"zelo_judge: {name}:{line}: byte 0xe9 is not UTF-8 text (expected a UTF-8 file"), judged.stderr
    assert judged.stderr.count("\n") == 1 and "\\udcNN" in judged.stderr, judged.stderr
    if name != "pairs.json":  # (pairs.json holds no judgments)
        fitted = run_module_inproc("fit", ["-J", name, "-Q"], tmp_path)
        assert fitted.returncode == 2 and fitted.stderr.startswith(
            f"zelo_fit: {name}:{line}: byte 0xe9 is not UTF-8 text"), fitted.stderr


@pytest.mark.parametrize("name", ["ai_scores.json", "pairs.json", "p.jsonl"])
def test_the_escape_is_the_bytes_id_in_both(tmp_path, name):
    """``\\udce9`` written as JSON: zelo_judge asks its pairs (the dry run counts both), zelo_fit fits the id as
    the byte (its score TSV holds the raw byte, as for every id that is not UTF-8)."""
    _files(tmp_path, b"q\\udce9")
    _texts(tmp_path)
    texts = ["--docs", "d.tsv", "--queries", "q.tsv"] if name == "p.jsonl" else []
    judged = run_module_inproc("judge", [name, "--dry-run", "--judge", "openai:m@http://127.0.0.1:9/v1",
                                         "--store", "s.sqlite", *texts], tmp_path)
    assert judged.returncode == 0, judged.stderr
    assert judged.stdout.startswith("2 requests would be sent (0 served from the store, 0 pairs without text)")
    if name != "pairs.json":
        fitted = run_module_inproc("fit", ["-J", name, "-Q", "-o", "z.tsv"], tmp_path)
        assert fitted.returncode == 0, fitted.stderr
        assert b"q\xe9\ta\t" in (tmp_path / "z.tsv").read_bytes()


def _texts(d: Path) -> None:
    (d / "d.tsv").write_text("a\ttext A\nb\ttext B\n")
    (d / "q.tsv").write_bytes(b"q1\tthe query\nq\xe9\tthe query\n")


@pytest.mark.slow  # zbench in a process (pydantic's import): ~1 s
def test_zbench_refuses_the_raw_byte_and_reads_the_escape(tmp_path):
    """zbench's own readers of its two files (``DatasetPairScoredPairs.model_validate(load_json(path))`` as its
    annotator's step 4 reads ai_scores.json; ``DatasetPairs.model_validate_json(f.read())`` of ``open(path,
    "r")`` as its scorer reads pairs.json): the raw byte is a UnicodeDecodeError; the escape is the id 'q\\udce9'
    in ai_scores.json, refused by pydantic's parser in pairs.json."""
    pytest.importorskip("pydantic")
    root = zl.zbench_or_skip(tmp_path / "zb")
    raw, esc = tmp_path / "raw", tmp_path / "esc"
    raw.mkdir()
    esc.mkdir()
    _files(raw, b"q\xe9")
    _files(esc, b"q\\udce9")
    script = zl.PRELUDE + r'''
import json
from zbench.utils import load_json
from zbench.common_types import DatasetPairScoredPairs, DatasetPairs
try:
    if sys.argv[1].endswith("ai_scores.json"):
        got = [p.pair.query_id for p in DatasetPairScoredPairs.model_validate(load_json(sys.argv[1])).scored_pairs]
    else:
        with open(sys.argv[1], "r") as f:
            got = [p.query_id for p in DatasetPairs.model_validate_json(f.read()).pairs]
except UnicodeDecodeError:
    print("UnicodeDecodeError")
except ValueError as err:  # pydantic's JSON parser
    print("refused", "lone leading surrogate" in str(err))
else:
    print(json.dumps(got))
'''
    from pref_eval.io.texts import read_pairs

    for name in ("ai_scores.json", "pairs.json"):
        assert zl.run(root, script, str(raw / name)).strip() == "UnicodeDecodeError"
    theirs = json.loads(zl.run(root, script, str(esc / "ai_scores.json")))
    assert theirs == [q for q, _, _ in read_pairs(str(esc / "ai_scores.json"))] == ["q1", "q\udce9"]
    # its scorer's pydantic JSON parser refuses even the escape of pairs.json (zbench cannot hold such an id at
    # all there); ours reads it, the form every JSON writer of pref_eval uses
    assert zl.run(root, script, str(esc / "pairs.json")).strip() == "refused True"
    assert [q for q, _, _ in read_pairs(str(esc / "pairs.json"))] == ["q1", "q\udce9"]
