"""What ``zelo_simulate`` writes: one TSV summary row per simulated setting."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TextIO

TOURNAMENT_HEADER = ("matrix\treps\tfound\tfound_all\tcomparisons_min\tcomparisons_median\tcomparisons_max\t"
                     "mean_best_set\n")
RECOVERY_HEADER = "K\tsigma\tcycles\ttrials\ttau_vs_dense\ttau_vs_truth\ttop10_overlap\n"


def write_tournament(out: TextIO, label: str, reps: int, r: Mapping[str, Any]) -> None:
    """``zelo_simulate tournament``: the header and one row of
    :func:`pref_eval.zelo.simulate.simulate_tournament`'s result ``r`` (``label``: the matrix)."""
    import numpy as np

    c = r["comparisons"]
    out.write(TOURNAMENT_HEADER)
    out.write(f"{label}\t{reps}\t{int(r['found'].sum())}\t{int(r['found_all'].sum())}\t{int(c.min())}\t"
              f"{float(np.median(c)):g}\t{int(c.max())}\t{r['best_size'].mean():.3f}\n")


def recovery_row(k: int, sigma: float, cycles: int, trials: int, r: Mapping[str, Any]) -> str:
    """One row of ``zelo_simulate recovery`` (means over the trials, 3 decimals) after :data:`RECOVERY_HEADER`."""
    return (f"{k}\t{sigma:g}\t{cycles}\t{trials}\t{r['tau_dense'].mean():.3f}\t{r['tau_truth'].mean():.3f}\t"
            f"{r['top_overlap'].mean():.3f}\n")


def write_summary_rows(out: TextIO, rows: Iterable[Mapping[str, Any]]) -> None:
    """``zelo_simulate bandit|adaptive|figure3``: the columns of :data:`pref_eval.zelo.figure3.COLUMNS`."""
    from ..zelo.figure3 import COLUMNS

    out.write("\t".join(COLUMNS) + "\n")
    for row in rows:
        out.write("\t".join(str(row[c]) for c in COLUMNS) + "\n")
