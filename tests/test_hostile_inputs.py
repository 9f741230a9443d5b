"""Hostile files given to the input kinds added in sessions 25-28 (session 29, f39): zELO score files where qrels
go (``zelo_eval``/``zelo_compare``/``zelo_plot -R``, ``pref_eval.evaluate``), zbench's JSON lines (annotated and
reranker files), judge stores. Each case failed on the code before session 29:

* a score file that is empty, a directory or a stream (``-``, a FIFO) given with zbench's measures to
  ``zelo_compare -R`` / ``zelo_plot systems|pairs -R`` / ``evaluate`` got the hint meant for TREC qrels
  ("measure 'zndcg@10' is computed against a zELO score file: -R ... must be zelo_fit's scores TSV ..., not TREC
  qrels"), which names no file and is wrong for the file given;
* a score file or a zbench reranker file on a stream was read as TREC qrels or a run: "relevance grade 'se' is not
  an integer", "score '"q"},' is not a number" (a score file is recognised by a regular file's first line);
* a score TSV holding its header alone scored every run nan (``zelo_eval``: exit 0, "no query in common") or said
  "nothing to compare" without naming the file;
* a judge store whose pages are damaged (its schema still opens) was sqlite3's DatabaseError traceback when its
  answers were read (``zelo_judge export``, a run answered from it).

Oracle: docs/exit-codes.md's contract (one line naming the file, status 2, no traceback, nothing written) and
the file's own bytes (what kind of file it is, checked by hand).
"""
from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import threading
from pathlib import Path

import pytest
from cli_harness import check_contract, digest_tree, run_inproc

from conftest import ROOT  # noqa: E402

CASE = ROOT / "tests" / "data" / "zelo" / "zbench" / "case_dl19pool"
ZB = "expected zelo_fit's scores TSV or zbench's JSON lines for zbench's measures"
STREAM = "is recognised by the first line of a regular file"

# the commands that take a score file where qrels go, with zbench's measure zndcg@10
R_COMMANDS = {
    "compare": ("zelo_compare", ["-m", "zndcg@10", "--tests", "t", "bm25.run", "dense.run"]),
    "plot-systems": ("zelo_plot", ["systems", "-m", "zndcg@10", "-o", "f.svg", "-Q", "bm25.run", "dense.run"]),
    "plot-pairs": ("zelo_plot", ["pairs", "-m", "zndcg@10", "-o", "f.svg", "-Q", "bm25.run", "dense.run"]),
}


def _spoil(ws: Path, name: str, how: str) -> None:
    p = ws / name
    if how == "empty":
        p.write_bytes(b"")
    elif how == "directory":
        p.unlink()
        p.mkdir()
    elif how == "fifo":
        p.unlink()
        os.mkfifo(p)
    elif how == "missing":
        p.unlink()


def _one_line(res, script: str) -> str:
    assert check_contract(res, script=script, expect={2}) == [], res.stderr
    assert res.stderr.count("\n") == 1, res.stderr
    return res.stderr


@pytest.mark.parametrize("how,said", [("empty", f"scores.tsv: empty file, {ZB}"),
                                      ("directory", f"scores.tsv: is a directory, {ZB}"),
                                      ("fifo", f"scores.tsv: a stream (standard input or a pipe): {ZB}, which are "
                                               "recognised by the first line of a regular file; give it as a file"),
                                      ("missing", f"scores.tsv: no such file ({ZB})")])
@pytest.mark.parametrize("cmd", sorted(R_COMMANDS))
def test_score_file_that_cannot_be_one_is_named(ws, cmd, how, said):
    if cmd.startswith("plot"):
        pytest.importorskip("matplotlib")
    script, argv = R_COMMANDS[cmd]
    _spoil(ws, "scores.tsv", how)
    before = digest_tree(ws)
    res = run_inproc(script, ["-R", "scores.tsv", *argv] if cmd == "compare" else [*argv[:1], "-R", "scores.tsv",
                                                                                    *argv[1:]], ws)
    assert _one_line(res, script) == f"{script}: {said}\n"
    assert digest_tree(ws) == before


def test_score_file_on_standard_input_with_zbench_measures(ws):
    res = run_inproc("zelo_compare", ["-R", "-", *R_COMMANDS["compare"][1]], ws,
                     stdin=(ws / "scores.tsv").read_bytes())
    assert _one_line(res, "zelo_compare").startswith(f"zelo_compare: <stdin>: a stream (standard input or a pipe): "
                                                     f"{ZB}")


