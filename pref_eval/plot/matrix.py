"""zbench's K×K comparison matrix for one query.

For the K documents of a query (in input order), ``W[i, j]`` is the
(fractional) number of times document i beat document j: a judgment
``(a, b, s)`` (s = 1: b better) adds ``s`` to ``W[b, a]`` and ``1 - s`` to
``W[a, b]``, as zbench builds its W matrix (``zbench_reference.md`` (b)),
without zbench's 0.5 diagonal. The plotted cell is the share of the pair's
comparisons that the row document won,

    P[i, j] = W[i, j] / (W[i, j] + W[j, i]),

blank where the pair was never compared. The same matrix is drawn twice:
documents in input order, and sorted by zELO score (highest first), where a
consistent set of judgments shows as a matrix whose upper triangle is mostly
wins.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..errors import UsageError
from .axes import FRAME_WIDTH, LABEL_PAD, LINE, TICK_LENGTH, TICK_PAD, Box, colorbar, colorbar_width, frame, grid_boxes
from .axes import left_labels, shorten
from .axes import title as axes_title
from .canvas import Canvas
from .colormaps import colormap_table, hex_color, lookup
from .fonts import TextMeasure

if TYPE_CHECKING:
    from ..zelo.judgments import Judgments

NAN_GREY = "#eeeeee"


def win_matrix(judgments: Judgments, qid: str) -> tuple[list[str], np.ndarray]:
    """``(docnos, W)`` for query ``qid`` of a :class:`~pref_eval.zelo.judgments.Judgments`."""
    if qid not in judgments.docs:
        raise UsageError(f"query {qid!r} is not in the judgments (queries: {_few(judgments.queries)})")
    q, a, b, s, w = judgments.arrays()
    qi = judgments.queries.index(qid)
    sel = q == qi
    a, b, s, w = a[sel], b[sel], s[sel], w[sel]
    docs = list(judgments.docs[qid])
    k = len(docs)
    wins = np.zeros((k, k))
    np.add.at(wins, (b, a), w * s)
    np.add.at(wins, (a, b), w * (1.0 - s))
    return docs, wins


def share_matrix(wins: np.ndarray) -> np.ndarray:
    """``P = W / (W + Wᵀ)``, NaN where a pair was never compared (and on the diagonal)."""
    total = wins + wins.T
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(total > 0, wins / np.where(total > 0, total, 1.0), np.nan)
    np.fill_diagonal(p, np.nan)
    return p


def zelo_order(judgments: Judgments, qid: str, docs: list[str], scores: dict[str, float] | None = None,
               prior: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Indices of ``docs`` by zELO score, highest first, and the scores.

    ``scores`` (``{docno: score}``, e.g. from a ``zelo_fit`` TSV) is used when
    given; otherwise the query is fitted with :func:`pref_eval.zelo.fit.fit_bt`
    (weak prior ``prior``). Ties keep input order.
    """
    if scores is None:
        from ..zelo.fit import fit_bt

        q, a, b, s, w = judgments.arrays()
        qi = judgments.queries.index(qid)
        sel = q == qi
        res = fit_bt(np.array([len(docs)]), np.zeros(int(sel.sum()), dtype=np.int64), a[sel], b[sel],
                     s[sel], w[sel], prior=prior, compute_se=False)
        x = np.asarray(res.score, dtype=float)
    else:
        missing = [d for d in docs if d not in scores]
        if missing:
            raise UsageError(f"query {qid!r}: {len(missing)} judged document(s) have no score in the "
                             f"scores file (e.g. {missing[0]!r})")
        x = np.array([scores[d] for d in docs], dtype=float)
    order = np.argsort(-x, kind="stable")
    return order, x


