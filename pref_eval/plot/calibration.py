"""Reliability diagram and per-bucket five-level distribution (``zelo_plot calibration``).

Input: the ``calibration`` records of ``zelo_agree -o jsonl``: per bucket
``bucketNN.predicted`` (mean of the judge's mu), ``.observed`` (mean of the
reference's score), ``.share_0`` ... ``.share_1`` (the reference's five
levels) and ``n``. Left panel: observed against predicted, one point per
bucket (area ~ count), the diagonal = perfect calibration, ECE in the legend.
Right panel: for each bucket (x = its mean mu), the stacked shares of the
reference's levels y = 0, 0 < y < 1/2, 1/2, 1/2 < y < 1, 1 (the zELO note's
Figures 5-7).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import UsageError

LEVELS = ("share_0", "share_below_half", "share_half", "share_above_half", "share_1")
LABELS = ("y = 0", "0 < y < ½", "y = ½", "½ < y < 1", "y = 1")
BUCKET = r"^bucket(\d+)\.(\w+)$"  # compiled on use (re caches it)


@dataclass
class CalibrationData:
    judge_a: str
    judge_b: str
    predicted: np.ndarray
    observed: np.ndarray
    n: np.ndarray
    shares: np.ndarray
    ece: float


def select_calibration(records: list[dict], judge: str | None, where: str) -> CalibrationData:
    """The buckets of one (reference, judge) pair; ``judge`` picks ``judge_b`` when there are several."""
    cal = [r for r in records if r["level"] == "calibration"]
    pairs = list(dict.fromkeys((r["judge_a"], r["judge_b"]) for r in cal))
    if not pairs:
        raise UsageError(f"{where}: no calibration records (run zelo_agree with -l calibration; "
                         "--calibration always for a judge with scores 0, 1/2, 1 only)")
    if judge is not None:
        pairs = [p for p in pairs if p[1] == judge]
        if not pairs:
            raise UsageError(f"{where}: no calibration records for judge {judge!r}")
    if len(pairs) > 1:
        raise UsageError(f"{where}: calibration of several judges ({', '.join(p[1] for p in pairs)}); "
                         "choose one with --judge")
    a, b = pairs[0]
    buckets: dict[int, dict[str, float]] = {}
    counts: dict[int, int] = {}
    ece = float("nan")
    for r in cal:
        if (r["judge_a"], r["judge_b"]) != (a, b):
            continue
        if r["statistic"] == "ece":
            ece = r["value"]
        m = re.match(BUCKET, r["statistic"])
        if m:
            k = int(m.group(1))
            buckets.setdefault(k, {})[m.group(2)] = r["value"]
            counts[k] = int(r["n"])
    keys = sorted(buckets)
    need = ("predicted", "observed", *LEVELS)
    for k in keys:
        lack = [x for x in need if x not in buckets[k]]
        if lack:
            raise UsageError(f"{where}: bucket {k} lacks {', '.join(lack)}")
    return CalibrationData(
        a, b,
        np.array([buckets[k]["predicted"] for k in keys]),
        np.array([buckets[k]["observed"] for k in keys]),
        np.array([counts[k] for k in keys]),
        np.array([[buckets[k][x] for x in LEVELS] for k in keys]),
        ece,
    )


def draw_calibration(plt, data: CalibrationData, size: tuple[float, float], title: str | None = None):
    """Two panels: reliability diagram and stacked five-level shares per bucket."""
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=size, layout="constrained")
    ax1.plot([0, 1], [0, 1], color="#888888", lw=1, ls="--", label="perfect calibration")
    area = 20 + 180 * data.n / max(float(data.n.max()), 1.0) if len(data.n) else 20
    ax1.plot(data.predicted, data.observed, color="#1f77b4", lw=1)
    ax1.scatter(data.predicted, data.observed, s=area, color="#1f77b4", zorder=3,
                label=f"buckets (ECE {data.ece:.3f})")
    ax1.set_xlim(-0.02, 1.02)
    ax1.set_ylim(-0.02, 1.02)
    ax1.set_xlabel(f"predicted μ ({data.judge_b})")
    ax1.set_ylabel(f"observed mean ({data.judge_a})")
    ax1.set_title("reliability diagram")
    ax1.legend(loc="upper left", fontsize=8)
    x = np.arange(len(data.n))
    bottom = np.zeros(len(data.n))
    colours = list(plt.get_cmap("RdBu")(np.linspace(0.1, 0.9, 5)))
    colours[2] = "#bbbbbb"  # ties in grey
    for j, label in enumerate(LABELS):
        ax2.bar(x, data.shares[:, j], bottom=bottom, color=colours[j], label=label, width=0.85)
        bottom += data.shares[:, j]
    ax2.set_xticks(x)
    ax2.set_xticklabels([f"{p:.2f}" for p in data.predicted], rotation=90, fontsize=7)
    ax2.set_xlabel(f"bucket (mean μ of {data.judge_b})")
    ax2.set_ylabel(f"share of {data.judge_a}'s levels")
    ax2.set_ylim(0, 1)
    ax2.set_title("reference's distribution per bucket")
    ax2.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.suptitle(title or f"calibration of {data.judge_b} against {data.judge_a}")
    return fig
