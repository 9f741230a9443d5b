"""Memory of zelo_fit (pref_eval.api.fit) and the compact judgment table it fits from.

tracemalloc sees numpy's allocations (deterministic); the growth of the peak between 200,000 and 800,000
judgments (bench/gen_judgments.py: 100 documents a query, 3-vote means, so four distinct scores) is the
cost per judgment, without the fixed costs. The fit's results through the narrow table and the blocks are
checked against scipy.optimize's maximisation of the same posterior (an outside oracle).
"""
from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

from pref_eval.io import judgments as formats
from pref_eval.zelo import fit as zf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _write_files(tmp_path_factory, sizes: tuple[int, int]) -> dict:
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    try:
        from gen_judgments import write
    finally:
        sys.path.pop(0)
    folder = tmp_path_factory.mktemp("fitmem")
    out = {}
    for nq in sizes:
        p = folder / f"j{nq}.jsonl"
        out[nq] = (str(p), write(str(p), nq))
    return out


@pytest.fixture(scope="module")
def bench_files(tmp_path_factory):
    """200,000 and 800,000 judgments (14 and 56 MB: the second read in parts of ``STREAM_CHUNK``, 16 MB)."""
    return _write_files(tmp_path_factory, (500, 2000))


@pytest.fixture()
def small_files(tmp_path_factory, monkeypatch):
    """50,000 and 200,000 judgments (3.5 and 14 MB) with parts of 4 MB: as ``bench_files``, the smaller read
    whole and the larger in parts, at a quarter of the size (writing the large pair cost 2 s CPU; session 22,
    s31)."""
    monkeypatch.setattr(formats, "STREAM_CHUNK", 1 << 22)
    files = _write_files(tmp_path_factory, (125, 500))
    (p1, _), (p2, _) = files[125], files[500]
    assert os.path.getsize(p1) <= formats.STREAM_CHUNK < os.path.getsize(p2)
    return files


def _growth(files, measure, warm: bool = False) -> float:
    """Bytes a judgment between the two files (``warm``: the larger measured once first, so that one-time
    costs -- the streamed reader's first use -- fall outside both)."""
    (p1, n1), (p2, n2) = (files[k] for k in sorted(files))
    if warm:
        measure(p2)
    return (measure(p2) - measure(p1)) / (n2 - n1)


def test_table_bytes_per_judgment(small_files):
    """The table read from a large JSON-lines file holds ~10 bytes a judgment (q int32, a/b int16, the
    score a uint8 code, no weights): measured 10.2; before (int32 indices, float64 scores) 23.8. (Session 22,
    s31: 12.3 on ``bench_files``, 12.4 on ``small_files``.)"""
    import tracemalloc

    def held(path):
        tracemalloc.start()
        try:
            t = formats.read_judgments(path)
            return tracemalloc.get_traced_memory()[0] + 0 * len(t)
        finally:
            tracemalloc.stop()

    growth = _growth(small_files, held, warm=True)
    assert growth < 13, growth


_PEAK = """
import atexit, sys
import pref_eval.io.judgments as J
import pref_eval.zelo.fit as F
import pref_eval.cli.fit as m
J.STREAM_CHUNK = 1 << 20
F.BLOCK_JUDGMENTS = 50_000
def peak():
    hwm = [x for x in open('/proc/self/status') if x.startswith('VmHWM')][0].split()[1]
    sys.stderr.write('RSS %s\\n' % hwm)
atexit.register(peak)
m.main()
"""