@pytest.mark.parametrize("how", ["empty", "directory", "fifo"])
def test_api_evaluate_names_the_score_file(ws, how):
    import pref_eval
    from pref_eval.errors import InputError

    _spoil(ws, "scores.tsv", how)
    with pytest.raises(InputError) as info:
        pref_eval.evaluate(str(ws / "scores.tsv"), [str(ws / "bm25.run")], ["zndcg@10"])
    assert str(info.value).startswith(f"{ws / 'scores.tsv'}: ") and ZB in str(info.value), str(info.value)


def _fifo_writer(path: Path, data: bytes) -> threading.Thread:
    def write() -> None:
        try:
            with open(path, "wb") as fh:
                fh.write(data)
        except OSError:
            pass

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


def _release(path: Path, t: threading.Thread) -> None:
    """A writer still waiting for a reader (the command did not open the FIFO) is let go."""
    if t.is_alive():
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        t.join(5)
        os.close(fd)


@pytest.mark.parametrize("kind", ["tsv", "jsonl"])
@pytest.mark.parametrize("via", ["stdin", "fifo"])
def test_score_file_on_a_stream_is_not_read_as_qrels(ws, kind, via):
    """``zelo_eval -R - < scores.tsv`` (or a FIFO): read as TREC qrels, "relevance grade 'se' is not an integer"
    (the TSV) or "expected 4 fields" (zbench's JSON lines) before session 29."""
    src = ws / "scores.tsv" if kind == "tsv" else CASE / "zbench_annotated.jsonl"
    data = src.read_bytes()
    got = ("zelo_fit's score header 'qid<TAB>docno<TAB>score<TAB>se'" if kind == "tsv" else
           "a JSON object (zbench's JSON lines)")
    if via == "stdin":
        res = run_inproc("zelo_eval", ["-R", "-", "bm25.run"], ws, stdin=data)
        name = "<stdin>"
    else:
        (ws / "s.fifo").unlink(missing_ok=True)
        os.mkfifo(ws / "s.fifo")
        t = _fifo_writer(ws / "s.fifo", data)
        try:
            res = run_inproc("zelo_eval", ["-R", "s.fifo", "bm25.run"], ws)
        finally:
            _release(ws / "s.fifo", t)
        name = "s.fifo"
    assert _one_line(res, "zelo_eval") == (f"zelo_eval: {name}:1: expected TREC qrels, got {got}: a zELO score file "
                                           f"or zbench's JSON lines {STREAM}, and {name} is a stream (standard input "
                                           "or a pipe); give it as a file\n")


def test_reranker_file_on_standard_input_is_not_read_as_a_run(ws):
    for f in ("zbench_annotated.jsonl", "rerank_dense.jsonl"):
        shutil.copy(CASE / f, ws / f)
    res = run_inproc("zelo_eval", ["-R", "zbench_annotated.jsonl", "-"], ws,
                     stdin=(CASE / "rerank_dense.jsonl").read_bytes())
    assert _one_line(res, "zelo_eval").startswith("zelo_eval: <stdin>:1: expected a TREC run, got a JSON object "
                                                  "(zbench's JSON lines): ")


def test_plot_scores_on_a_stream_of_zbench_lines(ws):
    pytest.importorskip("matplotlib")
    res = run_inproc("zelo_plot", ["scores", "-S", "-", "-o", "f.svg", "-Q"], ws,
                     stdin=(CASE / "zbench_annotated.jsonl").read_bytes())
    assert _one_line(res, "zelo_plot").startswith("zelo_plot: <stdin>:1: expected zelo_fit's score TSV, got a JSON "
                                                  "object (zbench's JSON lines): ")
    assert not (ws / "f.svg").exists()


HEADER_ONLY = "scores.tsv: no score rows after the header (expected a line 'qid<TAB>docno<TAB>score<TAB>se' per " \
              "document)"


@pytest.mark.parametrize("script,argv", [
    ("zelo_eval", ["-R", "scores.tsv", "bm25.run"]),
    ("zelo_eval", ["-R", "scores.tsv", "-o", "text", "bm25.run", "dense.run"]),
    ("zelo_compare", ["-R", "scores.tsv", *R_COMMANDS["compare"][1]]),
])
def test_score_file_with_its_header_alone(ws, script, argv):
    """Before: ``zelo_eval`` exit 0 with a warning and nan means; ``zelo_compare`` "nothing to compare (no measure
    with values for at least two runs)" (no file named)."""
    (ws / "scores.tsv").write_text("qid\tdocno\tscore\tse\n")
    before = digest_tree(ws)
    assert _one_line(run_inproc(script, argv, ws), script) == f"{script}: {HEADER_ONLY}\n"
    assert digest_tree(ws) == before


