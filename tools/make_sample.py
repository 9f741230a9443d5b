"""Build the sample collection shipped in qrels/ and runs/ (run once; output committed).

Qrels: 8 topics of the TREC DL 2019 passage qrels as distributed (binary) in
Narabzad/llm-relevance-judgement-comparison (`../shared/data/llm_relevance_judgement_comparison/Pref/qrels.2019`).
Runs: three synthetic systems (seeded) ranking 100 passages per topic, drawn from the
judged pool plus unjudged MS MARCO-like ids, with relevant passages scored higher by a
system-specific margin and noise; a few tied scores on purpose.
"""
import random
import sys
from collections import defaultdict
from pathlib import Path

root = Path(__file__).resolve().parents[1]
src = root.parent / "shared/data/llm_relevance_judgement_comparison/Pref/qrels.2019"
rng = random.Random(20261121)
q = defaultdict(list)
for line in src.read_text().splitlines():
    qid, _, doc, rel = line.split()
    q[qid].append((doc, int(rel)))
topics = sorted(q)[:8]
with open(root / "qrels/dl19-sample.qrels", "w") as out:
    for t in topics:
        for doc, rel in q[t]:
            out.write(f"{t} 0 {doc} {rel}\n")
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
