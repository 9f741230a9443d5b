"""Track organizers, session 24 (k33): the per-topic table per run type (``zelo_eval -o topics* --run-types
FILE``: NIST's medians are over the runs of one type) with CLEF's quartiles (``--quartiles``); the files of run
groups / types as organizers have them (TSV/CSV with a header, Latin-1 tags); a run whose lines carry several
tags. Oracles: trec_eval 10's own ``-q`` output (computed live when the binary is at /tmp/trec_eval) with
pandas' ``groupby`` (min, ``quantile``, ``median``, max) and ``statistics.median_high``; a hand-worked table;
trec_eval's behaviour with a run of two tags (live)."""
from __future__ import annotations

import csv
import io
import json
import os
import statistics
import subprocess
from fractions import Fraction as F
from pathlib import Path

import pytest

from cli_harness import run_inproc

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec_eval_test"
TREC_EVAL = Path("/tmp/trec_eval/trec_eval")

# -- a hand-worked table: AP by hand (2 relevant in t1, 1 in t2)
QRELS = "t1 0 d1 1\nt1 0 d2 1\nt2 0 d1 1\n"
RANKED = {"A": {"t1": "d1 d2", "t2": "d1"},          # AP t1 1, t2 1
          "B": {"t1": "d1 d9", "t2": "d9 d1"},       # 1/2, 1/2
          "M": {"t1": "d2 d1", "t2": "d8 d9"},       # 1, 0 (the manual run)
          "C": {"t1": "d9 d8 d1", "t2": "d9 d8 d1"},  # (1/3)/2 = 1/6, 1/3
          "D": {"t1": "d8", "t2": "d1"}}             # 0, 1
TYPES_CSV = 'Run Tag,Group,Run type\nA,uw,automatic\nB,uw,automatic\nM,"Smith, J.",manual\nC,cmu,automatic\n' \
            "D,cmu,automatic\nunused,x,automatic\n"


def _run(tag: str, ranked: dict[str, str], retag: dict[str, str] | None = None) -> str:
    return "".join(f"{t} Q0 {d} {i} {10 - i} {(retag or {}).get(t, tag)}\n" for t, ds in ranked.items()
                   for i, d in enumerate(ds.split(), 1))


def _ws(tmp_path: Path) -> Path:
    (tmp_path / "q.txt").write_text(QRELS)
    for tag, ranked in RANKED.items():
        (tmp_path / f"{tag}.run").write_text(_run(tag, ranked))
    (tmp_path / "types.csv").write_text(TYPES_CSV)
    return tmp_path


RUNS = ["A.run", "B.run", "M.run", "C.run", "D.run"]


def _table(ws: Path, extra: list[str], fmt: str = "topics", runs: list[str] = RUNS) -> list[list[str]]:
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", fmt, *extra, *runs], ws)
    assert res.returncode == 0, res.stderr
    return list(csv.reader(io.StringIO(res.stdout.decode()), delimiter="," if fmt == "topics-csv" else "\t"))


def _close(row: list[str], want: list) -> None:
    assert len(row) == len(want), row
    for got, w in zip(row, want, strict=True):
        if isinstance(w, F):
            assert float(got) == pytest.approx(float(w), abs=1e-12), (row, want)
        else:
            assert got == str(w), (row, want)


