"""Generated collections for the measure-family oracle tests (ERR, diversity, C/W/L, Compat).

Numeric query ids (gdeval and ndeval need them), heavy score ties that
break by docno, graded and negative judgments, queries without relevant
documents, qrels queries the run lacks, run queries the qrels lack, and
(``subtopics > 1``) several subtopics per query in the second qrels column.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np


def make(seed: int, *, nq: int = 24, max_grade: int = 4, subtopics: int = 1,
         neg: bool = True) -> tuple[dict, dict]:
    """``(qrels, run)``: qrels ``{qid: {(subtopic, docno): grade}}``, run ``{qid: {docno: score}}``."""
    rng = np.random.default_rng(seed)
    pool = [f"d{i}" for i in range(60)] + [f"D{i}" for i in range(8)]
    qrels: dict = {}
    qids = [str(100 + i) for i in range(nq)]
    grades = list(range(max_grade + 1)) + [0, 0] + ([-1] if neg else [])
    for k, q in enumerate(qids):
        n = int(rng.integers(3, 30))
        docs = rng.choice(pool, size=n, replace=False)
        qr = {}
        nst = int(rng.integers(1, subtopics + 1))
        for st in range(1, nst + 1):
            sel = docs[rng.random(n) < (0.7 if subtopics > 1 else 1.0)]
            for d in sel:
                g = 0 if k % 6 == 5 else int(rng.choice(grades))
                qr[(str(st) if subtopics > 1 else "0", str(d))] = g
        if not qr:
            qr[("1" if subtopics > 1 else "0", str(docs[0]))] = 0
        qrels[q] = qr
    run: dict = {}
    run_q = [q for i, q in enumerate(qids) if i % 8 != 7] + ["999"]
    for k, q in enumerate(run_q):
        n = int(rng.integers(1, 40))
        docs = rng.choice(pool + [f"u{i}" for i in range(20)], size=n, replace=False)
        # even queries: heavy ties (broken by docno); odd: mostly distinct scores
        scores = rng.integers(0, 4, size=n) / 2.0 if k % 2 == 0 else np.round(rng.normal(size=n), 4)
        run[q] = {str(d): float(s) for d, s in zip(docs, scores, strict=True)}
    return qrels, run


def write_qrels(path: Path, qrels: dict) -> Path:
    path.write_text("".join(f"{q} {st} {d} {g}\n" for q, docs in qrels.items() for (st, d), g in docs.items()))
    return path


def write_run(path: Path, run: dict, tag: str = "tag") -> Path:
    lines = []
    for q, docs in run.items():
        for i, (d, s) in enumerate(docs.items()):
            lines.append(f"{q} Q0 {d} {i + 1} {s!r} {tag}\n")
    path.write_text("".join(lines))
    return path


def ours(qrels_path: Path, run_path: Path, measure: str) -> dict[str, float]:
    """pref_eval's per-query values ``{qid: value}``."""
    from conftest import file_topics, warns_missing_topics

    import pref_eval

    with warns_missing_topics(file_topics(qrels_path), {Path(run_path).name: file_topics(run_path)}):
        df = pref_eval.evaluate(str(qrels_path), [str(run_path)], [measure])
    return {str(q): float(v) for q, v in zip(df["qid"], df["value"], strict=True) if q != "all"}