def draw_matrix(docs: list[str], share: np.ndarray, order: np.ndarray, scores: np.ndarray,
                qid: str, size: tuple[float, float], title: str | None = None,
                measure: TextMeasure | None = None) -> Canvas:
    """Two square panels, input order and zELO order: cell (i, j) coloured by matplotlib's RdBu at
    share[i, j] on [0, 1] (red: the row document lost every comparison, blue: won every one), never
    compared = light grey; the document ids along both sides up to 40 documents; one colour bar."""
    canvas = Canvas(size[0] * 72.0, size[1] * 72.0, measure)
    k = len(docs)
    table = colormap_table("RdBu")
    fs = 7.0 if k <= 20 else 5.0
    docs = shorten(canvas, docs, fs, 0.125)
    name_w = canvas.measure.widest(docs, fs) if k <= 40 else 0.0
    side_room = TICK_LENGTH + TICK_PAD + name_w + LABEL_PAD + LINE * 10  # names and the axis label
    cbar = 0.04 * canvas.width + 10.0 + colorbar_width(canvas, 0.0, 1.0)
    boxes = grid_boxes(canvas.width, canvas.height, left=side_room + 6.0, right=cbar + 6.0,
                       bottom=side_room + 6.0, top=LINE * 12 + LINE * 10 + 16.0, ncols=2, gap=side_room + 24.0)
    side = min(min(b.x1 - b.x0, b.y1 - b.y0) for b in boxes)
    panels = [(np.arange(k), "input order"), (np.asarray(order), "by zELO score (highest first)")]
    squares = [Box((b.x0 + b.x1 - side) / 2, (b.y0 + b.y1 - side) / 2, (b.x0 + b.x1 + side) / 2,
                   (b.y0 + b.y1 + side) / 2) for b in boxes]
    for p, (sq, (idx, label)) in enumerate(zip(squares, panels, strict=True), start=1):
        cell = side / max(k, 1)
        m = share[np.ix_(idx, idx)]
        with canvas.group(f"panel-{p}"):
            for i in range(k):
                for j in range(k):
                    v = m[i, j]
                    fill = hex_color(lookup(table, float(v))) if np.isfinite(v) else NAN_GREY
                    canvas.rect(sq.x0 + j * cell, sq.y0 + i * cell, cell, cell, fill=fill, role="cell")
            frame(canvas, sq)
            if k <= 40:
                names = [docs[i] for i in idx]
                centres = [(i + 0.5) * cell for i in range(k)]
                left_labels(canvas, sq, [sq.y0 + c for c in centres], names, fs)
                for c, name in zip(centres, names, strict=True):
                    x = sq.x0 + c
                    canvas.line([(x, sq.y1), (x, sq.y1 + TICK_LENGTH)], width=FRAME_WIDTH, role="tick")
                    canvas.text(x, sq.y1 + TICK_LENGTH + TICK_PAD, name, fs, ha="right", va="center", rotation=90,
                                role="column-label")
            canvas.text((sq.x0 + sq.x1) / 2, sq.y1 + TICK_LENGTH + TICK_PAD + name_w + LABEL_PAD, "column document",
                        10.0, ha="center", va="top", role="axis-label")
            canvas.text(sq.x0 - TICK_LENGTH - TICK_PAD - name_w - LABEL_PAD, (sq.y0 + sq.y1) / 2, "row document",
                        10.0, ha="center", va="bottom", rotation=90, role="axis-label")
            axes_title(canvas, sq, label)
    with canvas.group("colorbar"):
        sq, h = squares[-1], 0.8 * side
        x0 = sq.x1 + 0.04 * canvas.width
        bar = Box(x0, (sq.y0 + sq.y1 - h) / 2, x0 + 0.05 * h, (sq.y0 + sq.y1 + h) / 2)
        colorbar(canvas, bar, lambda v: hex_color(lookup(table, v)), 0.0, 1.0,
                 "share of comparisons the row document won")
    judged = int(np.isfinite(share).sum() // 2)
    canvas.text(canvas.width / 2, 0.02 * canvas.height, title or f"query {qid}: {k} documents, {judged} compared pairs",
                12.0, ha="center", va="top", role="suptitle")
    return canvas


def _few(items, n: int = 5) -> str:
    items = list(items)
    more = f", … ({len(items)} in all)" if len(items) > n else ""
    return ", ".join(items[:n]) + more
