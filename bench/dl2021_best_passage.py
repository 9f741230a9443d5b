"""How often is the top zELO passage per topic in the TREC DL 2021 best-passage sets?

Run:  python bench/dl2021_best_passage.py   (needs ../shared/data/duelingBandits)
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from pref_eval.zelo.fit import fit_bt  # noqa: E402
from pref_eval.io.judgments import read_judgments  # noqa: E402

D = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "duelingBandits"
SETS = ["Set-I", "Set-II", "Set-III", "Combined-I+II", "Combined-I+II+III"]


def load_set(name):
    out = {}
    for line in (D / f"{name}.qrels").read_text().split("\n"):
        f = line.split()
        if f:
            out.setdefault(f[0], set()).add(f[2])
    return out


def main():
    j = read_judgments(str(D / "judgments.txt"))
    q, a, b, s, w = j.arrays()
    sizes = np.array([len(j.docs[t]) for t in j.queries])
    sets = {n: load_set(n) for n in SETS}
    # max-wins baseline
    wins = np.zeros(sizes.sum())
    off = np.r_[0, np.cumsum(sizes)]
    np.add.at(wins, off[q] + b, s)
    np.add.at(wins, off[q] + a, 1 - s)
    methods = {"max wins": (wins, None)}
    for prior in (0.5, 0.0):
        r = fit_bt(sizes, q, a, b, s, prior=prior)
        key = r.score.copy()
        if prior == 0.0:
            # order between SCCs first (level 0 = beaten by no other SCC), then the within-SCC MLE
            key = -r.level * 1e6 + r.score
        methods[f"BT prior={prior:g}"] = (key, r)
    print(f"# TREC DL 2021 crowd judgments: {len(j)} judgments, {len(j.queries)} topics")
    print("| top passage by | " + " | ".join(SETS) + " |")
    print("|---|" + "---|" * len(SETS))
    for name, (key, r) in methods.items():
        hits = {n: 0 for n in SETS}
        for k, t in enumerate(j.queries):
            seg = key[off[k]:off[k + 1]]
            best = np.flatnonzero(seg == seg.max())
            top = j.docs[t][int(best[0])]
            for n in SETS:
                hits[n] += top in sets[n].get(t, set())
        print(f"| {name} | " + " | ".join(f"{hits[n]}/50" for n in SETS) + " |")
    r = methods["BT prior=0"][1]
    print(f"\nTopics not strongly connected: {int(np.sum(r.n_components > 1))}/50; "
          f"documents with a perfect record: {int(r.n_perfect.sum())} in {int(np.sum(r.n_perfect > 0))} topics; "
          f"median SE of the top passage (prior 0.5): "
          f"{np.median([methods['BT prior=0.5'][1].se[off[k] + int(np.argmax(methods['BT prior=0.5'][0][off[k]:off[k+1]]))] for k in range(50)]):.2f}")


if __name__ == "__main__":
    main()
