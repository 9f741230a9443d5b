"""zelo_pairs whole-ranking states as users run them: the next/add loop and `result`.

Run:  python bench/bench_pairs_ranking.py [--repeat N] [--depth 100] [--ref CHECKOUT]

Builds a state of `zelo_pairs init --strategy adaptive --goal ranking` over the top ``--depth`` documents
of the 8 topics of runs/bm25.run (default 100: 8 topics x 100 documents, 4 cycles: 15 rounds, 3,200
judgments), answering every batch as the docs/zelo_pairs.md example does (the smaller docno preferred),
with `zelo_pairs next` / `zelo_pairs add` until done -- each `add` that completes a round chooses the next
(a fit and the discordance criterion for the 8 topics together). Then times `zelo_pairs result`, which
chooses every round again to check the stored ones. Whole processes: the loop's CPU time (user+sys of all
its commands), and for `result` the best wall time of N runs (after one untimed run, with cached
bytecode: ``_timing.bytecode_env``), the CPU time of that best run and the peak resident memory.
``--ref CHECKOUT``: also time another checkout's `result` on the same state (e.g. a `git worktree` of an
older commit), and check that both print the same bytes -- a state is accepted only when the rounds it
chooses are the stored ones, so this also checks the choices are identical. Writes
bench/RESULTS-pairs-ranking.md.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import ROOT, bytecode_env, cmd, load, run, write_result  # noqa: E402


def _children_cpu() -> float:
    """User + system CPU seconds of the waited-for child processes so far."""
    import resource

    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def build_state(state: str, depth: int, tmp: str, env: dict) -> tuple[int, float]:
    """The next/add loop until the state is done: (rounds, CPU seconds of all its commands)."""
    c0 = _children_cpu()
    run(cmd("zelo_pairs", "init", "--state", state, "--strategy", "adaptive", "--goal", "ranking", "--run",
            os.path.join(ROOT, "runs", "bm25.run"), "--depth", str(depth), "--seed", "0", "--force"), env=env)
    batch, judged, rounds = os.path.join(tmp, "batch.txt"), os.path.join(tmp, "judged.txt"), 0
    while True:
        run(cmd("zelo_pairs", "next", "--state", state, "-o", batch), env=env)
        with open(batch) as fh:
            rows = [line.split() for line in fh if not line.startswith("#") and line.strip()]
        if not rows:
            return rounds, _children_cpu() - c0
        with open(judged, "w") as fh:
            fh.writelines(f"{t} {a} {b} {min(a, b)}\n" for t, a, b in rows)
        run(cmd("zelo_pairs", "add", "--state", state, "-J", judged, "--format", "clarke4", "-Q"), env=env)
        rounds += 1


def time_result(argv: list[str], repeat: int, env: dict) -> tuple[float, float, float]:
    """(best wall s, its CPU s, peak MB) of ``argv``."""
    run(argv, env=env)  # untimed: writes the bytecode cache, warms the file cache
    best_t, best_cpu, mem = float("inf"), 0.0, 0.0
    for _ in range(repeat):
        c0 = _children_cpu()
        t, m = run(argv, env=env)
        mem = max(mem, m)
        if t < best_t:
            best_t, best_cpu = t, _children_cpu() - c0
    return best_t, best_cpu, mem


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--ref", help="another checkout whose `zelo_pairs result` is timed on the same state")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="bench-pairs-ranking-")
    env = bytecode_env(os.path.join(tmp, "pycache"))
    load0 = load()
    state = os.path.join(tmp, "r.json")
    rounds, loop_cpu = build_state(state, args.depth, tmp, env)
    rows = []
    outputs = {}
    def label(root: str) -> str:
        rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        return f"commit {rev.stdout.strip()}" if rev.returncode == 0 else root

    for name, root in [(label(ROOT), ROOT)] + ([(label(args.ref), args.ref)] if args.ref else []):
        out = os.path.join(tmp, f"result{len(outputs)}.txt")
        argv = [sys.executable, os.path.join(root, "bin", "zelo_pairs"), "result", "--state", state, "-o", out]
        t, cpu, mem = time_result(argv, args.repeat, env)
        with open(out, "rb") as fh:
            outputs[name] = fh.read()
        rows.append(f"| {name} | {t:.2f} | {cpu:.2f} | {mem:.0f} |")
    same = len(set(outputs.values())) == 1
    text = (f"State: 8 topics x {args.depth} documents of runs/bm25.run, 4 cycles, {rounds} rounds of `next`/`add` "
            f"({loop_cpu:.1f} s CPU for the whole loop, {label(ROOT)}).\n\n"
            "| `zelo_pairs result` of | best wall s | its CPU s | peak MB |\n|---|---|---|---|\n"
            + "\n".join(rows)
            + (f"\n\nOutputs identical: {'yes' if same else 'NO'}." if args.ref else "")
            + f"\n\nBest of {args.repeat}; {load0} at the start, {load()} at the end "
            f"(`python bench/bench_pairs_ranking.py --repeat {args.repeat} --depth {args.depth}"
            + (" --ref CHECKOUT" if args.ref else "") + "`).")
    print(text)
    write_result("pairs-ranking", "zelo_pairs whole-ranking state (bench/bench_pairs_ranking.py)", text)
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
