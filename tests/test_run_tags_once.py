"""Session 25 (k35): a run's distinct tags are found while it is read (``Run.tags``: the compiled reader in the
same pass, the tokenizer from its 6th column), so ``zelo_eval --run-types`` and ``zelo_pairs pool --groups /
--group-sep`` no longer read each run file a second time (k33's scan); since session 27 (k37) also past 64
distinct tags (the kernels give the tag column, ``numpy.unique`` finds them) and on the streaming reader of files
over 64 MB (pyarrow's batches: the distinct tags of each). Oracle: the tags of each line by ``bytes.split`` in a
Python loop (trec_eval's fields)."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_harness import run_inproc
from test_track_types import RANKED, RUNS, _run, _table, _ws

from pref_eval.io import fastparse, groups, runs
from pref_eval.io.runs import _compiled_reader, read_run, run_from_bytes


def _oracle(data: bytes) -> tuple[tuple[str, int], ...]:
    """(tag, first line) of each distinct 6th field, in line order; comment lines (``#``) skipped."""
    seen: dict[bytes, int] = {}
    for no, line in enumerate(data.split(b"\n"), 1):
        f = line.split()
        if len(f) >= 6 and not f[0].startswith(b"#"):
            seen.setdefault(f[5], no)
    return tuple((t.decode("utf-8", "surrogateescape"), n) for t, n in seen.items())


def _lines(tags: list[bytes]) -> bytes:
    return b"".join(b"q%d Q0 d%d 1 %d.5 %s\n" % (k // 3, k, 100 - k, t) for k, t in enumerate(tags))


CASES = {
    "one": _lines([b"A"] * 7),
    "interleaved": _lines([b"A", b"A", b"B", b"A", b"C", b"B", b"A"]),
    "latin1": _lines([b"t\xe9g", b"A", b"t\xe9g"]),
    "prefix": _lines([b"AB", b"A", b"ABC", b"A"]),  # equal starts, other lengths
    "blank-and-extra-fields": b"\n" + _lines([b"A", b"B"]).replace(b"B\n", b"B extra field\n\n"),
    "64": _lines([b"t%d" % k for k in range(64)] + [b"t0"]),
    "65": _lines([b"t%d" % k for k in range(65)]),
    "200-interleaved": _lines([b"t%d" % (k * 37 % 200) for k in range(600)] + [b"t\xe9g", b"t1"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("path", ["compiled", "tokenizer", "streaming"])
def test_run_tags_equal_the_lines(tmp_path, monkeypatch, name, path):
    data = CASES[name]
    if path == "compiled" and _compiled_reader() is None:
        pytest.skip("compiled kernels not built")
    if path == "streaming":  # the reader of files over 64 MB (pyarrow), on a small file; two parts
        pytest.importorskip("pyarrow")
        monkeypatch.setattr(fastparse, "PYARROW_MIN", 0)
        monkeypatch.setattr(fastparse, "SPLIT_MIN", 0)
        monkeypatch.setattr(fastparse, "BLOCK", 64)  # many batches a part
        monkeypatch.setattr(runs, "COMPILED_MAX", 0)
        (tmp_path / "r.run").write_bytes(data)
        run = read_run(tmp_path / "r.run")
    else:
        run = run_from_bytes(data, "r.run", try_fast=False, try_compiled=path == "compiled")
    assert run.tags == _oracle(data)
    assert run.tag == _oracle(data.rstrip(b"\n").rsplit(b"\n", 1)[-1])[0][0]  # the last line's (runid)


def test_run_tags_with_comments(tmp_path):
    """A comment line sends the file to the tokenizer (line numbers count it)."""
    data = b"# a comment\n" + CASES["interleaved"]
    (tmp_path / "c.run").write_bytes(data)
    assert read_run(tmp_path / "c.run").tags == _oracle(data) == (("A", 2), ("B", 4), ("C", 6))


@pytest.fixture
def no_second_read(monkeypatch):
    """Refuse any read of a ``.run`` file by io/groups.py (the scan of k33 read each run again)."""
    real = groups.read_input_bytes

    def read(path, *args, **kwargs):
        if str(path).endswith(".run"):
            raise AssertionError(f"{path} read a second time")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(groups, "read_input_bytes", read)


def test_run_types_read_each_run_once(tmp_path, no_second_read):
    ws = _ws(tmp_path)
    before = _table(ws, ["--run-types", "types.csv"])
    assert [r[2] for r in before[1:]] == ["automatic", "manual"] * 3
    (ws / "A.run").write_text(_run("A", RANKED["A"], {"t2": "B"}))  # tags A, B: both automatic, accepted
    assert _table(ws, ["--run-types", "types.csv"]) == before
    (ws / "A.run").write_text(_run("A", RANKED["A"], {"t1": "M"}))  # lines 1-2 tagged as the manual run
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--run-types", "types.csv",
                                   *RUNS], ws)
    assert res.returncode == 2 and res.stderr.startswith("zelo_eval: A.run:1: run tag 'M' (type 'manual') differs "
                                                         "from the last line's 'A' (type 'automatic')"), res.stderr
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--run-types", "types.csv",
                                   "--keep-going", *RUNS], ws)  # left out as a bad run, the others written
    assert res.returncode == 2 and "A.run" not in res.stdout.decode().splitlines()[0]


def test_pool_groups_read_each_run_once(tmp_path, no_second_read):
    from test_track_day import _pool_ws
    from test_track_runs import POOL_A

    ws = _pool_ws(tmp_path)  # teams.txt: a X, b Y, c X
    lines = POOL_A.splitlines(keepends=True)
    argv = ["pool", "--depth", "2", "-Q", "-o", "p.txt", "--contributions", "c.tsv"]
    assert run_inproc("zelo_pairs", [*argv, "--groups", "teams.txt", "a.run", "b.run", "c.run"], ws).returncode == 0
    (ws / "a.run").write_text(lines[0].replace(" a\n", " b\n") + "".join(lines[1:]))
    res = run_inproc("zelo_pairs", [*argv, "--groups", "teams.txt", "a.run", "b.run", "c.run"], ws)
    assert res.returncode == 2 and res.stderr.startswith("zelo_pairs: a.run:1: run tag 'b' (group 'Y') differs "
                                                         "from the last line's 'a' (group 'X')"), res.stderr
    (ws / "a.run").write_text(lines[0].replace(" a\n", " X_1\n") + "".join(lines[1:]).replace(" a\n", " X_2\n"))
    assert run_inproc("zelo_pairs", [*argv, "--group-sep", "_", "a.run", "b.run"], ws).returncode == 0


def test_past_64_tags_read_once(tmp_path, no_second_read):
    """65 tags of one group but one: refused naming its first line, found while the run was read (was: by a
    second read, the tags not kept past 64)."""
    ws = Path(tmp_path)
    (ws / "q.txt").write_text("q0 0 d0 1\n")
    tags = [b"X_%d" % k for k in range(64)] + [b"Y_0", b"X_0"]
    (ws / "x.run").write_bytes(_lines(tags))
    res = run_inproc("zelo_pairs", ["pool", "--depth", "2", "-Q", "-o", "p.txt", "--contributions", "c.tsv",
                                    "--group-sep", "_", "x.run"], ws)
    assert res.returncode == 2 and res.stderr.startswith("zelo_pairs: x.run:65: run tag 'Y_0' (group 'Y') differs "
                                                         "from the last line's 'X_0' (group 'X')"), res.stderr


def test_streaming_reader_reads_each_run_once(tmp_path, monkeypatch, no_second_read):
    """A run over ``COMPILED_MAX`` (64 MB; lowered here) read by the streaming reader: ``--run-types`` takes the
    tags its batches found (was: the file read again), refusing a run of two types with its first line."""
    pytest.importorskip("pyarrow")
    monkeypatch.setattr(fastparse, "PYARROW_MIN", 0)
    monkeypatch.setattr(runs, "COMPILED_MAX", 0)
    ws = _ws(tmp_path)
    before = _table(ws, ["--run-types", "types.csv"])
    assert [r[2] for r in before[1:]] == ["automatic", "manual"] * 3
    (ws / "A.run").write_text(_run("A", RANKED["A"], {"t1": "M"}))
    res = run_inproc("zelo_eval", ["-R", "q.txt", "-m", "map", "-Q", "-o", "topics", "--run-types", "types.csv",
                                   *RUNS], ws)
    assert res.returncode == 2 and res.stderr.startswith("zelo_eval: A.run:1: run tag 'M' (type 'manual') differs "
                                                         "from the last line's 'A' (type 'automatic')"), res.stderr
