"""Time pref_eval's reader + collection + measures against pytrec_eval and a bare pyarrow parse.

    python bench/gen_runs.py --queries 1000  --out /tmp/bench1m     # 1M run lines
    python bench/gen_runs.py --queries 10000 --out /tmp/bench10m    # 10M run lines
    python bench/bench_trec.py /tmp/bench1m /tmp/bench10m [--repeat 3] [--trec-eval PATH]

Every contender runs as a fresh child process (start-up included), on the
same ``qrels``/``run`` files, computing map, P@10, nDCG@10 (cut) and
recall@100:

* ``pref_eval``: ``zelo_eval -R qrels -m map -m P.10 -m ndcg_cut.10 -m recall.100 run``
  (this checkout's ``bin/zelo_eval``, cached bytecode after one untimed run);
* ``pytrec_eval``: through ir-measures (``read_trec_qrels``/``read_trec_run`` +
  ``calc_aggregate([AP, P@10, nDCG@10, R@100])``), i.e. what a user of
  ir-measures pays;
* ``pyarrow parse``: ``pyarrow.csv.read_csv`` of the run alone (a floor for
  any Python-side reader);
* ``trec_eval``: the C binary, when ``--trec-eval`` is given.

Prints the best wall time and the best CPU time (user + system, all threads) of
``--repeat`` round-robin runs, the peak resident memory of the child (``wait4``
rusage) and the ratios to pytrec_eval. On a shared, loaded machine the CPU
column is the steadier figure. ``--write`` puts the table (with the date, the
CPU model and the load average) into README.md between ``<!-- metrics:begin -->``
and ``<!-- metrics:end -->`` and into bench/RESULTS-io.md.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from functools import partial

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import bytecode_env, cmd, load, stamp, write_result  # noqa: E402

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


def timed(argv: list[str], env: dict | None = None) -> tuple[float, float, float, int, bytes]:
    """Run ``argv``; return (wall seconds, CPU seconds (user+sys), peak RSS MB, exit code, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out = p.stdout.read()
    p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, p.returncode, out


def ours_cmd(d: str) -> list[str]:
    """zelo_eval of this checkout (bin/zelo_eval) under this interpreter."""
    return cmd("zelo_eval", "-R", f"{d}/qrels", *MEASURES, f"{d}/run")


def target(nlines: int) -> str:
    """The issue's target for a run of about 1M or 10M lines (issue 2)."""
    if 0.9e6 <= nlines <= 1.1e6:
        return "≤ 0.7× pytrec_eval"
    if 9e6 <= nlines <= 11e6:
        return "≤ 0.3× pytrec_eval, ≤ 1 GB"
    return ""


def met(nlines: int, ratio: float | None, peak: float) -> str:
    if not target(nlines) or ratio is None:
        return ""
    ok = ratio <= (0.7 if nlines < 5e6 else 0.3) and (nlines < 5e6 or peak <= 1024)
    return "yes" if ok else "**no**"


def _cell(results: dict, name: str) -> str:
    """``CPU s (wall s)`` of one contender for the README table."""
    r = results.get(name)
    if r is None:
        return "–"
    return f"{r[1]:.2f} s ({r[0]:.2f} s)" if r[3] == 0 else f"failed (exit {r[3]})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dirs", nargs="+", help="folders written by gen_runs.py")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trec-eval", default=None, help="path of a trec_eval binary to time too")
    ap.add_argument("--skip-pytrec", action="store_true")
    ap.add_argument("--write", action="store_true",
                    help="write the table into README.md (Metrics) and bench/RESULTS-io.md between the markers")
    a = ap.parse_args()
    env = bytecode_env(tempfile.mkdtemp(prefix="bench-trec-pyc-"))
    load0 = load()
    print(f"{'lines':>10}  {'tool':<34} {'wall s':>7} {'CPU s':>7} {'peak MB':>8} {'/pytrec':>8} {'CPU/pytrec':>10}")
    rows = []
    for d in a.dirs:
        with open(f"{d}/run", "rb") as fh:
            nlines = sum(buf.count(b"\n") for buf in iter(lambda: fh.read(1 << 24), b""))
        contenders = [("pref_eval", ours_cmd(d))]
        if a.trec_eval:
            contenders.append(("trec_eval", [a.trec_eval, *MEASURES, f"{d}/qrels", f"{d}/run"]))
        if not a.skip_pytrec:
            contenders.append(("pytrec_eval", [sys.executable, "-c", IRM, f"{d}/qrels", f"{d}/run"]))
        contenders.append(("pyarrow", [sys.executable, "-c", PYARROW, f"{d}/qrels", f"{d}/run"]))
        timed(ours_cmd(d), env)  # untimed: writes our bytecode cache, warms the file cache
        results = {name: [float("inf"), float("inf"), 0.0, 0] for name, _ in contenders}
        for _ in range(a.repeat):  # round-robin, so that a change of load hits every contender
            for name, argv in contenders:
                r = results[name]
                if r[3] != 0:
                    continue
                wall, cpu, mb, rc, _out = timed(argv, env)
                r[0], r[1], r[2], r[3] = min(r[0], wall), min(r[1], cpu), max(r[2], mb), rc
        base = results.get("pytrec_eval")
        for name, (wall, cpu, peak, rc) in results.items():
            ratio = f"{wall / base[0]:8.2f}" if base else f"{'-':>8}"
            cratio = f"{cpu / base[1]:10.2f}" if base else f"{'-':>10}"
            flag = "" if rc == 0 else f"  (exit {rc})"
            print(f"{nlines:>10}  {name:<34} {wall:7.2f} {cpu:7.2f} {peak:8.0f} {ratio} {cratio}{flag}", flush=True)
        cell = partial(_cell, results)
        ours = results["pref_eval"]
        ratio = ours[1] / base[1] if base and base[3] == 0 else None
        te = results.get("trec_eval")
        rows.append(f"| {nlines / 1e6:.3g}M | {cell('pref_eval')} | {cell('trec_eval')} | {cell('pytrec_eval')} | "
                    f"{cell('pyarrow')} | " + (f"{ratio:.2f}×" if ratio is not None else "–") + " | "
                    + (f"{ours[1] / te[1]:.2f}×" if te and te[3] == 0 else "–")
                    + f" | {ours[2]:.0f} MB | {target(nlines)} | {met(nlines, ratio, ours[2])} |")
    load1 = load()
    again = ("python bench/bench_trec.py " + " ".join(a.dirs) + f" --repeat {a.repeat}"
             + (f" --trec-eval {a.trec_eval}" if a.trec_eval else "") + (" --skip-pytrec" if a.skip_pytrec else "")
             + " --write")
    text = ("| run lines | pref_eval | trec_eval 10 | pytrec_eval | pyarrow parse only | pref_eval / pytrec_eval "
            "| pref_eval / trec_eval | pref_eval peak memory | issue target | met? |\n"
            "|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n" + "\n".join(rows)
            + f"\n\nCPU seconds (user + system, all threads) of the child process, best of {a.repeat} round-robin "
            "runs after one untimed run of ours (cached bytecode); best wall seconds in brackets; "
            "ratios and targets on CPU time; peak = largest resident set of our process. "
            + stamp(load0, load1, again))
    print("\n" + text)
    if a.write:
        print("wrote", write_result("io", "Reader + collection benchmark (bench/bench_trec.py)", text, "metrics"),
              file=sys.stderr)


if __name__ == "__main__":
    main()
