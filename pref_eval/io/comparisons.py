"""Reader of ``zelo_compare -o jsonl`` outputs (for ``zelo_plot``'s significance figures).

One JSON object per line; records with ``run_a`` need the keys ``measure``, ``run_a``, ``run_b``,
``test``, ``mean_diff``, ``p_value``, ``p_adjusted``; other lines (legends, summaries) are skipped.
Writer: :mod:`pref_eval.output.comparisons`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InputError
from .textfile import display_name, json_object, read_input_text

if TYPE_CHECKING:
    import pandas as pd


def read_compare_jsonl(path: str) -> pd.DataFrame:
    """Records from ``zelo_compare -o jsonl`` (keys measure, run_a, run_b, test, mean_diff,
    p_value, p_adjusted, ...), as a DataFrame."""
    name = display_name(path)
    text = read_input_text(path, what="zelo_compare jsonl output", any_bytes=True)
    rows, lines = [], []
    need = ("measure", "run_a", "run_b", "test", "mean_diff", "p_value", "p_adjusted")
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        obj = json_object(line, name, no)
        if "run_a" not in obj:  # legend / summary lines, if any
            continue
        missing = [k for k in need if k not in obj]
        if missing:
            raise InputError(name, no, f"missing key(s) {', '.join(missing)}")
        rows.append({k: obj[k] for k in need})
        lines.append(no)
    if not rows:
        raise InputError(name, 0, "no comparison records (expected zelo_compare -o jsonl output)")
    from .frames import frame

    return frame({k: [r[k] for r in rows] for k in need})  # (a run id not UTF-8, \udcNN: object columns)
