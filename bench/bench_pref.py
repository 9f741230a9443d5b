"""Benchmark zelo_eval's preference mode and pref_aggregate (issue 3 shapes).

    python bench/bench_pref.py [--quick] [--repeat N] [--only dl,l,agg] [--no-pyc] [--write]
    PREF_EVAL_REF=/tmp/pref_eval python bench/bench_pref.py   # also time the reference, print ratios

Shapes: DL (63 runs × 53 queries × 100 docs, 48–85 relevant per query, graded 1–3),
all 15 measures with -q; L (30 runs × 200 queries × 1,000 docs) with -M preferences;
pref_aggregate on the DL output. CPU seconds of the child process (user+sys);
ours is the minimum over ``--repeat`` round-robin runs (default 3; the development
machine is shared, so single runs vary by ±30 %), the reference is run once.
``--write`` puts the table (with the date, the CPU model and the load average)
into README.md between ``<!-- pref:begin -->`` and ``<!-- pref:end -->`` and into
bench/RESULTS-pref.md.

Bytecode: the children run with ``PYTHONPYCACHEPREFIX`` set to a temporary
folder (``PYTHONDONTWRITEBYTECODE`` removed) and one untimed warm-up run per
command, so our modules load from cached bytecode as in an installed package
(the development shell sets ``PYTHONDONTWRITEBYTECODE=1``, which recompiles
every pref_eval module on each start: +0.02–0.03 s CPU). ``--no-pyc`` keeps
the caller's environment and skips the warm-up. ``--only`` picks cases
(``dl``, ``l``, ``agg``; ``agg`` needs the DL output and runs DL once untimed
if ``dl`` is not picked).

``--output-cost``: instead, the cost of pref_aggregate's output step on the DL-shape output, in this
process (CPU time, best of ``--repeat``, at least 5): per format (json, tsv, jsonl), without and with
``-q``, the lines written as the command writes them (``writelines`` of str lines on a text stream),
joined into one str and written once, and joined and encoded to bytes on a binary stream, all to
os.devnull; beside the whole command's CPU time (child processes, the README's ``pref_aggregate -P
FILE``, best of ``--repeat``). The three ways write the same characters (one generator's lines).

``--scan [--ab CHECKOUT [--label TEXT]]``: the compiled scanner's speed on the DL-shape output (48 MB):
``pref_eval._jsonl.scan`` of the whole file in a child process (one untimed scan, then five timed, CPU
time), ns per byte, and the whole ``pref_aggregate -P FILE`` command's CPU time (user + system of the
child), ``--repeat`` rounds; with ``--ab``, of this checkout and of CHECKOUT (another checkout with its
extensions built) taking turns, and whether their outputs are byte-identical. Medians (minima in
brackets). Writes the ``pref-scan`` block of bench/RESULTS-pref.md (not the README).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import load, stamp, write_result  # noqa: E402


def generate(d: Path, nruns: int, nq: int, ndocs: int, rel: tuple[int, int], seed: int) -> tuple[Path, list[Path]]:
    import numpy as np

    rng = np.random.default_rng(seed)
    d.mkdir(parents=True, exist_ok=True)
    pool = 3 * ndocs
    ql = []
    for q in range(nq):
        nrel = int(rng.integers(rel[0], rel[1] + 1))
        docs = rng.choice(pool, size=nrel + 50, replace=False)
        for k, doc in enumerate(docs):
            ql.append(f"{1000 + q} 0 D{q}_{doc} {int(rng.integers(1, 4)) if k < nrel else 0}\n")
    qrels = d / "qrels"
    qrels.write_text("".join(ql))
    runs = []
    for r in range(nruns):
        lines = []
        for q in range(nq):
            docs = rng.choice(pool, size=ndocs, replace=False)
            scores = np.sort(rng.random(ndocs))[::-1]
            lines.extend(f"{1000 + q} Q0 D{q}_{doc} {k + 1} {s:.6f} run{r}\n"
                         for k, (doc, s) in enumerate(zip(docs, scores, strict=False)))
        p = d / f"input.run{r:02d}"
        p.write_text("".join(lines))
        runs.append(p)
    return qrels, runs


ENV: dict | None = None  # children's environment (None: inherit)


def scanner_built() -> bool:
    """Whether the children can import the optional C scanner (python setup.py build_ext --inplace / pip install .)."""
    r = subprocess.run([sys.executable, "-c", "import pref_eval._jsonl"], capture_output=True)
    return r.returncode == 0


def cpu_of(cmd: list[str], out: Path | None = None, env: dict | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process (environment ``env``, else ``ENV``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(out or os.devnull, "w") as fh:
        subprocess.run(cmd, stdout=fh, check=True, env=env if env is not None else ENV)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


TARGETS = {"dl": ("≤ 0.8 s", lambda cpu, ratio: cpu <= 0.8), "l": ("≥ 10×", lambda cpu, ratio: ratio >= 10),
           "agg": ("≤ 0.3 s", lambda cpu, ratio: cpu <= 0.3)}


def output_cost(prefs: Path, rep: int, env: dict | None) -> str:
    """The ``--output-cost`` table (module docstring)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from pref_eval.api.aggregation import aggregate
    from pref_eval.output.orderings import json_lines, jsonl_lines, tsv_lines

    ms, results = aggregate(str(prefs), None)
    text, binary = open(os.devnull, "w", encoding="utf-8"), open(os.devnull, "wb")  # noqa: SIM115

    def lines(fn, per_query):
        return (ln for agg in results for ln in fn(agg, ms, per_query=per_query, summary=True))

    ways = {"writelines (now)": lambda fn, q: (text.writelines(lines(fn, q)), text.flush()),
            "one join, one write": lambda fn, q: (text.write("".join(lines(fn, q))), text.flush()),
            "one join, bytes": lambda fn, q: (binary.write("".join(lines(fn, q)).encode()), binary.flush())}
    rows = []
    for name, fn in (("json", json_lines), ("tsv", tsv_lines), ("jsonl", jsonl_lines)):
        for q in (False, True):
            size = len("".join(lines(fn, q)).encode())
            cells = []
            for way in ways.values():
                best = float("inf")
                for _ in range(max(rep, 5)):
                    t = time.process_time()
                    way(fn, q)
                    best = min(best, time.process_time() - t)
                cells.append(f"{1000 * best:.2f}")
            rows.append(f"| `-o {name}`{' -q' if q else ''} | {size:,} | " + " | ".join(cells) + " |")
    whole = min(cpu_of([sys.executable, "-m", "pref_eval.cli.aggregate", "-P", str(prefs)], None, env)[0]
                for _ in range(rep))
    return ("| output | bytes | " + " | ".join(f"{w}, ms CPU" for w in ways) + " |\n|---|---:|---:|---:|---:|\n"
            + "\n".join(rows) + f"\n\nThe whole command (`pref_aggregate -P FILE`, json, no -q), best of {rep}: "
            f"{whole:.3f} s CPU.")


