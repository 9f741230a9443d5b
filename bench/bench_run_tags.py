"""CPU time of ``zelo_eval --run-types`` and ``zelo_pairs pool --groups`` on runs over 64 MB (the streaming
reader's), two code trees interleaved, least of N runs each: whether the runs are read once for their tags.

    python bench/gen_runs.py --queries 2500 --out /tmp/big      # a 94 MB run (tag 'bench')
    cd /tmp/big && mv run a.run && sed 's/ bench$/ other/' a.run > b.run
    printf 'bench automatic\\nother manual\\n' > types.txt; printf 'bench g1\\nother g2\\n' > groups.txt
    python bench/bench_run_tags.py /tmp/big OLD_TREE NEW_TREE [--repeat 5] [--write]

Each command runs as a child process (``PREF_EVAL_THREADS=1``, bytecode cached by one untimed run); the figure
is the child's user + system CPU (``resource.RUSAGE_CHILDREN``), steadier than wall time on a loaded machine;
each output is compared between the trees (byte-identical expected); then the tag collection alone
(``fastparse._batch_distinct``'s thread CPU over one read, least of N, per tree). ``--write``: the table into
bench/RESULTS-run-tags.md (between its ``run-tags`` markers).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import load, machine, write_result  # noqa: E402

COMMANDS = {
    "eval": ["-m", "pref_eval.cli.eval", "-R", "qrels", "-m", "map", "-m", "P_10", "-o", "topics", "-Q",
             "--output", "out.tsv"],
    "eval --run-types": ["-m", "pref_eval.cli.eval", "-R", "qrels", "-m", "map", "-m", "P_10", "-o", "topics", "-Q",
                         "--output", "out.tsv", "--run-types", "types.txt"],
    "pool": ["-c", "from pref_eval.cli.pairs import main; main()", "pool", "--depth", "100", "-Q", "-o", "p.txt",
             "--contributions", "out.tsv"],
    "pool --groups": ["-c", "from pref_eval.cli.pairs import main; main()", "pool", "--depth", "100", "-Q", "-o",
                      "p.txt", "--contributions", "out.tsv", "--groups", "groups.txt"],
}


def cpu(argv: list[str], cwd: str, tree: str) -> tuple[float, bytes]:
    env = dict(os.environ, PYTHONPATH=tree, PREF_EVAL_THREADS="1")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *argv], cwd=cwd, env=env, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(os.path.join(cwd, "out.tsv"), "rb") as f:
        out = f.read()
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


# the tag collection alone: thread CPU of fastparse._batch_distinct over reads of a.run, in one child per tree
SCAN = r"""
import sys, time
import pref_eval.io.fastparse as F
spent = [0.0]
inner = F._batch_distinct
def timed(*a):
    t = time.thread_time(); r = inner(*a); spent[0] += time.thread_time() - t; return r
F._batch_distinct = timed
best = 1e9
for _ in range(int(sys.argv[1])):
    spent[0] = 0.0
    F.fast_columns("a.run", min_fields=6, max_fields=None, kinds={0: "S", 2: "S", 4: "f8", 5: "T"})
    best = min(best, spent[0])
print(best)
"""


def scan_cpu(cwd: str, tree: str, repeat: int) -> float:
    env = dict(os.environ, PYTHONPATH=tree, PREF_EVAL_THREADS="1")
    out = subprocess.run([sys.executable, "-c", SCAN, str(repeat)], cwd=cwd, env=env, check=True, capture_output=True,
                         text=True)
    return float(out.stdout.split()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data")
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    load0 = load()
    runs = ["a.run", "b.run"]
    best: dict[tuple[str, str], float] = {}
    outs: dict[tuple[str, str], bytes] = {}
    for tree in (a.old, a.new):
        cpu(COMMANDS["eval"] + runs, a.data, tree)  # bytecode
    for _ in range(a.repeat):
        for name, argv in COMMANDS.items():
            for label, tree in (("old", a.old), ("new", a.new)):
                t, out = cpu(argv + runs, a.data, tree)
                best[(name, label)] = min(best.get((name, label), 1e9), t)
                outs[(name, label)] = out
    size = sum(os.path.getsize(os.path.join(a.data, r)) for r in runs) / 1e6
    lines = [f"Two runs of {size / 2:.0f} MB each (`{' '.join(runs)}`), child user + system CPU, least of "
             f"{a.repeat}, old = `{a.old}`, new = `{a.new}`:", "",
             "| command | old (s) | new (s) | change | same output |", "|---|---|---|---|---|"]
    for name in COMMANDS:
        o, n = best[(name, "old")], best[(name, "new")]
        lines.append(f"| `{name}` | {o:.2f} | {n:.2f} | {(n - o) / o * 100:+.1f} % | "
                     f"{outs[(name, 'old')] == outs[(name, 'new')]} |")
    scans = {label: scan_cpu(a.data, tree, a.repeat) for label, tree in (("old", a.old), ("new", a.new))}
    lines += ["", f"The tag collection alone (`fastparse._batch_distinct`, thread CPU summed over one read of `a.run`, "
              f"least of {a.repeat}; steadier than the commands' totals, whose spread on a loaded machine exceeds "
              f"it): old {scans['old'] * 1e3:.1f} ms, new {scans['new'] * 1e3:.1f} ms."]
    lines += ["", f"Measured on {machine()}; {load0} at the start, {load()} at the end "
              f"(`python bench/bench_run_tags.py DATA OLD NEW --repeat {a.repeat}`)."]
    text = "\n".join(lines)
    print(text)
    if a.write:
        print(write_result("run-tags", "Run tags read once (zelo_eval --run-types, zelo_pairs pool --groups)", text))


if __name__ == "__main__":
    main()
