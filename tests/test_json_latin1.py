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
PANDAS = "pandas"  # read into a DataFrame: such ids in object columns (pandas' strings hold UTF-8 only; session 27)
READ_INTO_PANDAS = {"eval-jsonl": _read_per_query, "compare-jsonl": _read_compare}
PAIRS = {
    "eval-pref": (("output/preferences.py", "output/json_text.py"),
                  ("eval", "-R", "q.qrels", "--run-id", "tag", "-o", "pref", "-q", "--output", "W", *RUNS),
                  _read_pref, {TOPIC, *TAGS}),
    "eval-jsonl": (("output/table.py",), ("eval", "-R", "q.qrels", "--run-id", "tag", "-o", "jsonl", "-m", "map",
                                          "-q", "--output", "W", *RUNS), PANDAS, {TOPIC, *TAGS}),
    "eval-topics-jsonl": (("output/table.py",), ("eval", "-R", "q.qrels", "--run-id", "tag", "-o", "topics-jsonl",
                                                 "-m", "map", "--output", "W", *RUNS), None, {TOPIC, *TAGS}),
    "aggregate-json": (("output/orderings.py",), ("aggregate", "-P", "pref.jsonl", "-o", "json", "--output", "W"),
                       _read_ordering, set(TAGS)),
    "aggregate-jsonl": (("output/orderings.py",), ("aggregate", "-P", "pref.jsonl", "-o", "jsonl", "--output", "W"),
                        None, set(TAGS)),
    "compare-jsonl": (("output/comparisons.py",), ("compare", "-R", "q.qrels", "--run-id", "tag", "-m", "map",
                                                   "--tests", "t", "-o", "jsonl", "--output", "W", *RUNS),
                      PANDAS, set(TAGS)),
    "compare-orderings-jsonl": (("output/comparisons.py",),
                                ("compare", "--orderings", "A", "A", "--key-a", "rpp:mc4", "--key-b", "rpp:mc4", "-o",
                                 "jsonl", "--output", "W"), None, set()),
    "agree-jsonl": (("output/agree.py",), ("agree", "-J", os.fsdecode(JUDGE), "-J", "j.c4", "-l", "pair",
                                           "-o", "jsonl", "--output", "W"), _read_agree, {JUDGE}),
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
    if reader == PANDAS:
        assert want <= READ_INTO_PANDAS[case](out)  # (was refused before session 27: pandas' str dtype)
    elif reader is not None:
        assert want <= reader(out)  # and our own reader


def test_judgment_writers_round_trip(tmp_path):
    """zelo_judge's canonical lines and a zelo_pairs batch (UTF-8 kept, a byte that is not UTF-8 escaped),
    read back by the judgment reader (every path: the file's lines and the whole document)."""
    from pref_eval.output.judgments import judgment_line
    from pref_eval.zelo.pair_state import judgment_batch

    q, a, b = (x.decode("utf-8", "surrogateescape") for x in (TOPIC, DOCS[0], "naïve".encode()))
    for name, data in (("canonical.jsonl", "".join(judgment_line(q, a, b, [1.0], ["j"], ["AB"]) for _ in range(3))
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
        "judge/judges.py",  # a cmd: judge's request (the judge program reads it; no reader of ours)
    }
    writers = set()
    for p in sorted((ROOT / "pref_eval").rglob("*.py")):
        rel = p.relative_to(ROOT / "pref_eval").as_posix()
        text = p.read_text("utf-8")
        in_writers = rel.startswith(("output/", "zelo/"))
        if rel != "output/json_text.py" and in_writers and re.search(r"\bjson\.dumps\(", text):
            pytest.fail(f"{rel} calls json.dumps: JSON outputs go through output/json_text.json_dumps")
        if WRITES_JSON.search(text) and not text.count("def json_dumps"):
            writers.add(rel)
    assert writers <= covered, sorted(writers - covered)


def _judge_batch(d: Path, batch: Path, out: Path) -> None:
    """Answer a ``topic docA docB`` batch: the smaller id (as bytes) wins (clarke4)."""
    rows = [line.split()[:3] for line in batch.read_bytes().splitlines() if line.strip() and not line.startswith(b"#")]
    out.write_bytes(b"".join(b" ".join([t, a, b, min(a, b)]) + b"\n" for t, a, b in rows))


@pytest.mark.parametrize("init", [
    ("--qrels", "q.qrels", "--k", "1", "--p", "2", "--f", "3"),  # Clarke's tournament (graded_documents)
    ("--strategy", "adaptive", "--run", "a.run", "--run", "b.run", "--depth", "4"),  # best item
    pytest.param(("--strategy", "adaptive", "--goal", "ranking", "--run", "a.run", "--depth", "5"),
                 marks=pytest.mark.slow),  # the ranking rounds: ~2 s
])
def test_pair_states_hold_latin1_ids(tmp_path, init):
    """zelo_pairs init/next/add/result with Latin-1 candidates: the state (JSON, ASCII) holds them as \\udcNN, the
    batches and the result give the same bytes (was: `graded_documents` refused the qrels, `add` the batch, the
    run candidates lost the bytes to U+FFFD)."""
    _write_inputs(tmp_path)
    _cmd(tmp_path, "pairs", "init", "--state", "s.json", *init)
    assert (tmp_path / "s.json").read_bytes().isascii()
    asked: set[bytes] = set()
    for i in range(12):
        batch = tmp_path / f"b{i}.txt"
        _cmd(tmp_path, "pairs", "next", "--state", "s.json", "-o", batch.name)
        if not batch.read_bytes().strip(b"\n").split(b"\n")[-1:] or not any(
                line and not line.startswith(b"#") for line in batch.read_bytes().splitlines()):
            break
        asked |= {f for line in batch.read_bytes().splitlines() if not line.startswith(b"#") for f in line.split()[:3]}
        _judge_batch(tmp_path, batch, tmp_path / f"a{i}.c4")
        res = run_module_inproc("pairs", ["add", "--state", "s.json", "-J", f"a{i}.c4"], tmp_path)
        assert res.returncode == 0 and not re.search(r"\b0 judgments used", res.stderr), res.stderr
    assert asked & set(DOCS) and asked <= {TOPIC, b"q2", *DOCS}
    res = run_module_inproc("pairs", ["result", "--state", "s.json", "-o", "r.txt"], tmp_path)
    assert res.returncode == 0, res.stderr
    got = {f for line in (tmp_path / "r.txt").read_bytes().splitlines() for f in line.split()[:2]}
    assert TOPIC in got and got & set(DOCS)


def test_judge_store_holds_latin1_ids(tmp_path):
    """zelo_judge's answer store (SQLite TEXT is UTF-8): an id that is not UTF-8 is kept as a BLOB of its bytes and
    read back as the same id; UTF-8 ids stay TEXT."""
    from pref_eval.judge.store import Store

    q, a = (x.decode("utf-8", "surrogateescape") for x in (TOPIC, DOCS[1]))
    st = Store(str(tmp_path / "s.sqlite"))
    try:
        st.add_prompt("p", "template")
        for k, (qid, d1, d2) in enumerate([(q, a, "naïve"), ("q2", "x", "y")]):
            st.put({"judge": "j", "prompt": "p", "qid": qid, "doc_1": d1, "doc_2": d2, "vote": 1.0, "status": "ok",
                    "time": float(k)})
        assert st.votes(["j"], "p") == {("j", q, a, "naïve", 0): 1.0, ("j", "q2", "x", "y", 0): 1.0}
        assert {r[1:4] for r in st.rows("p")} == {(q, a, "naïve"), ("q2", "x", "y")}
        assert st.keys(["j"], "p", ok_only=True) == {("j", q, a, "naïve", 0): 1, ("j", "q2", "x", "y", 0): 1}
    finally:
        st.close()


@pytest.mark.parametrize("module,files,args,shown", [
    ("trec", {"q.qrels": b"q 0 d 1\xe9\n", "r.run": b"q Q0 d 1 1 r\n"}, ["q.qrels", "r.run"],
     "relevance grade '1\\xe9' is not an integer"),
    ("trec", {"q.qrels": b"q 0 d 1\n", "r.run": b"q Q0 d 1 x\xe9 r\n"}, ["q.qrels", "r.run"], "'x\\xe9'"),
    ("trec", {"q.qrels": b"q 0 d 1\n", "r.run": b"q\xe9 Q0 d 1 1 r\n"}, ["q.qrels", "r.run"],
     "(run 1 topic: 'q\\xe9'; qrels 1 topic: 'q')"),
    ("trec", {"q.qrels": b"q 0 d 1\n", "r.run": b"q Q0 d\xe9 1 1 r\nq Q0 d\xe9 2 1 r\n"}, ["q.qrels", "r.run"],
     "duplicate document d\\xe9 for query q"),
    ("fit", {"j.txt": b"t\xe9 a b 1\xe9\n"}, ["-J", "j.txt", "--format", "carterette"], "got '1\\xe9'"),
    ("fit", {"j.txt": b"t\xe9\ta,b\t\xb62\t0\n"}, ["-J", "j.txt", "--format", "xie"], "'\\xb62'"),
])
def test_messages_show_a_byte_that_is_not_utf8(tmp_path, module, files, args, shown):
    """One rule for a field shown in a message (errors.shown): a byte that is not UTF-8 as \\xNN (was: the
    qrels reader's U+FFFD, the judgment readers' '\\udce9'); oracle: the bytes of the file."""
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    res = run_module_inproc(module, args, tmp_path)
    assert res.returncode == 2 and shown in res.stderr and "\\udc" not in res.stderr and "\ufffd" not in res.stderr, \
        res.stderr
    assert len(res.stderr.splitlines()) == 1


def test_shown_rule():
    from pref_eval.errors import one_line, shown

    assert shown("1\udce9") == shown(b"1\xe9") == "'1\\xe9'"
    assert shown("naïve") == "'naïve'" and shown("a\\udce9") == "'a\\\\udce9'"  # a real backslash stays one
    assert shown("a\\\udce9") == "'a\\\\\\xe9'" and shown(3) == "3"
    assert one_line("caf\udce9\n") == "caf\\xe9\\n"


@pytest.mark.parametrize("fmt", ["wide-csv", "markdown", "latex"])
def test_wide_tables_keep_latin1_run_names(ws, fmt):
    """zelo_eval's tables of means go through the comparison's pandas-free table (was: pandas' UnicodeEncodeError
    traceback for a Latin-1 run tag); the tags come out as their bytes."""
    out = ws / f"wide.{fmt}"
    _cmd(ws, "eval", "-R", "q.qrels", "--run-id", "tag", "-o", fmt, "-m", "map", "--output", out.name, *RUNS)
    assert set(TAGS) <= set(re.split(rb"[\s,|&\\]+", out.read_bytes()))


def test_preference_comparison_takes_latin1_ids(ws):
    """zelo_compare -R with a preference measure: such ids kept (a traceback in session 25, refused in one line in
    session 26, taken since session 27: tests/test_latin1_compare.py checks the records against an ASCII twin)."""
    res = run_module_inproc("compare", ["-R", "q.qrels", "--run-id", "tag", "-m", "rpp", "-o", "jsonl", *RUNS], ws,
                            text=False)
    assert res.returncode == 0 and res.stderr == b"" and b'"run_a": "r\\udce9a"' in res.stdout, res.stderr


def test_api_frames_hold_latin1_ids(ws):
    """The API's DataFrames (evaluate, preferences, fit) hold such ids in object columns (pandas' str dtype cannot):
    the ids as read, their bytes the file's."""
    import pref_eval

    ev = pref_eval.evaluate(str(ws / "q.qrels"), [str(ws / "a.run")], ["map"])
    assert {_b(q) for q in ev.qid} == {TOPIC, b"q2"}
    pr = pref_eval.preferences(str(ws / "q.qrels"), [str(ws / "a.run"), str(ws / "b.run")])
    assert TOPIC in {_b(q) for q in pr.qid}
    fit = pref_eval.fit(str(ws / "j.c4"))
    assert {_b(d) for d in fit.docno} == set(DOCS) and {_b(q) for q in fit.qid} == {TOPIC}


def test_tournament_qrels_of_latin1_ids_match_trec_eval(tmp_path):
    """Latin-1 graded qrels -> zelo_pairs init/next/add (clarke4 batches, the smaller id wins) -> `result --qrels`
    (graded qrels of the same bytes): zelo_trec on them equals trec_eval 10 run live on the same bytes."""
    import subprocess

    trec_eval = Path("/tmp/trec_eval/trec_eval")
    if not os.access(trec_eval, os.X_OK):
        pytest.skip("trec_eval 10 is not built under /tmp/trec_eval")
    _write_inputs(tmp_path)
    _cmd(tmp_path, "pairs", "init", "--state", "s.json", "--qrels", "q.qrels", "--k", "2", "--final-phase")
    for i in range(20):
        batch = tmp_path / f"b{i}.txt"
        _cmd(tmp_path, "pairs", "next", "--state", "s.json", "-o", batch.name)
        _judge_batch(tmp_path, batch, tmp_path / f"a{i}.c4")
        if not (tmp_path / f"a{i}.c4").read_bytes():
            break
        _cmd(tmp_path, "pairs", "add", "--state", "s.json", "-J", f"a{i}.c4", "--format", "clarke4")
    _cmd(tmp_path, "pairs", "result", "--state", "s.json", "--qrels", "q.qrels", "-o", "z.qrels")
    assert TOPIC + b" Q0 " + DOCS[1] in (tmp_path / "z.qrels").read_bytes()
    for opts in ([], ["-q", "-m", "all_trec"]):
        ours = run_module_inproc("trec", [*opts, "z.qrels", "a.run"], tmp_path, text=False)
        te = subprocess.run([str(trec_eval), *opts, "z.qrels", "a.run"], cwd=tmp_path, capture_output=True, check=True)
        assert ours.stdout == te.stdout and (TOPIC in te.stdout or not opts)


@pytest.mark.slow  # two system-level reports (runs evaluated per judge, a paired test): ~3 s CPU
def test_agree_system_level_with_latin1_topics(tmp_path):
    """zelo_agree -l system on judgments and runs whose topics and docnos are Latin-1 (was a UnicodeEncodeError
    traceback in pandas' pivot table); the same figures as an ASCII twin of the files (the oracle: only the
    bytes of the ids differ)."""
    _write_inputs(tmp_path)
    rows = [(DOCS[i], DOCS[k], DOCS[min(i, k)]) for i in range(5) for k in range(5) if i < k]
    c4 = b"".join(t + b" " + a + b" " + b + b" " + w + b"\n" for t in (TOPIC, b"q2") for a, b, w in rows)
    twin = {TOPIC: b"tX", **{d: b"doc%d" % k for k, d in enumerate(DOCS)}, **{t: b"rX%d" % k for k, t in
                                                                               enumerate(TAGS)}}
    (tmp_path / "j2.c4").write_bytes(c4)
    for name in ("j2.c4", "a.run", "b.run"):
        data = (tmp_path / name).read_bytes()
        (tmp_path / f"x-{name}").write_bytes(b"\n".join(b" ".join(twin.get(f, f) for f in line.split(b" "))
                                                        for line in data.split(b"\n")))
    got = [run_module_inproc("agree", ["-J", f"{p}j2.c4", "-J", f"{p}j2.c4", "-l", "system", "--runs", f"{p}a.run",
                                       "--runs", f"{p}b.run", "-m", "map", "--resamples", "20", "-o", "tsv"], tmp_path)
           for p in ("", "x-")]
    assert got[0].returncode == 0 and got[1].returncode == 0, got[0].stderr
    assert got[0].stdout.replace("j2.c4", "x-j2.c4").replace("a.run", "x-a.run").replace("b.run", "x-b.run") \
        == got[1].stdout