def _child_peak(tmp_path, threads: int):
    """``peak(path)``: VmHWM in bytes of ``zelo_fit -J path`` run in a child (1 MB parts, blocks of 50,000
    judgments) with ``PREF_EVAL_THREADS=threads``."""
    import subprocess

    import pref_eval

    # the child imports the pref_eval this test imports: the installed package under CI, with its compiled
    # JSON-lines scanner (the checkout has none unless built in place; the pure-Python fallback reads the
    # same judgments with more temporaries: 30 bytes a judgment)
    home = os.path.dirname(os.path.dirname(os.path.abspath(pref_eval.__file__)))

    def peak(path):
        res = subprocess.run([sys.executable, "-c", _PEAK, "-J", path, "-o", str(tmp_path / "out")],
                             capture_output=True, text=True, timeout=300, cwd=tmp_path,  # -c puts cwd first
                             env={"PYTHONPATH": home, "PATH": "/usr/bin:/bin", "PREF_EVAL_THREADS": str(threads)})
        assert res.returncode == 0, res.stderr[-500:]
        return 1024 * int(res.stderr.strip().splitlines()[-1].split()[1])

    return peak


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/status")
@pytest.mark.slow  # a peak measured in a child process: slow (session 21, s30; docs/architecture.md, tests)
def test_zelo_fit_peak_bytes_per_judgment(bench_files, tmp_path):
    """zelo_fit's peak resident memory (VmHWM of the command in a child: reading, fitting, writing) on one
    thread (``PREF_EVAL_THREADS=1``: the same peak to 0.1 MB run after run) grows by < 18 bytes a judgment
    (1 MB parts, blocks of 50,000 judgments: both files streamed, several blocks). Measured 12.9-13.2 (session
    24); before (int32/float64 table, document ranks, per-query counts and the blocks' results over the whole
    collection at once) 34. On 40 M judgments (100,000 queries) `/usr/bin/time -f %M bin/zelo_fit` went from
    1,753 MB to 788 MB (NOTES.md, session 10, m19)."""
    growth = _growth(bench_files, _child_peak(tmp_path, 1))
    assert growth < 18, growth


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/status")
@pytest.mark.slow
def test_zelo_fit_peak_bytes_per_judgment_on_threads(bench_files, tmp_path):
    """The same on two threads (the JSON-lines parts scanned ahead on one, the blocks fitted on two; what a
    2-core machine runs). Its peak moves by up to 3.5 MB from run to run with the threads' timing (measured
    here, session 24: 86-89.5 MB on 200,000 judgments, 101-104 MB on 800,000; one-run growths 19.4-29.4 bytes
    a judgment, CI once 28.4 against the former bound 26), and the noise only adds: the least peak of four
    runs of each file is compared, growth < 32 (measured 22.0-25.4)."""
    peak = _child_peak(tmp_path, 2)

    def least(path):
        return min(peak(path) for _ in range(4))

    growth = _growth(bench_files, least)
    assert growth < 32, growth


def _map_oracle(nd: int, a, b, s, prior: float) -> np.ndarray:
    """The posterior mode of one query by scipy.optimize (BFGS), centred: the model of
    pref_eval.zelo.fit's docstring written out densely (W[b, a] += s, W[a, b] += 1 - s)."""
    from scipy.optimize import minimize

    W = np.zeros((nd, nd))
    np.add.at(W, (b, a), s)
    np.add.at(W, (a, b), 1.0 - s)

    def neg(x):
        d = x[:, None] - x[None, :]
        return -(np.sum(W * -np.logaddexp(0, -d)) + prior * np.sum(-np.logaddexp(0, -x) - np.logaddexp(0, x)))

    def grad(x):
        d = x[:, None] - x[None, :]
        G = W * (1 - 1 / (1 + np.exp(-d)))
        return -(G.sum(1) - G.sum(0) + prior * (1 - 2 / (1 + np.exp(-x))))

    r = minimize(neg, np.zeros(nd), jac=grad, method="BFGS", options={"gtol": 1e-12, "maxiter": 10000})
    return r.x - r.x.mean()