def test_api_score_file_with_its_header_alone(ws):
    import pref_eval
    from pref_eval.errors import InputError

    (ws / "scores.tsv").write_text("qid\tdocno\tscore\tse\n")
    with pytest.raises(InputError, match="no score rows after the header"):
        pref_eval.evaluate(str(ws / "scores.tsv"), [str(ws / "bm25.run")], ["zndcg@10"])


def _damage(store: Path) -> None:
    """One byte inserted in the middle of the file (its later pages shift): the schema on page 1 still opens."""
    data = store.read_bytes()
    assert len(data) >= 3 * 4096, len(data)
    k = len(data) // 2
    store.write_bytes(data[:k] + b"\0" + data[k:])


def _store(ws: Path) -> None:
    """A store with enough answers to fill several pages (the fault workspace's has a few)."""
    db = sqlite3.connect(ws / "judge.sqlite", isolation_level=None)
    cols = [r[1] for r in db.execute("PRAGMA table_info(answers)")]
    row = db.execute("SELECT * FROM answers LIMIT 1").fetchone()
    i = cols.index("doc_1")
    db.executemany(f"INSERT INTO answers VALUES ({', '.join('?' * len(cols))})",
                   [(*row[:i], f"x{n:05d}" * 20, *row[i + 1:]) for n in range(400)])
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    _damage(ws / "judge.sqlite")


@pytest.mark.parametrize("argv", [
    ["export", "--store", "judge.sqlite", "-Q"],
    ["pairs.jsonl", "--queries", "jq.tsv", "--docs", "jd.tsv", "--judge", f"cmd:{sys.executable} judge.py",
     "--store", "judge.sqlite", "-Q", "-o", "fz.jsonl"],
], ids=["export", "judge"])
def test_damaged_store_is_one_line(ws, argv):
    _store(ws)
    before = digest_tree(ws, ignore=())
    res = run_inproc("zelo_judge", argv, ws)
    assert _one_line(res, "zelo_judge").startswith("zelo_judge: judge.sqlite: a damaged zelo_judge store: its "
                                                   "answers cannot be read ("), res.stderr
    assert not (ws / "fz.jsonl").exists()
    after = digest_tree(ws, ignore=(".sqlite-wal", ".sqlite-shm", ".lock"))
    assert {k: v for k, v in before.items() if k in after} == after


def test_api_damaged_store(ws):
    import pref_eval
    from pref_eval.errors import InputError

    _store(ws)
    with pytest.raises(InputError, match="a damaged zelo_judge store"):
        pref_eval.api.judge_export(str(ws / "judge.sqlite"), output=str(ws / "out.jsonl"))
    assert not (ws / "out.jsonl").exists()


def test_ordering_with_a_key_twice(ws):
    """A pref_aggregate summary line naming a measure twice: which ordering was meant? Before, the last one was
    compared silently (exit 0); now the rule of the per-query reader (``duplicate key``) for every small JSON-lines
    reader (textfile.json_object: orderings, zelo_compare's records, texts and pairs as JSON lines)."""
    (ws / "oj.jsonl").write_text('{"qid": "all", "rpp": {"type": "preference", "mc4": ["rerank", "dense", "bm25"]}, '
                                 '"rpp": {"type": "preference", "mc4": ["dense", "rerank", "bm25"]}}\n')
    res = run_inproc("zelo_compare", ["--orderings", "oj.jsonl", "order_b.txt"], ws)
    assert _one_line(res, "zelo_compare") == "zelo_compare: oj.jsonl:1: duplicate key 'rpp' in a JSON object\n"


@pytest.mark.parametrize("line", ['{"a": 1, "a": 2}', '{"a": {"b": 1, "b": 1}}'])
def test_json_object_refuses_a_key_twice(line):
    from pref_eval.errors import InputError
    from pref_eval.io.textfile import json_object

    with pytest.raises(InputError) as info:
        json_object(line, "f.jsonl", 3)
    assert str(info.value) == f"f.jsonl:3: duplicate key {'a' if line.count('a') == 2 else 'b'!r} in a JSON object"