def test_types_and_quartiles_hand_worked(tmp_path):
    """Automatic t1 AP [1, 1/2, 1/6, 0]: q1 = 0 + 0.75 * 1/6 (numpy's linear), median (1/6 + 1/2) / 2, upper 1/2,
    q3 = 1/2 + 0.25 * 1/2; t2 [1, 1/2, 1/3, 1]: q1 = 1/3 + 0.75 * 1/6, median 3/4, upper 1, q3 1; the means
    (all) [1, 1/2, 1/4, 1/2]; the manual run alone: its values; its cells empty on the automatic rows."""
    ws = _ws(tmp_path)
    got = _table(ws, ["--run-types", "types.csv", "--quartiles"])
    assert got[0] == ["qid", "measure", "type", "runs", "min", "q1", "median", "q3", "max", *RUNS]
    h, t = F(1, 2), F(1, 6)
    want = [["t1", "map", "automatic", 4, F(0), F(3, 4) * t, (t + h) / 2, h + h / 4, F(1), F(1), h, "", t, F(0)],
            ["t1", "map", "manual", 1, F(1), F(1), F(1), F(1), F(1), "", "", F(1), "", ""],
            ["t2", "map", "automatic", 4, F(1, 3), F(1, 3) + F(3, 4) * t, F(3, 4), F(1), F(1), F(1), h, "", F(1, 3),
             F(1)],
            ["t2", "map", "manual", 1, F(0), F(0), F(0), F(0), F(0), "", "", F(0), "", ""],
            ["all", "map", "automatic", 4, F(1, 4), F(1, 4) + F(3, 4) * F(1, 4), h, h + h / 4, F(1), F(1), h, "",
             F(1, 4), h],
            ["all", "map", "manual", 1, h, h, h, h, h, "", "", h, "", ""]]
    assert len(got) == 1 + len(want)
    for row, w in zip(got[1:], want, strict=True):
        _close(row, w)
    upper = _table(ws, ["--run-types", "types.csv", "--median", "upper"])  # no quartiles: the k31 columns + type
    assert upper[0] == ["qid", "measure", "type", "runs", "min", "median", "max", *RUNS]
    assert [float(r[5]) for r in upper[1:]] == pytest.approx([0.5, 1, 1, 0, 0.5, 0.5])
    plain = _table(ws, ["--quartiles"])  # every run one group: 5 values
    assert plain[0] == ["qid", "measure", "runs", "min", "q1", "median", "q3", "max", *RUNS]
    assert [float(x) for x in plain[1][3:8]] == pytest.approx([0, 1 / 6, 0.5, 1, 1])  # [1, 1/2, 1, 1/6, 0]


def test_types_jsonl_lists_the_rows_runs_and_text_aligns(tmp_path):
    ws = _ws(tmp_path)
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics-jsonl", "--run-types", "types.csv",
                                   "--quartiles", *RUNS], ws)
    rows = [json.loads(x) for x in res.stdout.decode().splitlines()]
    assert list(rows[0]) == ["qid", "measure", "type", "runs", "min", "q1", "median", "q3", "max", "values"]
    assert rows[0]["values"] == {"A.run": 1.0, "B.run": 0.5, "C.run": pytest.approx(1 / 6), "D.run": 0.0}
    assert rows[1]["values"] == {"M.run": 1.0} and rows[1]["type"] == "manual"
    tsv = _table(ws, ["--run-types", "types.csv", "--quartiles"])
    text = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics-text", "--digits", "3",
                                    "--run-types", "types.csv", "--quartiles", *RUNS], ws).stdout.decode()
    lines = text.split("\n\n")[0].splitlines()
    assert lines[0].split() == tsv[0]
    for line, row in zip(lines[1:], tsv[1:], strict=True):
        assert line.split() == [*row[:4], *(f"{float(x):.3f}" for x in row[4:] if x != "")]
    assert "over the runs of the row's type" in text and "quartiles q1 and q3" in text
    md = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics-markdown", "--run-types",
                                  "types.csv", *RUNS], ws).stdout.decode()
    assert md.splitlines()[1] == "|---|---|---|" + "---:|" * 9


def trec_eval_rows(ws: Path, runs: dict[str, str], measures: list[str]):
    import pandas as pd

    frames = []
    for path, kind in runs.items():
        out = subprocess.run([str(TREC_EVAL), "-c", "-q", *sum((["-m", m] for m in measures), []), "qrels.test",
                              path], capture_output=True, text=True, cwd=ws, check=True).stdout
        d = pd.read_csv(io.StringIO(out), sep=r"\s+", header=None, names=["measure", "qid", "value"], dtype=str)
        frames.append(d.assign(run=path, type=kind))
    d = pd.concat(frames)
    d["value"] = d.value.astype(float)
    return d