@pytest.mark.parametrize("distinct", ["coded", "float64"])
@pytest.mark.parametrize("grouped", [True, False])
def test_blocked_narrow_fit_equals_scipy(tmp_path, monkeypatch, distinct, grouped):
    """zelo_fit's scores through the narrow table (coded scores, or float64 once a file has more than 256
    distinct ones), in several blocks, lines grouped by query or shuffled (the argsort path), equal the
    posterior mode found by scipy.optimize, per query."""
    from pref_eval import api

    monkeypatch.setattr(formats, "STREAM_CHUNK", 4096)
    monkeypatch.setattr(zf, "BLOCK_JUDGMENTS", 150)  # 6 queries x 90 judgments: 4 blocks
    rng = np.random.default_rng(5)
    rows = []
    for k in range(6):
        for _ in range(90):
            a, b = rng.choice(12, 2, replace=False)
            s = rng.integers(0, 4) / 3 if distinct == "coded" else round(float(rng.random()), 6)
            rows.append((f"q{k}", f"d{a}", f"d{b}", s))
    if not grouped:
        rows = [rows[i] for i in rng.permutation(len(rows))]
    p = tmp_path / "j.jsonl"
    p.write_text("".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "score": s}) + "\n" for q, a, b, s in rows))
    table = formats.read_judgments(str(p))
    assert table.arrays(compact=True)[3].__class__.__name__ == ("CodedColumn" if distinct == "coded" else "ndarray")
    got = api.fit(str(p), as_frame=False)
    for qid in table.queries:
        docs = table.docs[qid]
        mine = [r for r in rows if r[0] == qid]
        ia = np.array([docs.index(r[1]) for r in mine])
        ib = np.array([docs.index(r[2]) for r in mine])
        ref = _map_oracle(len(docs), ia, ib, np.array([r[3] for r in mine]), 0.5)
        at = np.flatnonzero(got["qid"] == qid)
        assert [got["docno"][i] for i in at] == docs
        np.testing.assert_allclose(got["score"][at], ref, atol=1e-6)


def test_coded_scores_exact_and_widening(tmp_path, monkeypatch):
    """Scores are told apart by their bits (-0.0 is kept as -0.0), a file with more than 256 distinct
    scores switches to float64 mid-file with the earlier rows decoded exactly, and the document
    indices widen from int16 when a query holds more than 32,767 documents: the table equals the
    one json.loads gives, row by row."""
    monkeypatch.setattr(formats, "STREAM_CHUNK", 4096)
    lines = [json.dumps({"qid": "q0", "doc_a": "x", "doc_b": "y", "score": v}) for v in (0.0, -0.0, 1 / 3, 0.5)]
    lines += [json.dumps({"qid": "q1", "doc_a": f"d{k}", "doc_b": f"d{k + 1}", "score": k / 1000}) for k in range(300)]
    lines += [json.dumps({"qid": "q2", "doc_a": f"e{2 * k}", "doc_b": f"e{2 * k + 1}", "score": 1.0})
              for k in range(17_000)]
    p = tmp_path / "j.jsonl"
    p.write_text("\n".join(lines) + "\n")
    t = formats.read_judgments(str(p))
    q, a, b, s, w = t.arrays()
    ref = [json.loads(x) for x in lines]
    assert s.tolist() == [r["score"] for r in ref]
    assert np.signbit(s[:2]).tolist() == [False, True]
    assert w.tolist() == [1.0] * len(ref)
    assert int(b.max()) == 33_999 and t.arrays(compact=True)[2].dtype == np.int32
    assert [t.docs[t.queries[i]][j] for i, j in zip(q.tolist(), b.tolist(), strict=True)] == \
        [r["doc_b"] for r in ref]
    # a file with few scores stays coded, and its decoded column is the float64 scores exactly
    few = tmp_path / "few.jsonl"
    few.write_text("\n".join(lines[:4] * 400) + "\n")
    col = formats.read_judgments(str(few)).arrays(compact=True)[3]
    assert col.codes.dtype == np.uint8 and len(col.values) == 4
    assert np.asarray(col).view(np.uint64).tolist() == np.array([0.0, -0.0, 1 / 3, 0.5] * 400).view(np.uint64).tolist()
    assert np.asarray(col[5:9], dtype=np.float64).tolist() == [-0.0, 1 / 3, 0.5, 0.0]


