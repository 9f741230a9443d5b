"""Build the sample collection shipped in qrels/ and runs/ (run once; output committed).

    python tools/make_sample.py   # needs the two files of Narabzad/llm-relevance-judgement-comparison below

Qrels (graded 0-3): 8 topics of TREC DL 2019 (passage). Relevance as in the TREC DL 2019 qrels
distributed in binary form by Narabzad/llm-relevance-judgement-comparison (`Pref/qrels.2019`,
commit 28823f1): 0 stays 0. The grade of a relevant passage (1-3) comes from the GPT-4o preference
judgments of the same repository (`Pref/prefs.dl19`: per passage, the number of pairwise wins in
Clarke's tournament): within each topic, the third of the relevant passages with the fewest wins
gets 1, the middle third 2, the top third 3 (tied win counts share a grade). These are **derived**
grades, not NIST's graded labels.
Runs: three synthetic systems (seeded) ranking 100 passages per topic, drawn from the
judged pool plus unjudged MS MARCO-like ids, with relevant passages scored higher by a
system-specific margin and noise; a few tied scores on purpose. (The runs depend on relevance
only, so the grades do not change them.)
"""
import random
import sys
from collections import defaultdict
from pathlib import Path

root = Path(__file__).resolve().parents[1]
src = root.parent / "shared/data/llm_relevance_judgement_comparison/Pref/qrels.2019"
wins_src = root.parent / "shared/data/llm_relevance_judgement_comparison/Pref/prefs.dl19"
rng = random.Random(20261121)
q = defaultdict(list)
for line in src.read_text().splitlines():
    qid, _, doc, rel = line.split()
    q[qid].append((doc, int(rel)))
topics = sorted(q)[:8]
wins = {}
for line in wins_src.read_text().splitlines():
    qid, _, doc, w = line.split()
    wins[(qid, doc)] = int(w)


def grade(t: str, doc: str, rel: int) -> int:
    """0 if not relevant; else 1-3 by the tercile of the passage's preference wins in its topic."""
    if not rel:
        return 0
    ws = [wins.get((t, d), 0) for d, r in q[t] if r]
    below = sum(w < wins.get((t, doc), 0) for w in ws)
    return 1 + min(2, 3 * below // len(ws))


with open(root / "qrels/dl19-sample.qrels", "w") as out:
    for t in topics:
        for doc, rel in q[t]:
            out.write(f"{t} 0 {doc} {grade(t, doc, rel)}\n")
systems = {"bm25": (0.8, 1.0), "dense": (1.4, 1.0), "rerank": (2.0, 0.9)}
for name, (margin, noise) in systems.items():
    with open(root / f"runs/{name}.run", "w") as out:
        for t in topics:
            pool = q[t][:]
            rng.shuffle(pool)
            docs = pool[:80] + [(str(rng.randrange(10**6, 9 * 10**6)), None) for _ in range(20)]
            scored = []
            for doc, rel in docs:
                s = rng.gauss(0, noise) + (margin if rel else 0.0)
                scored.append((round(s, 2) if name == "bm25" else round(s, 4), doc))
            scored.sort(key=lambda x: (-x[0], x[1]))
            for rank, (s, doc) in enumerate(scored, 1):
                out.write(f"{t} Q0 {doc} {rank} {s} {name}\n")
print("wrote", len(topics), "topics", file=sys.stderr)
