"""Start-up of every command on the shipped sample, as users run it (whole process, wall and CPU time).

Run, as users run the commands (installed console scripts in a fresh virtual environment):

    python3 -m venv /tmp/pe-venv && /tmp/pe-venv/bin/pip install '.[plot]'
    python bench/bench_startup.py --venv /tmp/pe-venv [--repeat N]

or, without ``--venv``, on this checkout's ``bin/`` scripts run by the current interpreter (a shared
development environment with many packages installed can add interpreter start-up overhead).

Each command is run N times (default 7) as a new process on the files shipped in the repository,
round-robin with ``python -c 'import numpy'`` of the same interpreter, so that a change in machine
load touches every row alike. The table gives, per command, the best wall time and the best CPU
time (user + system of the child process) and their ratios to ``import numpy`` (issue #13 targets:
<= 1.3x for zelo_trec, zelo_eval, pref_aggregate, zelo_fit; <= 3x zelo_compare; <= 6x zelo_plot).
On a loaded machine the CPU ratio is the one to read. ``--instructions`` adds a column that
does not depend on the load at all: the instructions each process executes, counted once under
valgrind (``valgrind --tool=callgrind``; ~50x slower), as a ratio to ``import numpy``'s (counted with
``OPENBLAS_NUM_THREADS=1``, as the commands load numpy: otherwise OpenBLAS's idle threads spin for a
load-dependent number of instructions and the ratio moved by 0.1 between runs). Writes
bench/RESULTS-startup.md and the README table between its markers (``--no-write``: print only).

``zelo_plot`` needs matplotlib; without a writable cache directory (``MPLCONFIGDIR`` or
``~/.cache/matplotlib``) matplotlib rebuilds its font list on every run and the plot row measures that.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import BIN, ROOT, load, stamp, write_result  # noqa: E402

TARGETS = {"zelo_compare": 3.0, "zelo_plot": 6.0, "zelo_plot systems": 6.0, "zelo_plot pairs": 6.0,
           "zelo_plot matrix": 6.0, "zelo_plot calibration": 6.0}


def run_once(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, user + system CPU seconds) of one process ``argv`` (its own rusage, via wait4)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({p.returncode}): {err.decode(errors='replace')[-2000:]}")
    return wall, ru.ru_utime + ru.ru_stime


def instructions(argv: list[str], env: dict | None = None) -> int:
    """Instructions executed by the process ``argv`` (valgrind's callgrind, user space, all threads)."""
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv], cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed under valgrind ({p.returncode}): {p.stderr[-2000:]}")
    counts = [line.split()[-1] for line in p.stderr.splitlines() if "Collected :" in line]
    return int(counts[-1])


