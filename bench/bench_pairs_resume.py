"""zelo_pairs adaptive states: the CPU time of one call early and late in a session (Session 11, t20).

Run:  python bench/bench_pairs_resume.py [--rounds 1,50] [--repeat 3] [--ref CHECKOUT]

Two states, built in memory (the strategy objects, as ``zelo_judge --state`` drives them) and written once:

* best item (``init --strategy adaptive``, defaults): 8 topics x 100 documents of synthetic graded qrels,
  answered as the docs/zelo_pairs.md example does (the smaller docno preferred), stopped after ``--rounds``
  batches (``next`` + ``add``);
* whole ranking (``--goal ranking``): the top 100 of the 8 topics of runs/bm25.run, 4 cycles, driven to the
  end (bench/bench_pairs_ranking.py's state).

Then, on a fresh copy of the state each time, it times a call as a whole process (``python -m
pref_eval.cli.pairs ...``: user+system CPU of the child, start-up included) and the same call in process
(``pref_eval.api``: CPU seconds of loading the state and doing the call, start-up excluded): ``next``, ``add``
of that batch's answers and ``status`` of the best-item state at each round, and ``result`` of the finished
whole-ranking state (and ``result --verify``, which replays). Best of ``--repeat``. ``--ref CHECKOUT``: the
same with another checkout (e.g. ``git archive`` of an older commit with its compiled modules); a format-1
checkout gets states it wrote itself. Writes bench/RESULTS-pairs-resume.md.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _timing import ROOT, load, write_result  # noqa: E402

# run inside a child with the checkout on PYTHONPATH: build a state, then time the calls in process
CHILD = r'''
import json, os, shutil, sys, time
from pref_eval import api
from pref_eval.zelo.pair_state import add_batch, judgment_batch, next_batch

goal, rounds, tmp, repeat = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])

import random
judge = random.Random(0)

def answers(req):
    """A noisy judge: the smaller docno preferred 70 % of the time (the same stream in every checkout)."""
    return judgment_batch([(t, a, b, float((a < b) != (judge.random() < 0.7))) for t, a, b in req])

def cpu(f):
    best = float("inf")
    for _ in range(repeat):
        c0 = time.process_time()
        f()
        best = min(best, time.process_time() - c0)
    return best

state = os.path.join(tmp, "s.json")
if goal == "best":
    from pref_eval.zelo.adaptive_session import AdaptiveSession
    s = AdaptiveSession(0, {})
    for t in range(8):
        s.add_topic(f"q{t}", {f"d{i:03d}": 1 + (i * 7 + t) % 3 for i in range(100)})
else:
    from pref_eval.io.candidates import read_run_candidates
    from pref_eval.zelo.ranking_session import RankingSession
    s = RankingSession(0, {"cycles": 4})
    for q, pool in read_run_candidates(os.path.join(sys.argv[5], "runs", "bm25.run"), 100):
        s.set_pool(q, list(pool))
n = 0
while n < rounds - 1 or goal != "best":
    req = next_batch(s)
    if not req:
        break
    add_batch(s, answers(req), "bench")
    n += 1
with open(state, "w") as fh:
    fh.write(s.to_json())
out = {"rounds": n + 1, "judgments": s.comparisons, "bytes": os.path.getsize(state)}
work = os.path.join(tmp, "w.json")
def fresh():
    shutil.copy(state, work)
if goal == "best":
    req = next_batch(s)
    with open(os.path.join(tmp, "j.jsonl"), "wb") as fh:
        fh.write(answers(req))
    def nxt():
        fresh(); api.pairs_next(work, output=os.devnull)
    def add():
        fresh(); api.pairs_next(work, output=os.devnull); c0 = time.process_time()
        api.pairs_add(work, [os.path.join(tmp, "j.jsonl")], fmt="jsonl"); return time.process_time() - c0
    out["next"] = cpu(nxt)
    out["add"] = min(add() for _ in range(repeat))
    fresh()
    out["status"] = cpu(lambda: api.pairs_status(work, output=os.devnull))
else:
    fresh()
    out["result"] = cpu(lambda: api.pairs_result(work, output=os.devnull))
    try:
        out["result --verify"] = cpu(lambda: api.pairs_result(work, output=os.devnull, verify=True))
    except TypeError:
        pass
print(json.dumps(out))
'''


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def measure(checkout: str, goal: str, rounds: int, repeat: int) -> dict:
    """Build the state with ``checkout`` and time its calls (in process, then as whole processes)."""
    tmp = tempfile.mkdtemp(prefix="bench-pairs-resume-")
    env = {**os.environ, "PYTHONPATH": checkout, "PYTHONDONTWRITEBYTECODE": "1"}
    got = subprocess.run([sys.executable, "-c", CHILD, goal, str(rounds), tmp, str(repeat), ROOT], env=env,
                         capture_output=True, text=True, check=True, cwd=tmp)
    out = json.loads(got.stdout.strip().splitlines()[-1])
    state, work = os.path.join(tmp, "s.json"), os.path.join(tmp, "w.json")
    calls = {"best": [("next", ["next", "--state", work, "-o", os.devnull]),
                      ("add", ["add", "--state", work, "-J", os.path.join(tmp, "j.jsonl"), "--format", "jsonl", "-Q"]),
                      ("status", ["status", "--state", work])],
             "ranking": [("result", ["result", "--state", work])]}[goal]
    for label, argv in calls:
        best = float("inf")
        for _ in range(repeat):
            shutil.copy(state, work)
            if label == "add":  # the batch answered is the one next asks for
                subprocess.run([sys.executable, "-m", "pref_eval.cli.pairs", "next", "--state", work, "-o",
                                os.devnull], env=env, check=True, cwd=tmp)
            c0 = _children_cpu()
            subprocess.run([sys.executable, "-m", "pref_eval.cli.pairs", *argv], env=env, check=True,
                           stdout=subprocess.DEVNULL, cwd=tmp)
            best = min(best, _children_cpu() - c0)
        out[f"{label} (process)"] = best
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", default="1,50")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--ref", help="another checkout, timed the same way")
    args = ap.parse_args()
    load0 = load()
    checkouts = [("this checkout", ROOT)] + ([(f"--ref {args.ref}", os.path.abspath(args.ref))] if args.ref else [])
    lines = [f"CPU seconds, best of {args.repeat}: *in process* = loading the state and the call (`pref_eval.api`, "
             "start-up excluded); *process* = the whole `python -m pref_eval.cli.pairs` command, start-up included.",
             "", "Best item: 8 topics x 100 documents (synthetic graded qrels), the state after R - 1 batches answered "
             "by a noisy judge (the smaller docno preferred 70 % of the time); `add` adds the answers to the batch "
             "`next` asks for (batch R).", "",
             "| checkout | R | judgments | state KB | next | add | status | next (process) | add (process) | "
             "status (process) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for label, path in checkouts:
        for r in (int(x) for x in args.rounds.split(",")):
            m = measure(path, "best", r, args.repeat)
            print(label, r, m, file=sys.stderr)
            lines.append(f"| {label} | {m['rounds']} | {m['judgments']} | {m['bytes'] / 1000:.0f} | {m['next']:.3f} | "
                         f"{m['add']:.3f} | {m['status']:.3f} | {m['next (process)']:.3f} | "
                         f"{m['add (process)']:.3f} | {m['status (process)']:.3f} |")
    lines += ["", "Whole ranking: the top 100 of the 8 topics of runs/bm25.run, 4 cycles, finished.", "",
              "| checkout | rounds | judgments | state KB | result | result --verify | result (process) |",
              "|---|---|---|---|---|---|---|"]
    for label, path in checkouts:
        m = measure(path, "ranking", 0, args.repeat)
        print(label, m, file=sys.stderr)
        ver = f"{m['result --verify']:.3f}" if "result --verify" in m else "(no such option: result always replays)"
        lines.append(f"| {label} | {m['rounds'] - 1} | {m['judgments']} | {m['bytes'] / 1000:.0f} | "
                     f"{m['result']:.3f} | {ver} | {m['result (process)']:.3f} |")
    cmdline = f"python bench/bench_pairs_resume.py --rounds {args.rounds} --repeat {args.repeat}" + (
        " --ref CHECKOUT" if args.ref else "")
    lines += ["", f"{load0} at the start, {load()} at the end (`{cmdline}`)."]
    print(write_result("pairs-resume", "zelo_pairs adaptive states: CPU per call (bench/bench_pairs_resume.py)",
                       "\n".join(lines)))


if __name__ == "__main__":
    main()
