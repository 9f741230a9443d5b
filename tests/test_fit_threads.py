"""zelo_fit's serial fit on threads (fit_bt_blocks ``threads``, PREF_EVAL_THREADS) and the covariance stack in
chunks (``COV_CHUNK_CELLS``): the same bits as one block on one thread, whatever the cut."""
from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIELDS = ("score", "se", "component", "level", "n_docs", "n_judged", "n_components", "n_perfect", "iterations",
          "loglik", "grad_max", "converged", "se_condition", "offsets")


def _random_judgments(seed: int, nq: int = 23):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 30, nq)
    sizes[0] = 1
    sizes[1:4] = 20  # blocks above SMALL (16): the LAPACK path
    q = np.repeat(np.arange(nq), sizes * 3)
    a = (rng.random(len(q)) * sizes[q]).astype(np.int64)
    b = (rng.random(len(q)) * sizes[q]).astype(np.int64)
    s = rng.random(len(q)).round(2)
    s[::7] = 1.0  # perfect wins: several SCCs with --prior 0
    w = rng.integers(1, 4, len(q)).astype(float)
    p = rng.permutation(len(q))  # judgments not grouped by query
    docs = [[f"d{(5 * i) % n}-{i}" for i in range(n)] for n in sizes]
    return sizes, q[p], a[p], b[p], s[p], w[p], docs


def _same(x, y) -> None:
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(x, name), getattr(y, name), err_msg=name)


@pytest.mark.parametrize("seed,prior", [(0, 0.0), (1, 0.5), pytest.param(0, 0.5, marks=pytest.mark.slow),
                                        pytest.param(1, 0.0, marks=pytest.mark.slow)])  # each seed, prior once (s30)
def test_threads_and_cuts_give_the_bits_of_one_block(seed, prior):
    from pref_eval.zelo.fit import fit_bt_parallel

    sizes, q, a, b, s, w, docs = _random_judgments(seed)
    one = fit_bt_parallel(sizes, q, a, b, s, w, prior=prior, doc_ids=docs, parts=1)
    assert np.isfinite(one.se).sum() > 100
    for parts in (1, 2, 5, len(sizes), len(sizes) + 7):  # a block per query, more blocks asked than queries
        for threads in (1, 2, 3):
            got = fit_bt_parallel(sizes, q, a, b, s, w, prior=prior, doc_ids=docs, parts=parts, threads=threads)
            _same(one, got)


def test_covariance_chunks_give_the_same_bits(monkeypatch):
    """The SE stack cut into chunks of one matrix, of a few, or all at once: each matrix's arithmetic is
    its own."""
    from pref_eval.zelo import fit as zf

    sizes, q, a, b, s, w, docs = _random_judgments(3, nq=31)
    sizes[5:15] = 25  # several matrices of one size share a stack
    rng = np.random.default_rng(3)
    q = np.repeat(np.arange(len(sizes)), sizes * 3)
    a = (rng.random(len(q)) * sizes[q]).astype(np.int64)
    b = (rng.random(len(q)) * sizes[q]).astype(np.int64)
    s = rng.random(len(q))
    ref = {prior: zf.fit_bt(sizes, q, a, b, s, prior=prior) for prior in (0.5, 0.0)}
    for cells in (1, 25 * 25 * 3, 10 ** 9):
        monkeypatch.setattr(zf, "COV_CHUNK_CELLS", cells)
        for prior in (0.5, 0.0):
            _same(ref[prior], zf.fit_bt(sizes, q, a, b, s, prior=prior))


def test_block_plan_rounds_up_to_the_threads():
    from pref_eval.zelo.fit import BLOCK_JUDGMENTS, SERIAL_BLOCK_JUDGMENTS, THREAD_JUDGMENTS, _block_plan

    assert (BLOCK_JUDGMENTS, SERIAL_BLOCK_JUDGMENTS) == (250_000, 100_000)
    sizes = np.full(100, 10)
    n = 9 * BLOCK_JUDGMENTS - 5
    big = np.zeros(n, dtype=np.int32)
    assert _block_plan(sizes, big, 1, None, None, None, [[]], 1)[2] == 23  # serial: <= 100,000 a block
    assert _block_plan(sizes, big, 1, None, None, None, [[]], 2)[2] == 24  # <= 100,000 a block, even
    assert _block_plan(sizes, big, 1, None, None, None, [[]], 4)[2] == 24
    assert _block_plan(sizes, big[:3 * SERIAL_BLOCK_JUDGMENTS], 1, None, None, None, [[]], 1)[2] == 3
    assert _block_plan(sizes, big[:SERIAL_BLOCK_JUDGMENTS], 1, None, None, None, None, 1)[3]  # one block: whole
    assert _block_plan(sizes, big[:3 * SERIAL_BLOCK_JUDGMENTS], 1, None, None, None, [[]], 2)[2] == 4
    assert _block_plan(sizes, big[:3 * SERIAL_BLOCK_JUDGMENTS], 1, None, None, None, [[]], 3)[2] == 3
    small = np.zeros(2 * THREAD_JUDGMENTS - 1, dtype=np.int32)
    assert _block_plan(sizes, small, 1, None, None, None, [[]], 4)[2] == 1  # too few judgments for two
    assert _block_plan(sizes, small, 1, None, 3, None, [[]], 4)[2] == 3  # parts given: kept
    assert _block_plan(sizes, big, 2, None, None, None, [[]], 4)[2] == 9  # --jobs: the processes decide


