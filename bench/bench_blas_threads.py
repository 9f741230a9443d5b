"""BLAS threads on small batched matrices: why pref_eval.blas.one_blas_thread exists.

    python bench/bench_blas_threads.py [--repeat 20]

1. The primitive: ``np.linalg.inv`` of a batch of ten 100 × 100 matrices (the adaptive strategy's
   posterior covariances of ten queries at K = 100, once per round), ``--repeat`` times, with the
   BLAS threads the process starts with (one per core) and inside ``one_blas_thread``; wall and CPU
   seconds, on the machine as it is (see the recorded load), while another process keeps one core busy,
   and while one busy process per core competes (what ``pytest -n 2``, ``--jobs`` or other work does on a
   small machine).
2. As users run it, whole process: ``zelo_simulate recovery --K 100 --sigma 1.5 --cycles 4 --trials 10
   --seed 0 --strategy adaptive``, wall and CPU seconds (the process's user + system time), under the
   same three conditions.

Writes bench/RESULTS-blas.md. The load average at the start is recorded: other work on the machine
inflates every figure.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from _timing import ROOT, load, write_result  # noqa: E402


def _spin(stop) -> None:
    while not stop.is_set():
        pass


def _primitive(repeat: int) -> list[tuple[str, float, float]]:
    import numpy as np

    from pref_eval.blas import one_blas_thread

    rng = np.random.default_rng(0)
    A = rng.normal(size=(10, 100, 100))
    H = A @ np.swapaxes(A, 1, 2) + np.eye(100)
    np.linalg.inv(H)  # warm both paths up (threadpoolctl's import and its first look at the libraries)
    with one_blas_thread():
        np.linalg.inv(H)
    out = []
    for name, ctx in (("default threads", None), ("one_blas_thread", one_blas_thread)):
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(repeat):
            if ctx is None:
                np.linalg.inv(H)
            else:
                with ctx():
                    np.linalg.inv(H)
        out.append((name, time.perf_counter() - t0, time.process_time() - c0))
    return out


def _command() -> tuple[float, float]:
    argv = [sys.executable, os.path.join(ROOT, "bin", "zelo_simulate"), "recovery", "--K", "100", "--sigma", "1.5",
            "--cycles", "4", "--trials", "10", "--seed", "0", "--strategy", "adaptive", "-Q"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()
    if a.repeat < 1:
        ap.error("--repeat must be >= 1")
    rows = [f"Measured with `python bench/bench_blas_threads.py --repeat {a.repeat}` ({load()} at the start).", "",
            "| what | machine | wall s | CPU s |", "|---|---|---|---|"]
    cores = os.cpu_count() or 1
    for busy in sorted({0, 1, cores}):
        stop = multiprocessing.Event()
        spinners = [multiprocessing.Process(target=_spin, args=(stop,)) for _ in range(busy)]
        for sp in spinners:
            sp.start()
        try:
            where = ("as found" if busy == 0 else "plus one core kept busy" if busy == 1 else
                     f"plus {busy} busy processes (every core)")
            for name, wall, cpu in _primitive(a.repeat):
                rows.append(f"| inverse of 10 × (100 × 100), {a.repeat} times, {name} | {where} | {wall:.3f} "
                            f"| {cpu:.3f} |")
            wall, cpu = _command()
            rows.append(f"| `zelo_simulate recovery --K 100 --trials 10 --strategy adaptive` | {where} | {wall:.2f} "
                        f"| {cpu:.2f} |")
        finally:
            stop.set()
            for sp in spinners:
                sp.join()
    text = "\n".join(rows)
    print(text)
    print("wrote", write_result("blas", "BLAS threads on small batched matrices", text), file=sys.stderr)


if __name__ == "__main__":
    main()