def test_slice_helpers_equal_numpy(monkeypatch):
    """count_per_query and is_sorted, a slice at a time, equal np.bincount and np.all(q[1:] >= q[:-1]) at every
    length around the slice boundaries, for int16/int32/int64 query indices."""
    monkeypatch.setattr(zf, "_SLICE", 4)
    rng = np.random.default_rng(2)
    for n in range(0, 14):
        for dt in (np.int16, np.int32, np.int64):
            for q in (np.sort(rng.integers(0, 5, n)).astype(dt), rng.integers(0, 5, n).astype(dt)):
                assert zf.count_per_query(q, 5).tolist() == np.bincount(q.astype(np.int64), minlength=5).tolist()
                assert zf.is_sorted(q) == bool(np.all(q[1:] >= q[:-1]))


def test_keep_levels_false_leaves_only_component_and_level_out():
    """``fit_bt_parallel(keep_levels=False)`` (zelo_fit with a prior > 0): the same scores, SEs and per-query
    diagnostics, to the bit, as with them; component and level of length 0."""
    from pref_eval.zelo.simulate import cycle_judgments

    _, q, a, b, s = cycle_judgments(30, 12, 3, 1.0, seed=4)
    sizes = np.full(30, 12)
    docs = [[f"d{k}" for k in range(12)]] * 30
    full = zf.fit_bt_parallel(sizes, q, a, b, s, doc_ids=docs, parts=4)
    lean = zf.fit_bt_parallel(sizes, q, a, b, s, doc_ids=docs, parts=4, keep_levels=False)
    assert len(full.component) == len(full.level) == 360 and len(lean.component) == len(lean.level) == 0
    for name in ("score", "se", "n_judged", "n_components", "iterations", "loglik", "grad_max", "converged"):
        assert getattr(full, name).tobytes() == getattr(lean, name).tobytes(), name


@pytest.mark.parametrize("opts", [{}, {"prior": 0.0}, {"scale": "elo", "agreement_weights": True},
                                  {"prior": 0.0, "scale": "elo", "jobs": 2}])
def test_scores_written_a_block_at_a_time_same_bytes(tmp_path, monkeypatch, opts):
    """zelo_fit -o FILE (``api.fit(keep_results=False)``): each block of queries is written as it is fitted and
    dropped -- the writer is called once a block, never with every document, and no whole result is gathered
    -- and the file and --diagnostics are the bytes of fitting all and then writing (``keep_results=True``).
    On 40 M judgments the peak went from 798 to 654 MB (NOTES.md, session 11, f20)."""
    from pref_eval import api
    from pref_eval.output import zelo_scores

    monkeypatch.setattr(formats, "STREAM_CHUNK", 4096)
    monkeypatch.setattr(zf, "BLOCK_JUDGMENTS", 150)
    rng = np.random.default_rng(7)
    lines = []
    for k in range(8):
        for _ in range(60):
            a, b = rng.choice(10, 2, replace=False)
            lines.append(json.dumps({"qid": f"q{k}", "doc_a": f"d{a}", "doc_b": f"d{b}",
                                     "votes": [int(v) for v in rng.integers(-1, 2, 3)]}))
    p = tmp_path / "j.jsonl"
    p.write_text("\n".join(lines) + "\n")
    whole = api.fit(str(p), output=str(tmp_path / "whole.tsv"), diagnostics=str(tmp_path / "whole.diag"),
                    as_frame=False, **opts)
    assert len(whole["score"]) == 80
    calls: list[int] = []
    real = zelo_scores.write_scores_columns

    def counted(out, qids, docs, score, se, extra=None, chunk=1 << 16, header=True):
        calls.append(len(score))
        return real(out, qids, docs, score, se, extra, chunk, header)

    monkeypatch.setattr(zelo_scores, "write_scores_columns", counted)
    monkeypatch.setattr(zf, "_gather_results", None)  # the streamed path never gathers the blocks
    got = api.fit(str(p), output=str(tmp_path / "blocks.tsv"), diagnostics=str(tmp_path / "blocks.diag"),
                  keep_results=False, **opts)
    assert got is None
    assert len(calls) >= 4 and max(calls) < 80 and sum(calls) == 80, calls
    assert (tmp_path / "blocks.tsv").read_bytes() == (tmp_path / "whole.tsv").read_bytes()
    assert (tmp_path / "blocks.diag").read_bytes() == (tmp_path / "whole.diag").read_bytes()