@pytest.mark.parametrize("script,argv,said", [
    ("zelo_eval", ["-R", "-", "-m", "map", "bm25.run", "-"], "-R - and RUN -"),
    ("zelo_eval", ["-R", "/dev/stdin", "-m", "map", "/dev/fd/0"], "-R /dev/stdin and RUN /dev/fd/0"),
    ("zelo_compare", ["-R", "-", "-m", "map", "bm25.run", "-"], "-R - and RUN -"),
    ("zelo_plot", ["systems", "-R", "-", "-m", "map", "-o", "f.svg", "bm25.run", "-"], "-R - and RUN -"),
])
def test_standard_input_given_twice(ws, script, argv, said):
    """``zelo_eval -R - - < q.qrels``: the qrels read standard input, then the run found it empty ("<stdin>: empty
    run file", which blames the run) -- or, with ``-R`` a file, two runs ``-`` and ``/dev/stdin`` read once."""
    if script == "zelo_plot":
        pytest.importorskip("matplotlib")
    res = run_inproc(script, argv, ws, stdin=(ws / "q.qrels").read_bytes())
    assert _one_line(res, script) == (f"{script}: standard input is given twice ({said}): it can be read once; give "
                                      "one of them as a file\n")
    assert not (ws / "f.svg").exists()


def test_api_standard_input_given_twice():
    import pref_eval
    from pref_eval.errors import UsageError

    with pytest.raises(UsageError, match=r"^standard input is given twice \(qrels - and runs -\)"):
        pref_eval.evaluate("-", ["-"], ["map"])


def test_zelo_eval_zbench_measure_with_a_stream(ws):
    res = run_inproc("zelo_eval", ["-R", "-", "-m", "zndcg@10", "bm25.run"], ws, stdin=(ws / "scores.tsv").read_bytes())
    assert _one_line(res, "zelo_eval") == f"zelo_eval: <stdin>: a stream (standard input or a pipe): {ZB}, which are " \
                                          "recognised by the first line of a regular file; give it as a file\n"


def test_annotated_query_without_documents(ws):
    """zbench's annotated line ``{"query": {...}, "documents": []}`` (zbench's model takes it): max() of no
    scores was a ValueError traceback; the query has no scored document, so the runs' documents on it are left out
    and warned, as any document without a zELO score is."""
    lines = (ws / "ann.jsonl").read_text().splitlines()
    lines[7] = '{"query": {"id": "1113437", "query": "q"}, "documents": []}'
    (ws / "ann.jsonl").write_text("\n".join(lines) + "\n")
    res = run_inproc("zelo_eval", ["-R", "ann.jsonl", "rd.jsonl", "rr.jsonl"], ws)
    assert check_contract(res, script="zelo_eval", expect={0}) == [], res.stderr
    assert "rd.jsonl: 29 of its 229 documents on the queries of ann.jsonl have no zELO score" in res.stderr


def test_score_header_not_first(ws):
    """The score TSV's lines sorted (``sort scores.tsv``): the header is no longer first, the file was taken for
    TREC qrels and zelo_compare said so without naming it."""
    lines = (ws / "scores.tsv").read_text().splitlines()
    (ws / "scores.tsv").write_text("\n".join([*lines[1:3], lines[0], *lines[3:]]) + "\n")
    res = run_inproc("zelo_compare", ["-R", "scores.tsv", *R_COMMANDS["compare"][1]], ws)
    assert _one_line(res, "zelo_compare") == ("zelo_compare: scores.tsv:3: zelo_fit's header "
                                              f"'qid<TAB>docno<TAB>score<TAB>se' is not on the first line, {ZB}\n")


# guards (held before session 29): the new kinds' commands with standard output gone or full
PIPED = {
    "eval-scores": ("zelo_eval", ["-R", "scores.tsv", "-q", "-Q", "bm25.run", "dense.run"]),
    "eval-annotated": ("zelo_eval", ["-R", "ann.jsonl", "-q", "rd.jsonl", "rr.jsonl"]),
    "compare-scores": ("zelo_compare", ["-R", "scores.tsv", "-Q", *R_COMMANDS["compare"][1]]),
    "compare-P-wide": ("zelo_compare", ["-P", "prefs.jsonl", "-m", "rpp", "--tests", "t"]),
}


@pytest.mark.parametrize("case,sink", [pytest.param(c, s, marks=[] if (c, s) == ("eval-annotated", "gone") else
                                                    [pytest.mark.slow])  # a process each (~1 s)
                                       for c in sorted(PIPED) for s in ("gone", "full")])