SCAN_CHILD = """import sys, time
sys.path.insert(0, sys.argv[1])
from pref_eval import _jsonl
assert _jsonl.__file__.startswith(sys.argv[1]), _jsonl.__file__
data = open(sys.argv[2], "rb").read()
_jsonl.scan(data)
times = []
for _ in range(5):
    t = time.process_time()
    _jsonl.scan(data)
    times.append(time.process_time() - t)
print(" ".join(map(repr, times)))
"""


def scan_cost(prefs: Path, rep: int, env: dict | None, other: str | None, label: str | None, tmp: Path) -> str:
    """The ``--scan`` table (module docstring)."""
    import filecmp
    import statistics

    here = str(Path(__file__).resolve().parents[1])
    trees = {"this checkout": here}
    if other:
        trees = {f"other: {label or other}": os.path.abspath(other), "this checkout": here}
    base = {k: v for k, v in (env if env is not None else os.environ).items() if k != "PYTHONPATH"}
    size = prefs.stat().st_size
    scans: dict = {k: [] for k in trees}
    cmd: dict = {k: [] for k in trees}
    outs = {k: tmp / f"agg-{i}.json" for i, k in enumerate(trees)}
    for k, tree in trees.items():  # untimed: bytecode, file cache
        subprocess.run([sys.executable, "-c", SCAN_CHILD, tree, str(prefs)], check=True, env=base,
                       capture_output=True)
        with open(outs[k], "w") as fh:
            subprocess.run([sys.executable, "-m", "pref_eval.cli.aggregate", "-P", str(prefs)], cwd=tree,
                           stdout=fh, check=True, env=base)
    for _ in range(rep):
        for k, tree in trees.items():
            r = subprocess.run([sys.executable, "-c", SCAN_CHILD, tree, str(prefs)], check=True, env=base,
                               capture_output=True, text=True)
            scans[k] += [float(x) for x in r.stdout.split()]
            p = subprocess.Popen([sys.executable, "-m", "pref_eval.cli.aggregate", "-P", str(prefs)], cwd=tree,
                                 stdout=subprocess.DEVNULL, env=base)
            _, status, ru = os.wait4(p.pid, 0)
            if status:
                raise RuntimeError(f"pref_aggregate failed in {tree}")
            cmd[k].append(ru.ru_utime + ru.ru_stime)
    same = len(trees) == 1 or filecmp.cmp(*outs.values(), shallow=False)
    rows = []
    for k in trees:
        ns = [t / size * 1e9 for t in scans[k]]
        rows.append(f"| {k} | {statistics.median(ns):.3f} ({min(ns):.3f}) | "
                    f"{statistics.median(scans[k]) * 1e3:.1f} ({min(scans[k]) * 1e3:.1f}) | "
                    f"{statistics.median(cmd[k]):.3f} ({min(cmd[k]):.3f}) |")
    return ("| checkout | scan ns/byte | scan ms CPU | `pref_aggregate -P FILE` CPU s |\n|---|---:|---:|---:|\n"
            + "\n".join(rows) + f"\n\nThe DL-shape output ({size:,} bytes; `zelo_eval -M all -q` of 63 runs × 53 "
            f"queries); medians of {5 * rep} scans and of {rep} commands per checkout (minima in brackets), "
            "checkouts taking turns; pref_aggregate's outputs "
            + ("byte-identical" if same else "**different**") + (" between the checkouts. " if other else ". "))


