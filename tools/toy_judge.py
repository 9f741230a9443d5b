#!/usr/bin/env python3
"""A stand-in judge for `zelo_judge --judge cmd:...`: answers from known document grades.

Usage: toy_judge.py TRUTH [--noise S] [--seed N]

TRUTH holds `qid [iter] docno value` lines (a qrels file works). For each JSON-lines
request on stdin ({"id", "qid", "docno_a", "docno_b", ...}) it prints {"id", "score"}:
with probability sigmoid(value_b - value_a) B is preferred (score 0.8), else A (-0.8);
--noise 0 makes it deterministic (the higher value wins; equal values give 0).
The draw is seeded by (seed, qid, docno_a, docno_b, repeat), so the same question gets the same answer
and a repeated judgment of a pair (the request's "repeat" > 0, asked by `zelo_judge --state` for a
strategy that judges a pair again) is a new draw.
"""
import hashlib
import json
import math
import sys


def main(argv):
    truth, noise, seed = argv[0], 1.0, 0
    args = argv[1:]
    while args:
        opt, val, args = args[0], args[1], args[2:]
        if opt == "--noise":
            noise = float(val)
        elif opt == "--seed":
            seed = int(val)
    values = {}
    with open(truth, encoding="utf-8") as fh:
        for line in fh:
            f = line.split()
            if len(f) >= 3:
                values[(f[0], f[-2])] = float(f[-1])
    for line in sys.stdin:
        req = json.loads(line)
        a = values.get((req["qid"], req["docno_a"]), 0.0)
        b = values.get((req["qid"], req["docno_b"]), 0.0)
        if noise == 0:
            score = 0.0 if a == b else (0.8 if b > a else -0.8)
        else:
            rep = req.get("repeat", 0)
            key = f"{seed} {req['qid']} {req['docno_a']} {req['docno_b']}" + (f" {rep}" if rep else "")
            h = hashlib.sha256(key.encode()).digest()
            u = int.from_bytes(h[:8], "big") / 2.0 ** 64
            p = 1.0 / (1.0 + math.exp(-(b - a) / noise))
            score = 0.8 if u < p else -0.8
        sys.stdout.write(json.dumps({"id": req["id"], "score": score}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
