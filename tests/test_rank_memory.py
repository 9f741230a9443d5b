"""Memory of reading and ranking a run (pref_eval.io.runs, pref_eval.collection.build_collection).

tracemalloc sees numpy's allocations (deterministic); the growth of the peak between a 100,000- and a
300,000-line run (bench/gen_runs.py) is the cost per line, without the fixed costs (the qrels prefilter's
16 MB table, the blocks of at most KEY_BLOCK rows).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _peak(folder: Path, **kw) -> tuple[int, int]:
    import tracemalloc

    from pref_eval.collection import build_collection, index_qrels
    from pref_eval.io.qrels import read_qrels
    from pref_eval.io.runs import read_run

    qi = index_qrels(read_qrels(folder / "qrels"))
    run = read_run(folder / "run")
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        build_collection(qi, [run], **kw)
        return tracemalloc.get_traced_memory()[1] - base, len(run.docno)
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("kw,most", [({}, 24), pytest.param({"depth": 50}, 26, marks=pytest.mark.slow),
                                     pytest.param({"complete": True}, 24, marks=pytest.mark.slow)])  # s30
def test_ranking_memory_per_line(tmp_path, kw, most):
    """Ranking holds at most ``most`` bytes per run line at its peak (qrels and run not counted).

    Measured 19.4 / 21.7 / 19.4 bytes; before (a 64-bit docno key for every line computed before the sort
    and permuted with it, a 64-bit temporary for the 32-bit keys of the duplicate check and another for
    the query bits of the qrels lookup): 32 / 36 / 32, and 36 at the sort on 10 M lines, where
    `zelo_trec` (qrels indexed and dropped before the run is read) peaked at 840-890 MB
    (NOTES.md, session 9). Same rankings: tests/test_collection_order.py, the trec_eval conformance tests.
    """
    sizes = {}
    for nq in (100, 300):
        out = tmp_path / str(nq)
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_runs.py"), "--queries", str(nq), "--depth", "1000",
                        "--out", str(out)], check=True, capture_output=True, timeout=300)
        sizes[nq] = _peak(out, **kw)
    (p1, n1), (p2, n2) = sizes[100], sizes[300]
    growth = (p2 - p1) / (n2 - n1)
    assert growth < most, growth


_READ = """
import sys
from pref_eval.heap import one_arena
one_arena()
def rss():
    with open('/proc/self/statm') as f:
        return int(f.read().split()[1]) * 4096
import pyarrow.csv  # noqa: F401  (its start-up memory is not the parse's)
from pref_eval.io.fastparse import release_memory
from pref_eval.io.runs import read_run
base = rss()
r = read_run(sys.argv[1])
release_memory()
print((rss() - base - r.docno.nbytes - r.score.nbytes) / 1e6)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc arenas")
@pytest.mark.slow  # a peak measured in a child process: slow (session 21, s30; docs/architecture.md, tests)
def test_parse_threads_memory_is_returned(tmp_path):
    """After a run read in two threads (over 32 MB) and ``release_memory``, what stays resident beyond the run's
    arrays is small: 4 MB for this 1 M-line run with one malloc arena (``pref_eval.heap.one_arena``, which
    zelo_trec sets), 50-57 MB without (each thread's arena kept its top; 70-90 MB on 10 M lines)."""
    pytest.importorskip("pyarrow")
    subprocess.run([sys.executable, str(ROOT / "bench" / "gen_runs.py"), "--queries", "1000", "--depth", "1000",
                    "--out", str(tmp_path)], check=True, capture_output=True, timeout=300)
    assert (tmp_path / "run").stat().st_size > 1 << 25  # parsed in two parts
    out = subprocess.run([sys.executable, "-c", _READ, str(tmp_path / "run")], check=True, capture_output=True,
                         text=True, timeout=300, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert float(out.stdout) < 20, out.stdout


@pytest.mark.parametrize("module", ["trec", "eval"])
def test_zelo_trec_and_zelo_eval_set_one_arena(monkeypatch, module):
    import importlib

    import pref_eval.heap

    cli = importlib.import_module(f"pref_eval.cli.{module}")
    calls = []
    monkeypatch.setattr(pref_eval.heap, "one_arena", lambda: calls.append(1))
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert calls == [1]
