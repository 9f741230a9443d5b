"""Ids that are not UTF-8 through every JSON output (session 26, w36): every JSON writer of pref_eval writes a byte
that was not UTF-8 in its input (a Latin-1 docno ``caf\\xe9``, read as ``'caf\\udce9'``) as the escape ``\\udce9``
(ASCII, valid JSON; docs/input-formats.md "Ids that are not UTF-8 in JSON"), and every reader of ours reads its
own writers' output back to the same bytes. Oracle: the bytes in equal the bytes out (the ids of the Latin-1
inputs, compared as bytes), and Python's json.loads + surrogateescape (what a Python user's reader does).

``PAIRS`` holds one case per writer; ``test_every_json_writer_has_a_case`` fails for a module that writes JSON
(calls ``json_dumps``/``json_str``) without a case here."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.cli_harness import run_module_inproc

ROOT = Path(__file__).resolve().parents[1]
DOCS = [b"d\xe9j\xe0", b"caf\xe9", b"na\xefve", b"plain", b"\xfcber"]  # Latin-1, invalid as UTF-8
TOPIC = b"t\xe9"
TAGS = (b"r\xe9a", b"r\xe9b")
JUDGE = b"j\xe9.c4"  # a Latin-1 file name: zelo_agree's judge names


def _b(s: str) -> bytes:
    return s.encode("utf-8", "surrogateescape")


def _write_inputs(d: Path) -> None:
    (d / "q.qrels").write_bytes(b"".join(t + b" 0 " + doc + b" %d\n" % ((k + (t == b"q2")) % 3)
                                         for t in (TOPIC, b"q2") for k, doc in enumerate(DOCS)))
    for name, tag, order in (("a.run", TAGS[0], DOCS), ("b.run", TAGS[1], DOCS[::-1])):
        (d / name).write_bytes(b"".join(t + b" Q0 " + doc + b" %d %d " % (k + 1, 10 - k) + tag + b"\n"
                                        for t in (TOPIC, b"q2") for k, doc in enumerate(order)))
    rows = [(DOCS[i], DOCS[k], DOCS[min(i, k)]) for i in range(5) for k in range(5) if i < k]
    c4 = b"".join(TOPIC + b" " + a + b" " + b + b" " + w + b"\n" for a, b, w in rows)
    (d / "j.c4").write_bytes(c4)
    (d / os.fsdecode(JUDGE)).write_bytes(c4)


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("latin1json")
    _write_inputs(d)
    res = run_module_inproc("eval", ["-R", "q.qrels", "--run-id", "tag", "-o", "pref", "-q", "--output",
                                     "pref.jsonl", "a.run", "b.run"], d)
    assert res.returncode == 0, res.stderr
    return d


def _cmd(d: Path, module: str, *args: str) -> None:
    res = run_module_inproc(module, list(args), d)
    assert res.returncode == 0, res.stderr


def _ids_of(obj) -> set[bytes]:
    """Every string of a parsed JSON value (keys too), as bytes (surrogateescape)."""
    if isinstance(obj, dict):
        return {_b(k) for k in obj} | {x for v in obj.values() for x in _ids_of(v)}
    if isinstance(obj, list):
        return {x for v in obj for x in _ids_of(v)}
    return {_b(obj)} if isinstance(obj, str) else set()


# name: (writer modules, writer command, its output file, reader of that file -> the ids it gives as bytes, ids)
def _read_pref(p: Path) -> set[bytes]:
    from pref_eval.io.pref_jsonl import read_pref_file

    f = read_pref_file(str(p))
    return {_b(x) for x in [*f.runs, *f.qids]}


def _read_per_query(p: Path) -> set[bytes]:
    from pref_eval.io.perquery import read_per_query

    t = read_per_query(str(p))
    return {_b(x) for c in ("run", "qid") for x in t[c].tolist()}


def _read_ordering(p: Path) -> set[bytes]:
    from pref_eval.io.orderings import read_ordering

    return {_b(x) for x in read_ordering(str(p), "rpp:mc4")[0]}


def _read_compare(p: Path) -> set[bytes]:
    from pref_eval.io.comparisons import read_compare_jsonl

    t = read_compare_jsonl(str(p))
    return {_b(x) for c in ("run_a", "run_b") for x in t[c].tolist()}


def _read_agree(p: Path) -> set[bytes]:
    from pref_eval.io.agree_records import read_agree_jsonl

    return {_b(r[k]) for r in read_agree_jsonl(str(p)) for k in ("judge_a", "judge_b") if r[k]}


def _read_zbench(p: Path) -> set[bytes]:
    from pref_eval.io.zelo_scores import read_zbench_scored

    return {_b(x) for q, docs, _ in read_zbench_scored(str(p)) for x in [q, *docs]}


def _read_pairs(p: Path) -> set[bytes]:
    from pref_eval.io.texts import read_pairs

    return {_b(x) for row in read_pairs(str(p)) for x in row}


def _read_judgments(p: Path) -> set[bytes]:
    from pref_eval.io.judgments import read_judgments

    j = read_judgments(str(p))
    return {_b(x) for q in j.queries for x in [q, *j.docs[q]]}


RUNS = ("a.run", "b.run")
PAIRS = {
    "eval-pref": (("output/preferences.py", "output/json_text.py"),
                  ("eval", "-R", "q.qrels", "--run-id", "tag", "-o", "pref", "-q", "--output", "W", *RUNS),
                  _read_pref, {TOPIC, *TAGS}),
    "eval-jsonl": (("output/table.py",), ("eval", "-R", "q.qrels", "--run-id", "tag", "-o", "jsonl", "-m", "map",
                                          "-q", "--output", "W", *RUNS), _read_per_query, {TOPIC, *TAGS}),
    "eval-topics-jsonl": (("output/table.py",), ("eval", "-R", "q.qrels", "--run-id", "tag", "-o", "topics-jsonl",
                                                 "-m", "map", "--output", "W", *RUNS), None, {TOPIC, *TAGS}),
    "aggregate-json": (("output/orderings.py",), ("aggregate", "-P", "pref.jsonl", "-o", "json", "--output", "W"),
                       _read_ordering, set(TAGS)),
    "aggregate-jsonl": (("output/orderings.py",), ("aggregate", "-P", "pref.jsonl", "-o", "jsonl", "--output", "W"),
                        _read_ordering, set(TAGS)),
    "compare-jsonl": (("output/comparisons.py",), ("compare", "-R", "q.qrels", "--run-id", "tag", "-m", "map", "-o",
                                                   "jsonl", "--output", "W", *RUNS), _read_compare, set(TAGS)),
    "compare-orderings-jsonl": (("output/comparisons.py",), ("compare", "--orderings", "A", "A", "--key-a", "rpp:mc4",
                                                             "--key-b", "rpp:mc4", "-o", "jsonl", "--output", "W"), None, set()),
    "agree-jsonl": (("output/agree.py",), ("agree", "-J", os.fsdecode(JUDGE), "-J", "j.c4", "-o", "jsonl",
                                           "--output", "W"), _read_agree, {JUDGE + b"#1"}),
    "fit-zbench": (("output/zelo_scores.py",), ("fit", "-J", "j.c4", "--output-format", "zbench", "-o", "W"),
                   _read_zbench, {TOPIC, *DOCS}),
    "pairs-cycles": (("output/pairs.py",), ("pairs", "cycles", "--run", "a.run", "--cycles", "1", "-o", "W"),
                     _read_pairs, {TOPIC, *DOCS}),
}


@pytest.mark.parametrize("case", sorted(PAIRS))
def test_json_output_round_trips_the_bytes(ws, case):
    _, argv, reader, want = PAIRS[case]
    out = ws / f"{case}.json"
    if "A" in argv:  # an ordering file the case reads
        _cmd(ws, "aggregate", "-P", "pref.jsonl", "-o", "json", "--output", "A")
    _cmd(ws, *[str(out) if a == "W" else a for a in argv])
    data = out.read_bytes()
    assert data.isascii(), case  # the rule: a byte that is not UTF-8 as \udcNN, never raw
    if want:
        assert b"\\udce9" in data
    parsed = set().union(*(_ids_of(json.loads(line)) for line in data.splitlines() if line.strip()))
    assert want <= parsed  # what Python's json gives, as bytes
    if reader is not None:
        assert want <= reader(out)  # and our own reader


def test_judgment_writers_round_trip(tmp_path):
    """zelo_judge's canonical lines and a zelo_pairs batch (UTF-8 kept, a byte that is not UTF-8 escaped),
    read back by the judgment reader (every path: the file's lines and the whole document)."""
    from pref_eval.output.judgments import judgment_line
    from pref_eval.zelo.pair_state import judgment_batch

    q, a, b = (x.decode("utf-8", "surrogateescape") for x in (TOPIC, DOCS[0], "naïve".encode()))
    for name, data in (("canonical.jsonl", "".join(judgment_line(q, a, b, [1.0], ["j"], ["ab"]) for _ in range(3))
                        .encode("utf-8")), ("batch.jsonl", judgment_batch([(q, a, b, 1.0)] * 3))):
        p = tmp_path / name
        p.write_bytes(data)
        assert data.isascii() is False and b"\\udce9" in data and "naïve".encode() in data  # UTF-8 stays UTF-8
        assert _read_judgments(p) == {TOPIC, DOCS[0], "naïve".encode()}


WRITES_JSON = re.compile(r"\bjson_(?:dumps|str)\(")


def test_every_json_writer_has_a_case():
    """A module that writes JSON (through output/json_text.py, the one place: no other json.dumps) has a case."""
    covered = {m for mods, *_ in PAIRS.values() for m in mods} | {
        "output/judgments.py", "zelo/pair_state.py",  # test_judgment_writers_round_trip
        "zelo/tournament.py", "zelo/ranking_session.py", "zelo/adaptive_session.py",  # states: test_pair_states_*
    }
    writers = set()
    for p in sorted((ROOT / "pref_eval").rglob("*.py")):
        rel = p.relative_to(ROOT / "pref_eval").as_posix()
        text = p.read_text("utf-8")
        if rel != "output/json_text.py" and re.search(r"\bjson\.dumps\(", text) and rel.startswith(("output/", "zelo/")):
            pytest.fail(f"{rel} calls json.dumps: JSON outputs go through output/json_text.json_dumps")
        if WRITES_JSON.search(text) and not text.count("def json_dumps"):
            writers.add(rel)
    assert writers <= covered, sorted(writers - covered)