def five_runs(ws: Path) -> dict[str, str]:
    """trec_eval's qrels.test and five runs of its test collection in ``ws`` (results.test, results.trunc,
    results.test with reversed and with folded scores, results-302.test) with ``types.tsv``: {run: type}."""
    (ws / "qrels.test").write_bytes((SHARED / "qrels.test").read_bytes())
    base = (SHARED / "results.test").read_text().splitlines()

    def write(name: str, lines: list[str], tag: str, score=lambda s, i: s) -> None:
        out = []
        for i, ln in enumerate(lines):
            p = ln.split()
            out.append(" ".join([*p[:4], repr(score(float(p[4]), i)), tag]))
        (ws / name).write_text("\n".join(out) + "\n")

    write("a.run", base, "autoA")
    write("b.run", (SHARED / "results.trunc").read_text().splitlines(), "autoB")
    write("c.run", base, "manC", lambda s, i: -s)
    write("d.run", base, "autoD", lambda s, i: (s * 7) % 3)
    write("e.run", (SHARED / "results-302.test").read_text().splitlines(), "manE")
    (ws / "types.tsv").write_text("runtag\ttype\nautoA\tautomatic\nautoB\tautomatic\nmanC\tmanual\n"
                                  "autoD\tautomatic\nmanE\tmanual\n")
    return {"a.run": "automatic", "b.run": "automatic", "c.run": "manual", "d.run": "automatic", "e.run": "manual"}


@pytest.mark.slow  # pandas' import and five trec_eval runs: ~2 s
@pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK), reason="trec_eval 10 binary not at /tmp/trec_eval")
def test_types_equal_pandas_on_trec_eval_output(tmp_path):
    """Five runs of trec_eval's test collection (results.test, results.trunc, results.test with reversed and with
    folded scores, results-302.test), three automatic and two manual; trec_eval -c -q on each, pandas' groupby
    (type, qid, measure): count, min, quantile 0.25, median, quantile 0.75, max; statistics.median_high for
    --median upper. trec_eval prints 4 decimals: cells equal to 5e-5 (counts exactly)."""
    ws = tmp_path
    runs = five_runs(ws)
    measures = ["map", "P.10", "num_rel_ret", "recip_rank"]
    te = trec_eval_rows(ws, runs, measures)
    te = te[te.measure != "runid"]
    want = te.groupby(["type", "qid", "measure"]).value
    stats = {"runs": want.count(), "min": want.min(), "q1": want.quantile(0.25), "median": want.median(),
             "q3": want.quantile(0.75), "max": want.max(),
             "upper": want.agg(lambda v: statistics.median_high(list(v)))}
    for med in ("mean", "upper"):
        res = run_inproc("zelo_eval", ["-R", "qrels.test", "-c", "-m", "map", "-m", "P_10", "-m", "num_rel_ret",
                                       "-m", "recip_rank", "-Q", "-o", "topics", "--run-types", "types.tsv",
                                       "--quartiles", "--median", med, *runs], ws)
        assert res.returncode == 0, res.stderr
        rows = list(csv.reader(io.StringIO(res.stdout.decode()), delimiter="\t"))
        head = rows[0]
        assert len(rows) - 1 == len(stats["runs"])  # a row per (type, topic, measure) trec_eval has
        for r in rows[1:]:
            key = (r[2], r[0], r[1])
            cell = dict(zip(head, r, strict=True))
            assert int(cell["runs"]) == stats["runs"][key], key
            for col in ("min", "q1", "max", "q3"):
                assert float(cell[col]) == pytest.approx(stats[col][key], abs=5e-5), (key, col)
            assert float(cell["median"]) == pytest.approx(stats["median" if med == "mean" else "upper"][key],
                                                          abs=5e-5), key
            for path, kind in runs.items():
                assert (cell[path] == "") == (kind != r[2]), (key, path)


# -- a run whose lines carry several tags: trec_eval evaluates one run named by the last line's tag


@pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK), reason="trec_eval 10 binary not at /tmp/trec_eval")
def test_trec_eval_names_a_run_of_two_tags_by_its_last_line(tmp_path):
    """Checked live: topic 302's lines retagged; trec_eval's runid is the last line's tag and every topic is
    evaluated as one run; zelo_trec prints the same."""
    lines = (SHARED / "results.test").read_text().splitlines()
    (tmp_path / "m.run").write_text("".join(
        " ".join([*ln.split()[:5], "OTHER" if ln.split()[0] == "302" else "STANDARD"]) + "\n" for ln in lines))
    (tmp_path / "qrels.test").write_bytes((SHARED / "qrels.test").read_bytes())
    argv = ["-q", "-m", "runid", "-m", "map", "qrels.test", "m.run"]
    want = subprocess.run([str(TREC_EVAL), *argv], capture_output=True, text=True, cwd=tmp_path, check=True).stdout
    assert "runid                 \tall\tSTANDARD\n" in want
    got = run_inproc("zelo_trec", argv, tmp_path)
    assert got.stdout.decode() == want


def test_types_of_a_run_of_two_tags(tmp_path):
    ws = _ws(tmp_path)
    before = _table(ws, ["--run-types", "types.csv"])
    (ws / "A.run").write_text(_run("A", RANKED["A"], {"t1": "M"}))  # t1 (lines 1-2) tagged as the manual run
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--output", "o.tsv",
                                   "--run-types", "types.csv", *RUNS], ws)
    assert res.returncode == 2 and res.stdout == b"" and not (ws / "o.tsv").exists()
    assert res.stderr == ("zelo_eval: A.run:1: run tag 'M' (type 'manual') differs from the last line's 'A' (type "
                          "'automatic'), which names the run as trec_eval's runid: one run, one type (give each tag's "
                          "lines as a run file of its own)\n")
    (ws / "A.run").write_text(_run("A", RANKED["A"], {"t1": "zz"}))
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--run-types", "types.csv",
                                   *RUNS], ws)
    assert res.returncode == 2 and res.stderr.startswith("zelo_eval: A.run:1: run tag 'zz' (no type in types.csv) "
                                                         "differs from the last line's 'A'")
    (ws / "A.run").write_text(_run("A", RANKED["A"], {"t1": "B"}))  # B is automatic too: one type, accepted
    assert _table(ws, ["--run-types", "types.csv"]) == before


def test_pool_groups_of_a_run_of_two_tags(tmp_path):
    from test_track_day import _pool_ws
    from test_track_runs import POOL_A

    ws = _pool_ws(tmp_path)  # teams.txt: a X, b Y, c X
    lines = POOL_A.splitlines(keepends=True)
    (ws / "a.run").write_text(lines[0].replace(" a\n", " b\n") + "".join(lines[1:]))
    argv = ["pool", "--depth", "2", "-Q", "-o", "p.txt", "--contributions", "c.tsv"]
    res = run_inproc("zelo_pairs", [*argv, "--groups", "teams.txt", "a.run", "b.run", "c.run"], ws)
    assert res.returncode == 2 and not (ws / "p.txt").exists() and not (ws / "c.tsv").exists()
    assert res.stderr == ("zelo_pairs: a.run:1: run tag 'b' (group 'Y') differs from the last line's 'a' (group "
                          "'X'), which names the run as trec_eval's runid: one run, one group (give each tag's lines "
                          "as a run file of its own)\n")
    (ws / "a.run").write_text(lines[0].replace(" a\n", " X_1\n") + "".join(lines[1:]).replace(" a\n", " X_2\n"))
    (ws / "b.run").write_text(lines[0].replace(" a\n", " Y_1\n"))
    res = run_inproc("zelo_pairs", [*argv, "--group-sep", "_", "a.run", "b.run"], ws)  # X_1, X_2: group X
    assert res.returncode == 0, res.stderr
    (ws / "a.run").write_text(lines[0].replace(" a\n", " Y_1\n") + "".join(lines[1:]).replace(" a\n", " X_2\n"))
    res = run_inproc("zelo_pairs", [*argv, "--group-sep", "_", "a.run", "b.run"], ws)
    assert res.returncode == 2 and res.stderr.startswith("zelo_pairs: a.run:1: run tag 'Y_1' (group 'Y') differs "
                                                         "from the last line's 'X_2' (group 'X')")


# -- the files of groups / types as organizers have them


def _contrib(ws: Path, groups: str) -> list[str]:
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--qrels", "q.txt", "--contributions", "c.tsv", "-o",
                                    "p.txt", "-Q", "--groups", groups, "a.run", "b.run", "c.run"], ws)
    assert res.returncode == 0, res.stderr
    return (ws / "c.tsv").read_bytes().decode("utf-8", "surrogateescape").splitlines()