def test_pool_blas_limit_holds_for_the_workers_and_is_restored():
    """A worker's one_blas_thread inside pool_blas_limit leaves the limit alone: the first worker to leave
    does not give the others BLAS threads; the owner restores the setting at the end."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from pref_eval.blas import one_blas_thread, pool_blas_limit

    def blas_threads():
        return [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]

    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        before = blas_threads()
        if not before:
            pytest.skip("no BLAS library loaded")
        seen = []
        first_out, second_in = threading.Event(), threading.Event()

        def worker(k):
            with one_blas_thread():
                if k == 0:
                    second_in.wait(10)
                else:
                    second_in.set()
                    first_out.wait(10)
                    seen.append(blas_threads())  # the other worker has left
            if k == 0:
                first_out.set()

        with pool_blas_limit():
            ts = [threading.Thread(target=worker, args=(k,)) for k in (0, 1)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            assert blas_threads() == [1] * len(before)
        assert seen == [[1] * len(before)]
        assert blas_threads() == before


def _fit_cli(path, env_threads):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("PREF_EVAL_THREADS", None)
    if env_threads is not None:
        env["PREF_EVAL_THREADS"] = env_threads
    return subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", str(path)], env=env,
                          capture_output=True)


def test_zelo_fit_threads_environment(tmp_path):
    """zelo_fit on 51,200 judgments (two blocks on two threads): the same bytes with PREF_EVAL_THREADS 1, 2
    and unset; a bad value is one line on stderr and exit code 2."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    from gen_judgments import write

    path = tmp_path / "j.jsonl"
    write(str(path), 320, "jsonl", docs=40)
    outs = [_fit_cli(path, t) for t in ("1", "2", None)]
    assert all(r.returncode == 0 and r.stderr == b"" for r in outs)
    assert outs[0].stdout == outs[1].stdout == outs[2].stdout
    bad = _fit_cli(path, "two")
    assert bad.returncode == 2 and bad.stdout == b""
    assert bad.stderr == b"zelo_fit: PREF_EVAL_THREADS must be an integer >= 1, got 'two'\n"


def test_api_fit_on_threads_has_the_bits_of_one_blas_thread(tmp_path):
    """api.fit (no OPENBLAS_NUM_THREADS set by a command) on two threads, each block's SEs through scipy's
    LAPACK (blocks of 120 documents): the same SEs as one thread with OPENBLAS_NUM_THREADS=1. Fresh processes."""
    rng = np.random.default_rng(5)
    lines = []
    for qn in range(4):
        a, b = rng.integers(0, 120, size=(2, 16_000))
        keep = a != b
        lines += [f"q{qn}\td{x}\td{y}\t{s}" for x, y, s in zip(a[keep], b[keep], rng.integers(0, 2, keep.sum()),
                                                                strict=True)]
    judge = tmp_path / "j.judge"
    judge.write_text("\n".join(lines) + "\n")
    code = ("import sys; from pref_eval import api; df = api.fit(sys.argv[1]); "
            "sys.stdout.write(df.se.to_numpy().tobytes().hex() + df.score.to_numpy().tobytes().hex())")
    out = []
    for blas, threads in (("4", "2"), ("1", "1")):
        env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
        env.update(OPENBLAS_NUM_THREADS=blas, PREF_EVAL_THREADS=threads, PYTHONPATH=ROOT)
        r = subprocess.run([sys.executable, "-c", code, str(judge)], capture_output=True, text=True, env=env,
                           cwd=tmp_path, check=True)
        out.append(r.stdout)
    assert out[0] and out[0] == out[1]
