"""Benchmark zelo_eval's preference mode and pref_aggregate (issue 3 shapes).

    python bench/bench_pref.py [--quick] [--repeat N] [--only dl,l,agg] [--no-pyc]
    PREF_EVAL_REF=/tmp/pref_eval python bench/bench_pref.py   # also time the reference, print ratios

Shapes: DL (63 runs × 53 queries × 100 docs, 48–85 relevant per query, graded 1–3),
all 15 measures with -q; L (30 runs × 200 queries × 1,000 docs) with -M preferences;
pref_aggregate on the DL output. CPU seconds of the child process (user+sys);
ours is the minimum over ``--repeat`` runs (default 3; the development machine
is shared, so single runs vary by ±30 %), the reference is run once.

Bytecode: the children run with ``PYTHONPYCACHEPREFIX`` set to a temporary
folder (``PYTHONDONTWRITEBYTECODE`` removed) and one untimed warm-up run per
command, so our modules load from cached bytecode as in an installed package
(the development shell sets ``PYTHONDONTWRITEBYTECODE=1``, which recompiles
every pref_eval module on each start: +0.02–0.03 s CPU). ``--no-pyc`` keeps
the caller's environment and skips the warm-up. ``--only`` picks cases
(``dl``, ``l``, ``agg``; ``agg`` needs the DL output and runs DL once untimed
if ``dl`` is not picked).
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def generate(d: Path, nruns: int, nq: int, ndocs: int, rel: tuple[int, int], seed: int) -> tuple[Path, list[Path]]:
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


def cpu_of(cmd: list[str], out: Path | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    with open(out or os.devnull, "w") as fh:
        subprocess.run(cmd, stdout=fh, check=True, env=ENV)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def best_of(n: int, cmd: list[str], out: Path | None = None) -> tuple[float, float]:
    """(min CPU, min wall) over n runs (after one untimed warm-up unless --no-pyc)."""
    if ENV is not None:
        cpu_of(cmd, out)
    runs = [cpu_of(cmd, out) for _ in range(max(1, n))]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main() -> None:
    global ENV
    quick = "--quick" in sys.argv
    rep = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 3
    only = set(sys.argv[sys.argv.index("--only") + 1].split(",")) if "--only" in sys.argv else {"dl", "l", "agg"}
    ref = os.environ.get("PREF_EVAL_REF")
    py = sys.executable
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if "--no-pyc" not in sys.argv:
            ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            ENV["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        dq, druns = generate(tmp / "dl", 63, 53, 100, (48, 85), 1)
        lq, lruns = generate(tmp / "l", 30, 50 if quick else 200, 1000, (20, 120), 2)
        zeval = [py, "-m", "pref_eval.cli.eval"]
        out_dl = tmp / "dl.jsonl"
        dl_cmd = zeval + ["-R", str(dq), "-M", "all", "-q"] + [str(p) for p in druns]
        cases = [
            ("dl", "DL: 63 runs × 53 q × 100 docs, all 15 measures, -q", dl_cmd, out_dl, "pref_eval.py", 32.9),
            ("l", f"L: 30 runs × {50 if quick else 200} q × 1000 docs, -M preferences",
             zeval + ["-R", str(lq), "-M", "preferences"]
             + [str(p) for p in lruns], None, "pref_eval.py", 33.0),
        ]
        if "agg" in only and "dl" not in only:
            cpu_of(dl_cmd, out_dl)
        for key, label, cmd, out, refprog, refsec in cases:
            if key not in only:
                continue
            cpu, wall = best_of(rep, cmd, out)
            refcpu = None
            if ref:
                refcmd = [py, str(Path(ref) / refprog)] + cmd[3:]
                refcpu, _ = cpu_of(refcmd)
            rows.append((label, cpu, wall, refcpu, refsec))
        if "agg" in only:
            cpu, wall = best_of(rep, [py, "-m", "pref_eval.cli.aggregate", "-P", str(out_dl)])
            cpu10, wall10 = best_of(rep, [py, "-m", "pref_eval.cli.aggregate", "--mc4-steps", "10", "-P", str(out_dl)])
            refcpu = cpu_of([py, str(Path(ref) / "pref_aggregate.py"), "-P", str(out_dl)])[0] if ref else None
            rows.append(("pref_aggregate on the DL output (stationary MC4)", cpu, wall, refcpu, 2.2))
            rows.append(("pref_aggregate on the DL output (--mc4-steps 10)", cpu10, wall10, refcpu, 2.2))
            # the same without the C scanner (what an install without a C compiler gets)
            saved = ENV
            ENV = dict(ENV if ENV is not None else os.environ, PREF_EVAL_PURE_PYTHON="1")
            cpup, wallp = best_of(rep, [py, "-m", "pref_eval.cli.aggregate", "-P", str(out_dl)])
            ENV = saved
            rows.append(("pref_aggregate on the DL output, pure Python (no C scanner)", cpup, wallp, refcpu, 2.2))
    pyc = "as the environment says (--no-pyc)" if ENV is None else "cached (PYTHONPYCACHEPREFIX, one warm-up run)"
    print(f"bytecode: {pyc}")
    scanner = "built" if scanner_built() else "NOT built: pref_aggregate runs in pure Python"
    print(f"C scanner (pref_eval._jsonl): {scanner}")
    print("| case | ours CPU s | ours wall s | reference CPU s | ratio |")
    print("|---|---:|---:|---:|---:|")
    for label, cpu, wall, refcpu, refsec in rows:
        r = refcpu if refcpu is not None else refsec
        src = "measured" if refcpu is not None else "issue figure"
        print(f"| {label} | {cpu:.2f} | {wall:.2f} | {r:.1f} ({src}) | {r / cpu:.0f}× |")


if __name__ == "__main__":
    main()