def commands(venv: str | None):
    """(python, command factory): installed console scripts of ``venv``, else this checkout's bin/."""
    if venv:
        python = os.path.join(venv, "bin", "python")
        return python, lambda name, *args: [os.path.join(venv, "bin", name), *args]
    return sys.executable, lambda name, *args: [sys.executable, os.path.join(BIN, name), *args]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--venv", default=None, help="virtual environment with pref_eval installed (pip install .)")
    ap.add_argument("--only", action="append", default=[], help="time only this command (repeatable)")
    ap.add_argument("--no-write", action="store_true", help="print the table, write no file")
    ap.add_argument("--instructions", action="store_true",
                    help="also count each process's instructions under valgrind (independent of the load)")
    args = ap.parse_args()
    python, cmd = commands(args.venv)
    tmp = tempfile.mkdtemp(prefix="bench-startup-")
    prefs = os.path.join(tmp, "prefs.jsonl")
    with open(prefs, "w") as fh:
        subprocess.run(cmd("zelo_eval", "-R", "qrels/dl19-sample.qrels", "-q", "runs/bm25.run", "runs/dense.run",
                           "runs/rerank.run"), stdout=fh, check=True, cwd=ROOT)
    agree = os.path.join(tmp, "agree.jsonl")
    with open(agree, "w") as fh:
        subprocess.run(cmd("zelo_agree", "-J", "judgments/dl21-crowd-sample.txt", "-J",
                           "judgments/dl21-gpt4o-sample.human", "-n", "crowd", "-n", "gpt4o", "-l", "calibration",
                           "--calibration", "always", "--resamples", "0", "-o", "jsonl", "-Q"),
                       stdout=fh, check=True, cwd=ROOT)
    scores = os.path.join(tmp, "s.tsv")
    subprocess.run(cmd("zelo_fit", "-J", "judgments/dl19-sample.judge", "-o", scores), check=True, cwd=ROOT)
    cases = [
        ("zelo_trec", cmd("zelo_trec", "-m", "official", "qrels/dl19-sample.qrels", "runs/rerank.run")),
        ("zelo_eval", cmd("zelo_eval", "-R", "qrels/dl19-sample.qrels", "runs/bm25.run", "runs/dense.run",
                          "runs/rerank.run")),
        ("pref_aggregate", cmd("pref_aggregate", "-P", prefs)),
        ("zelo_fit", cmd("zelo_fit", "-J", "judgments/dl19-sample.judge")),
        ("zelo_compare", cmd("zelo_compare", "-R", "qrels/dl19-sample.qrels", "-m", "map", "runs/bm25.run",
                             "runs/dense.run", "runs/rerank.run")),
        ("zelo_plot", cmd("zelo_plot", "scores", "-S", scores, "-o", os.path.join(tmp, "p.png"))),
        # the other plot kinds drawn by pref_eval's own layer (pref_eval/plot/canvas.py)
        ("zelo_plot systems", cmd("zelo_plot", "systems", "-R", "qrels/dl19-sample.qrels", "-m", "map",
                                  "runs/bm25.run", "runs/dense.run", "runs/rerank.run", "-o",
                                  os.path.join(tmp, "s.png"))),
        ("zelo_plot pairs", cmd("zelo_plot", "pairs", "-R", "qrels/dl19-sample.qrels", "-m", "map",
                                "runs/bm25.run", "runs/dense.run", "runs/rerank.run", "-o",
                                os.path.join(tmp, "pairs.png"))),
        ("zelo_plot matrix", cmd("zelo_plot", "matrix", "-J", "judgments/dl19-sample.judge", "-o",
                                 os.path.join(tmp, "matrix.png"))),
        ("zelo_plot calibration", cmd("zelo_plot", "calibration", "-A", agree, "-o",
                                      os.path.join(tmp, "calibration.png"))),
    ]
    # --only NAME selects a command and its variants ("zelo_plot" also runs its other kinds' rows)
    cases = [c for c in cases if not args.only or c[0] in args.only or c[0].split()[0] in args.only]
    base_argv = [python, "-c", "import numpy"]
    for argv in [base_argv] + [a for _, a in cases]:  # warm the page cache and matplotlib's font cache
        run_once(argv)
    load0 = load()
    best: dict[str, list[float]] = {}
    for _ in range(args.repeat):
        for name, argv in [("base", base_argv), *cases]:
            w, c = run_once(argv)
            b = best.setdefault(name, [w, c])
            b[0], b[1] = min(b[0], w), min(b[1], c)
    load1 = load()
    ins = {}
    if args.instructions:
        # the base with one OpenBLAS thread (as the commands load numpy): with more, its idle threads spin for a
        # number of instructions that depends on the machine's load
        ins["base"] = instructions(base_argv, {**os.environ, "OPENBLAS_NUM_THREADS": "1"})
        ins.update({name: instructions(argv) for name, argv in cases})
    bw, bc = best["base"]

    def ins_cell(name: str) -> str:
        return f" {ins[name] / ins['base']:.2f} |" if ins else ""

    rows = [f"| `python3 -c 'import numpy'` | {bw:.3f} | 1.00 | {bc:.3f} | 1.00 |{ins_cell('base')} |"]
    for name, _ in cases:
        w, c = best[name]
        rows.append(f"| `{name}` | {w:.3f} | {w / bw:.2f} | {c:.3f} | {c / bc:.2f} |{ins_cell(name)} "
                    f"≤ {TARGETS.get(name, 1.3):g} |")
    how = (f"python bench/bench_startup.py{' --venv VENV' if args.venv else ''} --repeat {args.repeat}"
           f"{' --instructions' if ins else ''}")
    where = ("installed console scripts of a virtual environment with only `pip install '.[plot]'`" if args.venv
             else "the checkout's `bin/` scripts")
    head = "| command (shipped sample) | best wall s | × numpy (wall) | best CPU s | × numpy (CPU) |"
    head += " × numpy (instructions) |" if ins else ""
    text = (head + " target |\n" + "|---" * (7 if ins else 6) + "|\n" + "\n".join(rows)
            + f"\n\nBest of {args.repeat} runs each, round-robin; {where}; CPU = user + system time of the process"
            + ("; instructions counted once per command under valgrind (callgrind), `import numpy` with one "
               "OpenBLAS thread" if ins else "") + ". "
            + stamp(load0, load1, how))
    print(text)
    if not args.no_write:
        write_result("startup", "Start-up on the shipped sample (bench/bench_startup.py)", text)


if __name__ == "__main__":
    main()
