"""Session 25 (k35): a new track organizer's first mistakes with ``zelo_eval --run-types`` and ``zelo_pairs pool
--groups`` (tried from the docs alone): a types file keyed by the runs' file names instead of their run tags is
told so; a header without rows says so, with its line; a run read from stdin takes its type by its last line's
tag, and since its tags are found as it is read (``Run.tags``) one of two types is refused as a file is; a
spreadsheet's CSV with a byte-order mark and CRLF line ends is read."""
from __future__ import annotations

from cli_harness import run_inproc
from test_track_types import RANKED, RUNS, _run, _table, _ws


def _eval(ws, types: str, runs=RUNS, stdin: bytes = b""):
    return run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--run-types", types, *runs],
                      ws, stdin=stdin)


def test_types_keyed_by_file_names_are_told_so(tmp_path):
    ws = _ws(tmp_path)
    (ws / "byfile.txt").write_text("".join(f"{r} automatic\n" for r in RUNS))
    res = _eval(ws, "byfile.txt")
    assert res.returncode == 2 and res.stdout == b""
    assert res.stderr == ("zelo_eval: byfile.txt: no type for run tag 'A' of A.run (expected a line 'A TYPE'; "
                          "byfile.txt names 'A.run', the run's file: a run goes by its run tag, the 6th column of "
                          "its lines (trec_eval's runid))\n")
    (ws / "g.txt").write_text("./A.run X\n")
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "-Q", "-o", "p.txt", "--contributions", "c.tsv",
                                    "--groups", "g.txt", "./A.run"], ws)
    assert res.returncode == 2 and res.stderr.endswith("g.txt names './A.run', the run's file: a run goes by its run "
                                                       "tag, the 6th column of its lines (trec_eval's runid))\n")
    (ws / "few.txt").write_text("B automatic\n")  # no such line at all: the message as before, no hint
    assert _eval(ws, "few.txt").stderr == ("zelo_eval: few.txt: no type for run tag 'A' of A.run (expected a line "
                                           "'A TYPE')\n")


def test_header_without_rows(tmp_path):
    ws = _ws(tmp_path)
    (ws / "h.csv").write_text("# exported\nRun tag,Group,Run type\n")
    assert _eval(ws, "h.csv").stderr == ("zelo_eval: h.csv:2: a header and no RUNTAG TYPE line (expected the type "
                                         "of each run, by run tag)\n")


def test_run_from_stdin_and_a_spreadsheet_csv(tmp_path):
    ws = _ws(tmp_path)
    want = _table(ws, ["--run-types", "types.csv"], runs=["A.run", "M.run"])
    (ws / "bom.csv").write_bytes(b"\xef\xbb\xbf" + (ws / "types.csv").read_bytes().replace(b"\n", b"\r\n"))
    assert _table(ws, ["--run-types", "bom.csv"], runs=["A.run", "M.run"]) == want
    res = _eval(ws, "types.csv", ["A.run", "-"], stdin=(ws / "M.run").read_bytes())
    assert res.returncode == 0, res.stderr
    got = [r.split("\t") for r in res.stdout.decode().splitlines()]
    assert got[0][-1] == "stdin" and [r[:-1] for r in got] == [r[:-1] for r in want]
    two = _run("A", RANKED["A"], {"t1": "M"}).encode()  # lines 1-2 tagged as the manual run, line 3 'A'
    res = _eval(ws, "types.csv", ["M.run", "-"], stdin=two)
    assert res.returncode == 2 and res.stderr.startswith("zelo_eval: <stdin>:1: run tag 'M' (type 'manual') differs "
                                                         "from the last line's 'A' (type 'automatic')"), res.stderr