def test_new_kinds_output_gone_or_full(ws, case, sink):
    """``cmd | head -1`` (the reader gone before anything is written: every write gets EPIPE) is exit 0 and
    silent; standard output on a full disk is status 1, one line (docs/exit-codes.md)."""
    import subprocess

    from cli_harness import run_subprocess

    script, argv = PIPED[case]
    before = digest_tree(ws)
    if sink == "gone":
        r, w = os.pipe()
        os.close(r)
        try:
            res = run_subprocess(script, argv, ws, stdout=w, stderr=subprocess.PIPE)
        finally:
            os.close(w)
        assert res.returncode == 0 and res.stderr == b"", res.stderr
    else:
        with open("/dev/full", "wb") as full:
            res = run_subprocess(script, argv, ws, stdout=full, stderr=subprocess.PIPE)
        err = res.stderr.decode()
        assert res.returncode == 1 and "Traceback" not in err and "No space left" in err, err
        assert [x for x in err.splitlines() if "warning:" not in x] == [err.splitlines()[-1]], err
    assert digest_tree(ws) == before


NUL_ID = "an id holding a NUL character (expected text: a NUL ends an id for C readers, so two different ids could " \
         "read as one)"


@pytest.mark.parametrize("form", ["frame", "frame-arrow", "frame-category", "dict", "records", "bytes-records"])
def test_api_id_with_a_nul_refused(form):
    """Ids given as data holding a NUL: numpy's byte strings drop a trailing NUL, so the qrels' document 'a\\0'
    matched the run's 'a' (map 1.0 for a run that retrieved no judged document); a file's NUL is refused for that
    reason (session 16). Oracle: the ids themselves ('a\\0' != 'a' in Python)."""
    import pandas as pd

    import pref_eval
    from pref_eval.errors import InputError

    run = {"1": {"a": 1.0, "b": 0.5}}
    if form.startswith("frame"):
        qrels = pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["b", "a\0"], "relevance": [0, 1]})
        qrels = qrels.astype({"doc_id": {"frame": object, "frame-arrow": "string[pyarrow]",
                                         "frame-category": "category"}[form]})
        want = f"<qrels>:2: column 'doc_id': {NUL_ID}"
    elif form == "dict":
        qrels, want = {"1": {"b": 0, "a\0": 1}}, f"<qrels>:2: {NUL_ID}"
    else:
        qrels = [("1", "b", 0), ("1", b"a\0" if form == "bytes-records" else "a\0", 1)]
        want = f"<qrels>:2: {NUL_ID}"
    with pytest.raises(InputError) as info:
        pref_eval.evaluate(qrels, run, ["map"])
    assert str(info.value) == want
    with pytest.raises(InputError) as info:
        pref_eval.evaluate({"1": {"a": 1}}, {"1": {"a\0": 1.0}}, ["map"])
    assert str(info.value) == f"run:1: {NUL_ID}"


@pytest.mark.parametrize("content", ["", "\n\n", "  \n"])
def test_pairs_add_of_no_judgment_refused(ws, content):
    """``zelo_pairs add -J EMPTY --format jsonl``: a batch of nothing was added to the state (rewritten, exit 0; a
    second add said "already added"). Now refused, the state unchanged, as a file of judgments of no requested pair
    is."""
    (ws / "none.jsonl").write_text(content)
    before = digest_tree(ws)
    res = run_inproc("zelo_pairs", ["add", "--state", "rs.json", "-J", "none.jsonl", "--format", "jsonl"], ws)
    assert _one_line(res, "zelo_pairs") == ("zelo_pairs: none.jsonl: no judgment in it: nothing was added, rs.json "
                                            "is unchanged\n")
    assert digest_tree(ws) == before


@pytest.mark.parametrize("files", [["none.txt"], ["none.txt", "none.txt"]])
def test_fit_of_no_judgment_refused(ws, files):
    """``zelo_fit -J EMPTY --format clarke3 -o s.tsv`` wrote a score file of its header alone (exit 0), which
    every reader of score files refuses ("no score rows after the header")."""
    (ws / "none.txt").write_text("")
    argv = [a for f in files for a in ("-J", f)]
    res = run_inproc("zelo_fit", [*argv, "--format", "clarke3", "-Q", "-o", "s.tsv"], ws)
    said = "it" if len(files) == 1 else "any of these files"
    assert _one_line(res, "zelo_fit") == f"zelo_fit: {', '.join(files)}: no judgment in {said}: nothing to fit\n"
    assert not (ws / "s.tsv").exists()
