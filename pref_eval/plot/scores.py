"""zELO score distributions with confidence intervals.

Input: a ``zelo_fit`` score file (TSV with the header ``qid docno score se``,
more columns allowed), or zbench's annotated JSON lines (no SEs). For each selected query, the documents are drawn
sorted by score with the interval ``score ± z·se``, z = Φ⁻¹(1 − (1−c)/2)
(c = ``confidence``, default 0.95, so z ≈ 1.96: the Wald interval from the
observed Fisher information that ``zelo_fit`` reports). A document whose
SE is ``nan`` (e.g. ``--compat zbench``, or a singleton component under
``--prior 0``) is drawn as a point without an interval.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, UsageError, option_name
from .axes import LABEL_SHARE, LINE, TICK_PAD, LegendEntry, Scale, bottom_axis, frame, grid_boxes, legend
from .axes import shorten
from .axes import title as axes_title
from .canvas import GREY, TAB, Canvas
from .fonts import TextMeasure
from .ticks import padded

MARKER_R = 2.0  # points: matplotlib's ms=3 marker (3 pt across) with its 1 pt edge
MAX_COLUMNS = 5  # panels in a row; more queries wrap into further rows
CAP = 2.0  # half the length of an interval's end caps, points


def read_scores_with_se(path: str) -> dict[str, tuple[list[str], list[float], list[float]]]:
    """``{qid: (docnos, scores, ses)}`` from a zELO score TSV, queries in file order."""
    return read_scores_and_scale(path)[0]


def read_scores_and_scale(path: str) -> tuple[dict[str, tuple[list[str], list[float], list[float]]], bool]:
    """``({qid: (docnos, scores, ses)}, elo)``: the table and whether it is on the Elo scale (``zelo_fit
    --scale elo`` writes a last header column ``scale``, see :func:`pref_eval.io.zelo_scores.read_zelo_scores`)."""
    from ..io.textfile import display_name, first_line_of_file
    from ..io.zelo_scores import is_zbench_annotated_line, read_zbench_scored, score_table_with_header

    if path != "-" and is_zbench_annotated_line(first_line_of_file(path)):
        # zbench's annotated JSON lines (zbench's step 4, zelo_fit --output-format zbench): no SEs (drawn as such;
        # before session 28 refused: "expected the header 'qid<TAB>docno<TAB>score<TAB>se'")
        table = {q: (docs, xs, [math.nan] * len(xs)) for q, docs, xs in read_zbench_scored(path)}
        if not table:
            raise InputError(display_name(path), 0, "no query in the file")
        return table, False
    cols, out = score_table_with_header(path)
    if not out:
        raise InputError(display_name(path), 0, "no score rows after the header")
    return out, cols[-1] == "scale"


def select_queries(available: list[str], wanted: tuple[str, ...], limit: int) -> list[str]:
    """The queries to draw: ``wanted`` (checked), else the first ``limit``."""
    if wanted:
        missing = [q for q in wanted if q not in available]
        if missing:
            raise UsageError(f"query {missing[0]!r} is not in the scores file")
        return list(wanted)
    return available[:limit]


def normal_quantile(p: float) -> float:
    """Φ⁻¹(p) from the standard library (``statistics.NormalDist``; equal to ``scipy.stats.norm.ppf``
    within a few units in the last place, and scipy.stats is not imported for one number: issue #13)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(p)


def draw_scores(data: dict[str, tuple[list[str], list[float], list[float]]], queries: list[str], confidence: float,
                top: int | None,
                size: tuple[float, float], title: str | None = None, measure: TextMeasure | None = None,
                elo: bool = False) -> Canvas:
    """One panel per query: documents sorted by score (best on top), intervals as bars with caps; at most
    ``MAX_COLUMNS`` (5) panels a row, more queries wrap into further rows.

    ``size`` is (width, height) in inches. Panel k's x axis spans the intervals, the SE-less points and 0
    (a thin grey line; not on the Elo scale, ``elo``: there the scores sit around ``--elo-offset``, and 0
    is no reference), padded by 5 % on each side; document j (0 = best) is drawn at the middle of the
    j-th of the panel's equal rows; the names are written left of the panel up to 40 documents,
    right-aligned 3.5 pt from it."""
    if not 0 < confidence < 1:
        raise UsageError(f"{option_name('confidence')} must be between 0 and 1")
    z = normal_quantile(1 - (1 - confidence) / 2)
    canvas = Canvas(size[0] * 72.0, size[1] * 72.0, measure)
    n = len(queries)
    panels = []
    label_w = 0.0
    for qid in queries:
        docs, xs, ses = data[qid]
        x = np.asarray(xs, dtype=float)
        se = np.asarray(ses, dtype=float)
        order = np.argsort(-x, kind="stable")
        if top:
            order = order[:top]
        fs = 6.0 if len(order) > 20 else 8.0
        names = shorten(canvas, [docs[i] for i in order], fs, LABEL_SHARE / max(len(queries), 1)) \
            if len(order) <= 40 else []
        label_w = max(label_w, canvas.measure.widest(names, fs))
        panels.append((qid, len(docs), x[order], se[order], names, fs))
    # margins from the label sizes: ticks, pads and the document names left of each panel
    tick = 7.2 + label_w
    ncols = min(n, MAX_COLUMNS)  # more queries wrap into further rows (each with its title and axis)
    nrows = -(-n // ncols)
    boxes = grid_boxes(canvas.width, canvas.height, left=tick + 3.6, right=18.0, bottom=2 * LINE * 10 + 14.4,
                       top=LINE * 12 + LINE * 10 + 14.4, ncols=ncols, gap=tick + 21.6, nrows=nrows,
                       vgap=2 * LINE * 10 + 14.4 + LINE * 10 + 6.0)[:n]
    label = f"score ± {z:.2f}·se"
    for k, (box, (qid, ndocs, xo, seo, names, fs)) in enumerate(zip(boxes, panels, strict=True)):
        with canvas.group(f"panel-{k + 1}"):
            has = np.isfinite(seo)
            ends = np.concatenate([xo[has] - z * seo[has], xo[has] + z * seo[has], xo[~has], [] if elo else [0.0]])
            lo, hi = padded(float(ends.min()), float(ends.max()))
            xs_ = bottom_axis(canvas, box, lo, hi, "zELO score (Elo scale)" if elo else "zELO score")
            rows = len(xo)
            ys = Scale(-0.5, rows - 0.5, box.y0, box.y1)
            if not elo:
                canvas.line([(xs_(0.0), box.y0), (xs_(0.0), box.y1)], color=GREY, width=0.5, role="zero")
            for j in range(rows):
                y = ys(j)
                if has[j]:
                    a, b = xs_(xo[j] - z * seo[j]), xs_(xo[j] + z * seo[j])
                    canvas.line([(a, y), (b, y)], color=TAB["blue"], width=1.0, role="interval")
                    for c in (a, b):
                        canvas.line([(c, y - CAP), (c, y + CAP)], color=TAB["blue"], width=1.0, role="cap")
                canvas.circle(xs_(xo[j]), y, MARKER_R, TAB["blue"] if has[j] else TAB["red"], role="marker")
            for j, name in enumerate(names):
                canvas.text(box.x0 - TICK_PAD, ys(j), name, fs, ha="right", va="center",
                            role="doc-label")
            frame(canvas, box)
            axes_title(canvas, box, f"query {qid} ({ndocs} docs)")
            entries = [LegendEntry("errorbar", TAB["blue"], label)]
            if (~has).any():
                entries.append(LegendEntry("marker", TAB["red"], "no se"))
            legend(canvas, box, entries, 7.0, marker_r=MARKER_R, cap=CAP)
    canvas.text(canvas.width / 2, 0.02 * canvas.height, title or f"zELO scores with {confidence:.0%} intervals",
                12.0, ha="center", va="top", role="suptitle")
    return canvas