def main() -> None:
    global ENV
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="the L shape with 50 queries instead of 200")
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs of ours, round-robin over the cases")
    ap.add_argument("--only", default="dl,l,agg", help="comma-separated cases: dl, l, agg")
    ap.add_argument("--no-pyc", action="store_true", help="keep the caller's environment, no warm-up run")
    ap.add_argument("--output-cost", action="store_true", help="pref_aggregate's output step, in process (module "
                    "docstring)")
    ap.add_argument("--scan", action="store_true", help="the compiled scanner's ns/byte (module docstring)")
    ap.add_argument("--ab", metavar="CHECKOUT", help="with --scan: also another checkout, taking turns")
    ap.add_argument("--label", help="with --ab: what CHECKOUT is, for the record (e.g. 'main at 932fd85')")
    ap.add_argument("--write", action="store_true", help="write the table into README.md (Preferences) and "
                    "bench/RESULTS-pref.md between the markers")
    args = ap.parse_args()
    quick, rep, only = args.quick, max(1, args.repeat), set(args.only.split(","))
    ref = os.environ.get("PREF_EVAL_REF")
    py = sys.executable
    load0 = load()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        if not args.no_pyc:
            ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            ENV["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        dq, druns = generate(tmp / "dl", 63, 53, 100, (48, 85), 1)
        lq, lruns = generate(tmp / "l", 30, 50 if quick else 200, 1000, (20, 120), 2)
        zeval = [py, "-m", "pref_eval.cli.eval"]
        agg = [py, "-m", "pref_eval.cli.aggregate"]
        out_dl = tmp / "dl.jsonl"
        dl_cmd = zeval + ["-R", str(dq), "-M", "all", "-q"] + [str(p) for p in druns]
        pure = dict(ENV if ENV is not None else os.environ, PREF_EVAL_PURE_PYTHON="1")
        # (key, label, command, stdout file, environment, reference program, the reference seconds)
        cases = [
            ("dl", "DL shape: 63 runs × 53 queries × 100 docs, all 15 measures, `-q`", dl_cmd, out_dl, ENV,
             "pref_eval.py", 32.9),
            ("l", f"30 runs × {50 if quick else 200} queries × 1,000 docs, `-M preferences`",
             zeval + ["-R", str(lq), "-M", "preferences"] + [str(p) for p in lruns], None, ENV, "pref_eval.py", 33.0),
            ("agg", "`pref_aggregate` on the DL-shape output (stationary MC4)", agg + ["-P", str(out_dl)], None, ENV,
             "pref_aggregate.py", 2.2),
            ("agg", "`pref_aggregate --mc4-steps 10` on the DL-shape output", agg + ["--mc4-steps", "10", "-P",
             str(out_dl)], None, ENV, "", 2.2),
            ("agg", "`pref_aggregate`, pure Python (no C scanner: `PREF_EVAL_PURE_PYTHON=1`)",
             agg + ["-P", str(out_dl)], None, pure, "", 2.2),
        ]
        cases = [c for c in cases if c[0] in only]
        if args.scan:
            cpu_of(dl_cmd, out_dl)
            text = scan_cost(out_dl, rep, ENV, args.ab, args.label, tmp) + stamp(
                load0, load(), f"python bench/bench_pref.py --scan{' --ab CHECKOUT' if args.ab else ''} --repeat {rep}")
            print(text)
            write_result("pref", "Preference evaluation: measured figures", text, "pref-scan")
            return
        if args.output_cost:
            cpu_of(dl_cmd, out_dl)
            print(output_cost(out_dl, rep, ENV))
            print(stamp(load0, load(), f"python bench/bench_pref.py --output-cost --repeat {rep}"))
            return
        if "agg" in only and "dl" not in only:
            cpu_of(dl_cmd, out_dl)
        for _key, _label, cmd, out, env, _r, _s in cases:  # untimed: bytecode cache, file cache
            if ENV is not None:
                cpu_of(cmd, out, env)
        best = [[float("inf"), float("inf")] for _ in cases]
        refs: dict[int, float] = {}
        for k in range(rep):  # round-robin; the reference (minutes) once, in the first round
            for i, (_key, _label, cmd, out, env, refprog, _s) in enumerate(cases):
                cpu, wall = cpu_of(cmd, out, env)
                best[i][0], best[i][1] = min(best[i][0], cpu), min(best[i][1], wall)
                if ref and refprog and k == 0:
                    ref_args = cmd[cmd.index("-P"):] if refprog == "pref_aggregate.py" else cmd[3:]
                    refs[i] = cpu_of([py, str(Path(ref) / refprog), *ref_args])[0]
    load1 = load()
    md, seen, last_ref = [], set(), {}
    for i, ((key, label, _c, _o, _e, _r, refsec), (cpu, wall)) in enumerate(zip(cases, best, strict=True)):
        refcpu = refs.get(i, last_ref.get(key))  # the variants of pref_aggregate: the reference measured above
        last_ref[key] = refcpu
        r = refcpu if refcpu is not None else refsec
        src = "" if refcpu is not None else " (the issue's figure)"
        tgt, ok = TARGETS[key] if key not in seen else ("", None)
        seen.add(key)
        met = "" if ok is None else ("yes" if ok(cpu, r / cpu) else f"**no** ({cpu:.3f} s)")
        md.append(f"| {label} | {cpu:.2f} s ({wall:.2f} s) | {r:.1f} s{src} | {r / cpu:.0f}× | {tgt} | {met} |")
    pyc = "as the environment says (--no-pyc)" if ENV is None else "cached (PYTHONPYCACHEPREFIX, one warm-up run)"
    scanner = "built" if scanner_built() else "NOT built: pref_aggregate runs in pure Python"
    again = ("PREF_EVAL_REF=CHECKOUT " if ref else "") + "python bench/bench_pref.py" \
        + (" --quick" if quick else "") + f" --repeat {rep}" + (f" --only {args.only}" if only != {"dl", "l", "agg"}
                                                                 else "") + (" --no-pyc" if args.no_pyc else "") \
        + " --write"
    text = ("| case | pref_eval CPU s (wall s) | diazf/pref_eval CPU s | ratio | issue target | met? |\n"
            "|---|---:|---:|---:|---|---|\n" + "\n".join(md)
            + f"\n\nCPU seconds (user + system) of the child process; ours: best of {rep} round-robin runs (best wall "
            "in brackets), bytecode " + pyc + f", C scanner (pref_eval._jsonl) {scanner}; the reference "
            + ("(CHECKOUT: diazf/pref_eval at commit 60e3203, https://github.com/diazf/pref_eval) run once on the "
               "same files in the same session" if ref else
               "not run (no `PREF_EVAL_REF`): the issue's figures, from another machine")
            + "; targets on CPU time. " + stamp(load0, load1, again))
    print(text)
    if args.write:
        print("wrote", write_result("pref", "Preference evaluation: measured figures", text, "pref"), file=sys.stderr)


if __name__ == "__main__":
    main()