@pytest.mark.parametrize("content", [
    "# from the submission form\nRun Tag,Group,Type\na,X,automatic\nb,Y,manual\nc,X,automatic\n",
    "runtag\tteam\na\tX\nb\tY\nc\tX\n",
    "Tag\tType\tParticipant\na\tm\tX\nb\tm\tY\nc\tm\tX\n",  # the group column by name, not position
    "run,group\na,X\n\nb,Y\nc,X\n",
    "a X\nb Y\nc X\n",  # k32's layout
])
def test_groups_file_layouts(tmp_path, content):
    from test_track_day import _pool_ws

    ws = _pool_ws(tmp_path)
    (ws / "g.txt").write_text(content)
    assert _contrib(ws, "g.txt") == ["group\truns\tpooled\tunique\trelevant\tunique_relevant", "X\t2\t3\t1\t0\t0",
                                     "Y\t1\t6\t4\t2\t2", "all\t3\t7\t5\t2\t2"]


def test_groups_file_quoted_names_and_latin1_tags(tmp_path):
    """A group named with a comma and a space (CSV quoting), and Latin-1 bytes in both the run tag and the file:
    matched byte for byte, the group written back as its bytes."""
    from test_track_day import _pool_ws

    ws = _pool_ws(tmp_path)
    (ws / "b.run").write_bytes((ws / "b.run").read_bytes().replace(b" b\n", b" b\xe9\n"))
    (ws / "g.csv").write_bytes(b'run tag,group\na,"Smith, J."\nb\xe9,\xc9quipe\nc,"Smith, J."\n')
    assert _contrib(ws, "g.csv")[1:3] == ["Smith, J.\t2\t3\t1\t0\t0", "\udcc9quipe\t1\t6\t4\t2\t2"]
    (ws / "g.csv").write_bytes(b"a X\nb Y\nc X\n")  # the UTF-8 'b' is not the tag b\xe9
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--contributions", "c.tsv", "-o", "p.txt", "-Q",
                                    "--groups", "g.csv", "a.run", "b.run", "c.run"], ws)
    assert res.returncode == 2 and res.stderr.startswith("zelo_pairs: g.csv: no group for run tag 'b\\xe9' of b.run")


def test_types_file_latin1(tmp_path):
    ws = _ws(tmp_path)
    (ws / "M.run").write_bytes((ws / "M.run").read_bytes().replace(b" M\n", b" M\xe9\n"))
    (ws / "t.txt").write_bytes(b"A auto\nB auto\nM\xe9 man\xe9\nC auto\nD auto\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--output", "o.tsv",
                                   "--run-types", "t.txt", *RUNS], ws)
    assert res.returncode == 0, res.stderr
    assert [r.split(b"\t")[2] for r in (ws / "o.tsv").read_bytes().splitlines()] == \
        [b"type", b"auto", b"man\xe9", b"auto", b"man\xe9", b"auto", b"man\xe9"]


@pytest.mark.parametrize(("content", "says"), [
    ("Run Tag,Group,Type\na,X,automatic\nb,Y\n", "g.txt:3: expected 3 fields as the header on line 1, got 2"),
    ("# records\nrun tag\tdescription\tdate\na\tbm25\t2026\n",
     "g.txt:2: header line: no group column among 'description', 'date' (expected one named group / team / "
     "participant, or two columns)"),
    ("a,X\nb,\n", "g.txt:2: expected 2 fields (RUNTAG GROUP), got an empty one"),
    ("tag,group\na,X\n,Y\n", "g.txt:3: empty run tag"),
    ('a,X\nb,"Y\n', "g.txt:2: not a CSV line (unexpected end of data)"),
    ("a\tX\nb\tY\ta\n", "g.txt:2: expected 2 fields (RUNTAG GROUP), got 3"),
    ("run tag,group\n", "g.txt:1: a header and no RUNTAG GROUP line (expected the group of each run, by run tag)"),
    ("a X\nb Y\n\x00c X\n", "g.txt:3: a NUL byte"),
])
def test_groups_file_refused(tmp_path, content, says):
    from test_track_day import _pool_ws

    ws = _pool_ws(tmp_path)
    (ws / "g.txt").write_text(content)
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "--contributions", "c.tsv", "-o", "p.txt", "-Q",
                                    "--groups", "g.txt", "a.run", "b.run", "c.run"], ws)
    assert res.returncode == 2 and res.stderr.startswith(f"zelo_pairs: {says}"), res.stderr
    assert len(res.stderr.splitlines()) == 1 and not (ws / "p.txt").exists()


