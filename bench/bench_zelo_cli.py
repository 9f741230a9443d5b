"""zelo_fit as users run it: the whole command (read, fit with standard errors, write the TSV).

Run:  python bench/bench_zelo_cli.py [--repeat N] [--big] [--no-write]

Inputs from bench/gen_judgments.py: 1,000 queries x 100 documents x 4 cycles (400,000
judgments) as canonical JSONL and as Clarke's 4-column text, and 5,300 queries as JSONL
(issue #13 targets: <= 1.0 s and <= 4 s wall on a 2-core machine). ``--big`` adds 25,000
queries (10 M judgments; target: peak memory <= 2 GB). Whole process: best wall time of N runs
(after one untimed run, with cached bytecode: ``_timing.bytecode_env``), the CPU time (user+sys)
of that best run, and the peak resident memory. Writes bench/RESULTS-zelo-cli.md and the README
table (``--no-write``: prints it only); a target missed is marked **no**.

``--ab CHECKOUT [--label TEXT]``: instead, this checkout against another one (e.g. ``git archive
COMMIT | tar -x -C DIR`` and ``python setup.py build_ext --inplace`` there), CPU time first, for a
machine shared with other jobs: the three cases' commands of both checkouts run in turn (``--repeat``
rounds after one untimed run of each), each run's user + system CPU seconds (``os.wait4``), the
medians and minima per checkout, the median wall, and whether the two outputs are byte-identical
(``cmp``). Writes only the ``zelo-cli-ab`` block of bench/RESULTS-zelo-cli.md (not the README; nothing with
``--no-write``).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import bytecode_env, cmd, load, run, stamp, write_result  # noqa: E402
from gen_judgments import write  # noqa: E402


def _children_cpu() -> float:
    """User + system CPU seconds of the waited-for child processes so far."""
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _cpu_run(argv: list[str], env: dict) -> tuple[float, float]:
    """(user + system CPU seconds, wall seconds) of one process ``argv`` (its own rusage, ``os.wait4``)."""
    import subprocess
    import time

    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    if p.stderr:
        p.stderr.close()
    if status != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({status}): {err[-2000:]}")
    return ru.ru_utime + ru.ru_stime, wall


def ab(other: str, repeat: int, label: str | None, write_file: bool = True) -> None:
    """``--ab``: this checkout and ``other``, CPU medians per case (module docstring)."""
    import filecmp
    import statistics

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    other = os.path.abspath(other)
    if not os.path.exists(os.path.join(other, "bin", "zelo_fit")):
        sys.exit(f"--ab: {other} is not a checkout of pref_eval (no bin/zelo_fit)")
    tmp = tempfile.mkdtemp(prefix="bench-zelo-ab-")
    env = bytecode_env(os.path.join(tmp, "pycache"))
    env.pop("PYTHONPATH", None)  # each bin/zelo_fit puts its own checkout first
    trees = {"other": other, "this": here}
    load0 = load()
    rows = []
    for nq, fmt in ((1000, "jsonl"), (1000, "clarke4"), (5300, "jsonl")):
        path = os.path.join(tmp, f"j{nq}.{fmt}")
        n = write(path, nq, fmt)
        outs = {k: os.path.join(tmp, f"out-{k}.tsv") for k in trees}
        argv = {k: [sys.executable, os.path.join(t, "bin", "zelo_fit"), "-J", path, "-o", outs[k]]
                for k, t in trees.items()}
        for k in trees:
            _cpu_run(argv[k], env)  # untimed: bytecode, file cache
        same = filecmp.cmp(outs["other"], outs["this"], shallow=False)
        cpu: dict = {k: [] for k in trees}
        wall: dict = {k: [] for k in trees}
        for _ in range(repeat):
            for k in trees:
                c, w = _cpu_run(argv[k], env)
                cpu[k].append(c)
                wall[k].append(w)
        med = {k: statistics.median(v) for k, v in cpu.items()}
        rows.append(f"| {nq:,} | {n:,} | {fmt} | {med['other']:.3f} ({min(cpu['other']):.3f}) | "
                    f"{med['this']:.3f} ({min(cpu['this']):.3f}) | {med['this'] - med['other']:+.3f} "
                    f"({(med['this'] / med['other'] - 1) * 100:+.1f} %) | {statistics.median(wall['other']):.2f} / "
                    f"{statistics.median(wall['this']):.2f} | {'yes' if same else '**no**'} |")
        os.unlink(path)
    text = ("| queries | judgments | format | other: median CPU s (min) | this: median CPU s (min) | difference | "
            "median wall s (other / this) | output identical? |\n|---|---|---|---|---|---|---|---|\n"
            + "\n".join(rows) + f"\n\n`zelo_fit -J FILE -o OUT`, user + system CPU seconds of each process, "
            f"{repeat} runs of each checkout in turn; other = {label or other}, this = this checkout. "
            + stamp(load0, load(), f"python bench/bench_zelo_cli.py --ab CHECKOUT --repeat {repeat}"))
    print(text)
    if write_file:
        write_result("zelo-cli", "zelo_fit end to end (bench/bench_zelo_cli.py)", text, "zelo-cli-ab")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--ab", metavar="CHECKOUT", help="CPU medians of this checkout and CHECKOUT (docstring)")
    ap.add_argument("--label", help="with --ab: what CHECKOUT is, for the record (e.g. 'main at 932fd85')")
    ap.add_argument("--no-write", action="store_true", help="print the table, write no file")
    args = ap.parse_args()
    if args.ab:
        ab(args.ab, max(1, args.repeat), args.label, write_file=not args.no_write)
        return
    tmp = tempfile.mkdtemp(prefix="bench-zelo-cli-")
    env = bytecode_env(os.path.join(tmp, "pycache"))
    cases = [(1000, "jsonl", "≤ 1.0 s"), (1000, "clarke4", "≤ 1.0 s"), (5300, "jsonl", "≤ 4 s")]
    if args.big:
        cases.append((25000, "jsonl", "≤ 2 GB"))
    load0 = load()
    rows = []
    for nq, fmt, target in cases:
        path = os.path.join(tmp, f"j{nq}.{fmt}")
        n = write(path, nq, fmt)
        out = os.path.join(tmp, "out.tsv")
        argv = cmd("zelo_fit", "-J", path, "-o", out)
        if nq <= 5300:
            run(argv, env=env)  # untimed: writes the bytecode cache, warms the file cache
        best_t, best_cpu, mem = float("inf"), 0.0, 0.0
        for _ in range(1 if nq > 5300 else args.repeat):
            c0 = _children_cpu()
            t, m = run(argv, env=env)
            mem = max(mem, m)
            if t < best_t:
                best_t, best_cpu = t, _children_cpu() - c0
        limit = float(target.split()[1])
        ok = mem <= limit * 1024 if target.endswith("GB") else best_t <= limit
        rows.append(f"| {nq:,} | {n:,} | {fmt} | {best_t:.2f} | {best_cpu:.2f} | {mem:.0f} | {target} | "
                    f"{'yes' if ok else '**no**'} |")
        os.unlink(path)
    text = ("| queries | judgments | format | best wall s | its CPU s | peak MB | target | met? |\n"
            "|---|---|---|---|---|---|---|---|\n"
            + "\n".join(rows) + f"\n\n`zelo_fit -J FILE -o OUT` (standard errors, TSV); best of {args.repeat}. "
            + stamp(load0, load(), f"python bench/bench_zelo_cli.py --repeat {args.repeat}"
                    + (" --big" if args.big else "")))
    print(text)
    if not args.no_write:
        write_result("zelo-cli", "zelo_fit end to end (bench/bench_zelo_cli.py)", text)


if __name__ == "__main__":
    main()
