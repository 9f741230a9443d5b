"""Time pref_eval's reader + collection + measures against pytrec_eval and a bare pyarrow parse.

    python bench/gen_runs.py --queries 1000  --out /tmp/bench1m     # 1M run lines
    python bench/gen_runs.py --queries 10000 --out /tmp/bench10m    # 10M run lines
    python bench/bench_trec.py /tmp/bench1m /tmp/bench10m [--repeat 3] [--trec-eval PATH]

Every contender runs as a fresh child process (start-up included), on the
same ``qrels``/``run`` files, computing map, P@10, nDCG@10 (cut) and
recall@100:

* ``pref_eval``: ``zelo_eval -R qrels -m map -m P.10 -m ndcg_cut.10 -m recall.100 run``
  (``zelo_trec -m ... qrels run`` when zelo_eval is not installed);
* ``pytrec_eval``: through ir-measures (``read_trec_qrels``/``read_trec_run`` +
  ``calc_aggregate([AP, P@10, nDCG@10, R@100])``), i.e. what a user of
  ir-measures pays;
* ``pyarrow parse``: ``pyarrow.csv.read_csv`` of the run alone (a floor for
  any Python-side reader);
* ``trec_eval``: the C binary, when ``--trec-eval`` is given.

Prints the best wall time and the best CPU time (user + system, all threads) of
``--repeat`` runs, the peak resident memory of the child (``wait4`` rusage) and
the ratios to pytrec_eval. On a shared, loaded machine the CPU column is the
steadier figure.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

MEASURES = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recall.100"]

IRM = """
import sys, ir_measures
from ir_measures import AP, P, nDCG, R
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
run = list(ir_measures.read_trec_run(sys.argv[2]))
print(ir_measures.calc_aggregate([AP, P@10, nDCG@10, R@100], qrels, run))
"""

PYARROW = """
import sys
import pyarrow.csv as pc
t = pc.read_csv(sys.argv[2], read_options=pc.ReadOptions(column_names=["q", "i", "d", "r", "s", "t"]),
                parse_options=pc.ParseOptions(delimiter=" "))
print(t.num_rows)
"""


def timed(cmd: list[str]) -> tuple[float, float, float, int, bytes]:
    """Run ``cmd``; return (wall seconds, CPU seconds (user+sys), peak RSS MB, exit code, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = p.stdout.read()
    p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, p.returncode, out


def ours_cmd(d: str) -> tuple[str, list[str]]:
    zelo_eval = shutil.which("zelo_eval")
    probe = subprocess.run([zelo_eval, "--help"], capture_output=True) if zelo_eval else None
    if probe is not None and probe.returncode == 0:
        return "zelo_eval", [zelo_eval, "-R", f"{d}/qrels", *MEASURES, f"{d}/run"]
    return "zelo_trec", [shutil.which("zelo_trec") or "zelo_trec", *MEASURES, f"{d}/qrels", f"{d}/run"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="folders written by gen_runs.py")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trec-eval", default=None, help="path of a trec_eval binary to time too")
    ap.add_argument("--skip-pytrec", action="store_true")
    a = ap.parse_args()
    print(f"{'lines':>10}  {'tool':<34} {'wall s':>7} {'CPU s':>7} {'peak MB':>8} {'/pytrec':>8} {'CPU/pytrec':>10}")
    for d in a.dirs:
        with open(f"{d}/run", "rb") as fh:
            nlines = sum(buf.count(b"\n") for buf in iter(lambda: fh.read(1 << 24), b""))
        label, ours = ours_cmd(d)
        contenders = [(f"pref_eval ({label})", ours)]
        if not a.skip_pytrec:
            contenders.append(("pytrec_eval via ir-measures", [sys.executable, "-c", IRM, f"{d}/qrels", f"{d}/run"]))
        contenders.append(("pyarrow.csv parse of the run", [sys.executable, "-c", PYARROW, f"{d}/qrels", f"{d}/run"]))
        if a.trec_eval:
            contenders.append(("trec_eval (C)", [a.trec_eval, *MEASURES, f"{d}/qrels", f"{d}/run"]))
        results = {}
        for name, cmd in contenders:
            best, bcpu, peak, rc = float("inf"), float("inf"), 0.0, 0
            for _ in range(a.repeat):
                wall, cpu, mb, rc, _out = timed(cmd)
                best, bcpu, peak = min(best, wall), min(bcpu, cpu), max(peak, mb)
                if rc != 0:
                    break
            results[name] = (best, bcpu, peak, rc)
        base = results.get("pytrec_eval via ir-measures", (None, None))
        for name, (wall, cpu, peak, rc) in results.items():
            ratio = f"{wall / base[0]:8.2f}" if base[0] else f"{'-':>8}"
            cratio = f"{cpu / base[1]:10.2f}" if base[1] else f"{'-':>10}"
            flag = "" if rc == 0 else f"  (exit {rc})"
            print(f"{nlines:>10}  {name:<34} {wall:7.2f} {cpu:7.2f} {peak:8.0f} {ratio} {cratio}{flag}", flush=True)
    print(f"\ncommand: {' '.join(ours[:1] + MEASURES)} ...; cores: {os.cpu_count()}")


if __name__ == "__main__":
    main()