def test_types_file_refused_before_the_runs_are_evaluated(tmp_path):
    ws = _ws(tmp_path)
    (ws / "t.txt").write_text("runtag,group,description\nA,uw,x\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--run-types", "t.txt",
                                   "missing.run"], ws)  # the file's error first: the run is never opened
    assert res.returncode == 2
    assert res.stderr == ("zelo_eval: t.txt:1: header line: no type column among 'group', 'description' (expected "
                          "one named type / runtype / processingtype, or two columns)\n")
    (ws / "t.txt").write_text("A automatic\nB automatic\n")
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--run-types", "t.txt", *RUNS],
                     ws)
    assert res.returncode == 2 and res.stderr == ("zelo_eval: t.txt: no type for run tag 'M' of M.run (expected a "
                                                  "line 'M TYPE')\n")


def test_types_keep_going_leaves_out_a_run_without_a_type(tmp_path):
    """--keep-going: a run whose type cannot be told (tags of two types; a tag the file lacks) is named in run order
    and left out as a run that cannot be read; the table is the other runs' (exit 2)."""
    ws = _ws(tmp_path)
    want = _table(ws, ["--run-types", "types.csv"], runs=["A.run", "M.run", "D.run"])
    (ws / "B.run").write_text(_run("B", RANKED["B"], {"t1": "M"}))
    (ws / "C.run").write_text(_run("zz", RANKED["C"]))
    (ws / "X.run").write_text("t1 Q0 d1 1 1 x\nt1 Q0 d1 2 1 x\n")  # a document twice: not evaluated
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--keep-going", "--run-types",
                                   "types.csv", "A.run", "B.run", "X.run", "M.run", "C.run", "D.run"], ws)
    assert res.returncode == 2
    err = res.stderr.splitlines()
    assert err[0].startswith("zelo_eval: B.run:1: run tag 'M' (type 'manual') differs from the last line's 'B'")
    assert err[1].startswith("zelo_eval: X.run:2: ")
    assert err[2] == "zelo_eval: types.csv: no type for run tag 'zz' of C.run (expected a line 'zz TYPE')"
    assert err[3] == ("zelo_eval: 3 of 6 runs not evaluated (--keep-going; their errors above): B.run, X.run, "
                      "C.run") and len(err) == 4
    assert list(csv.reader(io.StringIO(res.stdout.decode()), delimiter="\t")) == want


def test_tags_of_comment_lines_do_not_count_and_lines_are_the_files(tmp_path):
    """Comment lines (trec_eval 10 skips them, indented too) carry no tag; tab-separated fields and extra columns
    are read as the run reader reads them; the line named is the file's (comments and blank lines counted)."""
    ws = _ws(tmp_path)
    body = _run("A", RANKED["A"]).replace(" ", "\t")
    (ws / "A.run").write_text("# t1 Q0 d1 1 1 M\n   # t1 Q0 d1 1 1 M\n\n" + body.replace("\tA\n", "\tA extra M\n"))
    got = _table(ws, ["--run-types", "types.csv"])  # accepted: every data line's tag is A
    assert got[1][got[0].index("A.run")] == "1.0"
    lines = body.splitlines(keepends=True)
    (ws / "A.run").write_text("# comment\n\n" + "".join(lines[:2]) + lines[2].replace("\tA\n", "\tM\n"))
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--run-types", "types.csv",
                                   "M.run", "A.run"], ws)  # the last line's tag M: A is the other tag, line 3
    assert res.returncode == 2 and res.stderr.startswith("zelo_eval: A.run:3: run tag 'A' (type 'automatic') "
                                                         "differs from the last line's 'M' (type 'manual')")
