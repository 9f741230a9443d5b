"""Yan et al. (SIGIR 2022) Figure 3: every simulated algorithm on Case A and Case B.

One row per (algorithm, case): best found (Case A) or one / both found
(Case B: exactly one of the two winners returned / both returned), the
comparisons spent (min–max over the repetitions), the largest number of
judgments of one pair ("assessors", min–max), how many repetitions returned
exactly one item, and how many returned items were not winners (the counts
Section 4's text gives). Algorithms: :mod:`pref_eval.zelo.bandits` (DTS,
MergeDTS, Round-Efficient) with the paper's parameters, and Clarke et al.'s
tournament (:func:`pref_eval.zelo.simulate.simulate_tournament`, k=1, p=7,
f=9), with and without the extra final phase; and our adaptive strategy
(:class:`pref_eval.zelo.adaptive.AdaptiveBest`, defaults).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .bandits import case_matrix, simulate_bandit
from .simulate import simulate_tournament

ROWS = ("dts", "mergedts", "round-efficient", "tournament", "tournament-final", "adaptive", "adaptive-nocap")
LABELS = {
    "dts": "Double Thompson Sampling (alpha=0.8^7)",
    "mergedts": "MergeDTS (alpha=0.8^6, M=16, C=4e6)",
    "round-efficient": "Round-Efficient (delta=0.2)",
    "tournament": "Clarke et al. (k=1, p=7, f=9)",
    "tournament-final": "Clarke et al. (extra final phase)",
    "adaptive": "pref_eval adaptive (double elimination on the BT posterior)",
    "adaptive-nocap": "pref_eval adaptive, no cap per match (--max-per-match 6)",
}
COLUMNS = ("algorithm", "case", "reps", "found", "one_found", "both_found", "returned_one", "nonbest_returned",
           "comparisons_min", "comparisons_median", "comparisons_max", "assessors_min", "assessors_max")


def run_row(algorithm: str, M: np.ndarray, reps: int, seed: int, T: int = 1000,
            progress: Callable[[int, int], None] | None = None) -> dict:
    """Per-repetition arrays of one algorithm (the keys of :func:`simulate_bandit`)."""
    if algorithm in ("adaptive", "adaptive-nocap"):
        from .adaptive import simulate_adaptive

        extra = {"max_per_match": None} if algorithm == "adaptive-nocap" else {}
        return simulate_adaptive(M, reps, seed=seed, progress=progress, **extra)
    if algorithm in ("tournament", "tournament-final"):
        return simulate_tournament(M, reps, seed=seed, final_phase=algorithm == "tournament-final",
                                   progress=progress)
    return simulate_bandit(algorithm, M, reps, seed=seed, T=T, progress=progress)


def summarise(algorithm: str, case: str, r: dict) -> dict:
    """One table row from the per-repetition arrays."""
    fc = np.asarray(r["found_count"])
    return {
        "algorithm": algorithm, "case": case, "reps": len(fc),
        "found": int((fc > 0).sum()), "one_found": int((fc == 1).sum()), "both_found": int((fc >= 2).sum()),
        "returned_one": int((np.asarray(r["best_size"]) == 1).sum()),
        "nonbest_returned": int(np.asarray(r["nonbest"]).sum()),
        "comparisons_min": int(np.min(r["comparisons"])), "comparisons_max": int(np.max(r["comparisons"])),
        "comparisons_median": float(np.median(r["comparisons"])),
        "assessors_min": int(np.min(r["max_pair"])), "assessors_max": int(np.max(r["max_pair"])),
    }


def figure3(reps: int = 1000, seed: int = 0, algorithms: tuple[str, ...] = ROWS, cases: tuple[str, ...] = ("A", "B"),
            T: int = 1000, progress: Callable[[str, int, int], None] | None = None) -> list[dict]:
    """The whole table, one dict per (algorithm, case), in ``algorithms`` × ``cases`` order."""
    rows = []
    for algorithm in algorithms:
        for case in cases:
            cb = None if progress is None else (lambda d, t, a=algorithm, c=case: progress(f"{a} case {c}", d, t))
            rows.append(summarise(algorithm, case, run_row(algorithm, case_matrix(case), reps, seed, T, cb)))
    return rows
