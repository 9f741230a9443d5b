"""Where ``zelo_compare``'s start-up instructions go (session 30): bench/bench_startup.py's ``--instructions`` column
gives the whole command as a multiple of ``import numpy``'s; this splits it into the imports and the work.

    python bench/bench_startup_steps.py [--python PY] [--write]

Each step is one process ``PY -c PROGRAM`` run in this checkout (``PYTHONPATH`` = the checkout, its C extensions
built in place; bytecode cached under a scratch ``PYTHONPYCACHEPREFIX`` after one untimed run, as an installed
package loads it; ``OPENBLAS_NUM_THREADS=1`` as in bench_startup.py), its instructions counted once under valgrind
(``valgrind --tool=callgrind``: user space, all threads; the count does not depend on the machine's load). The
command is bench_startup.py's: ``zelo_compare -R qrels/dl19-sample.qrels -m map`` over the three shipped runs.
"Every module" imports, in the order the command loads them, each module the command has loaded by its end
(``sys.modules``); "modules first" runs the command after that import, so that the difference is the work
alone: parsing the options, reading and evaluating, the tests, the table. ``--python``: the interpreter of a
clean virtual environment (default: this one). ``--write``: the table into bench/RESULTS-startup-steps.md.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import ROOT, bytecode_env, load, stamp, write_result  # noqa: E402

ARGS = ["-R", "qrels/dl19-sample.qrels", "-m", "map", "runs/bm25.run", "runs/dense.run", "runs/rerank.run"]


def _command(args: list[str], before: str = "pass", cli: str = "compare", name: str = "zelo_compare") -> str:
    return f"{before}; import sys; sys.argv = [{name!r}, *{args!r}]; from pref_eval.cli.{cli} import main; main()"


def _count(python: str, program: str, env: dict) -> int:
    warm = subprocess.run([python, "-c", program], cwd=ROOT, env=env, capture_output=True, text=True)
    if warm.returncode:
        raise SystemExit(f"{program[:80]}... failed: {warm.stderr[-500:]}")
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python, "-c", program],
                       cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    counts = [line.split()[-1] for line in p.stderr.splitlines() if "Collected :" in line]
    if p.returncode or not counts:
        raise SystemExit(f"valgrind failed ({p.returncode}): {p.stderr[-500:]}")
    return int(counts[-1].replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-steps-") as tmp:
        env = {**bytecode_env(os.path.join(tmp, "pyc")), "PYTHONPATH": ROOT, "OPENBLAS_NUM_THREADS": "1"}
        listing = os.path.join(tmp, "modules.txt")
        lister = (f"import atexit, sys; atexit.register(lambda: open({listing!r}, 'w').write(' '.join(m for m in "
                  "sys.modules if not m.startswith('_') and m != '__main__' and sys.modules[m] is not None)))")
        subprocess.run([args.python, "-c", _command(ARGS, lister)], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        with open(listing) as fh:
            modules = fh.read().split()
        every = "import " + ", ".join(modules)
        ours = [m for m in modules if m.split(".")[0] == "pref_eval"]
        steps = [
            ("`import numpy`", "import numpy"),
            ("`import numpy, click`", "import numpy, click"),
            (f"every module the command loads ({len(modules)}, {len(ours)} of them pref_eval's)", every),
            ("the command", _command(ARGS)),
            ("the command, every module imported first", _command(ARGS, every)),
            ("the same with `--tests t` (no Wilcoxon, no sign test)", _command([*ARGS, "--tests", "t"], every)),
            ("the same with `--tests sign` (no t-test)", _command([*ARGS, "--tests", "sign"], every)),
            ("the same with `--tests wilcoxon` (no t-test)", _command([*ARGS, "--tests", "wilcoxon"], every)),
            ("`zelo_eval` on the same runs and measure, every module first", _command(ARGS, every, "eval",
                                                                                    "zelo_eval")),
        ]
        load0 = load()
        counts = [(label, _count(args.python, program, env)) for label, program in steps]
    base = counts[0][1]
    rows = [f"| {label} | {n:,} | {n / base:.3f} |" for label, n in counts]
    command = "python bench/bench_startup_steps.py --python VENV/bin/python --write"
    text = "\n".join([
        "`zelo_compare -R qrels/dl19-sample.qrels -m map runs/bm25.run runs/dense.run runs/rerank.run`: "
        "instructions of each step (valgrind's callgrind, one run, bytecode cached, one OpenBLAS thread) and "
        "their ratio to `import numpy`'s. " + stamp(load0, load(), command), "",
        "| step | instructions | × numpy |", "|---|---:|---:|", *rows])
    print(text)
    if args.write:
        write_result("startup-steps", "Start-up of zelo_compare, step by step (bench/bench_startup_steps.py)", text)


if __name__ == "__main__":
    main()
