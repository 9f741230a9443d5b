"""Reader of ``zelo_agree -o jsonl`` output (records ``judge_a, judge_b, level, statistic, value,
ci_low, ci_high, n``), e.g. for ``zelo_plot calibration``."""
from __future__ import annotations

import math

from ..errors import InputError
from .textfile import display_name, json_object, read_input_bytes, refuse_nul

KEYS = ("judge_a", "judge_b", "level", "statistic", "value", "ci_low", "ci_high", "n")


def _number(v) -> bool:
    return v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))


def read_agree_jsonl(path: str) -> list[dict]:
    """Every record of a ``zelo_agree -o jsonl`` file (``null`` numbers become NaN)."""
    name = display_name(path)
    try:
        data = read_input_bytes(path, what="zelo_agree jsonl output")
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(name, 0, f"not UTF-8 text ({err.reason})") from None
    refuse_nul(data, name)  # as every input read as text (the JSON parser would refuse it with another message)
    out = []
    for no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        obj = json_object(line, name, no, "a JSON object per line")
        missing = [k for k in KEYS if k not in obj]
        if missing:
            raise InputError(name, no, f"expected a zelo_agree record; missing key(s) {', '.join(missing)}")
        if not all(isinstance(obj[k], str) for k in KEYS[:4]):
            raise InputError(name, no, "expected judge_a, judge_b, level and statistic as strings")
        if not all(_number(obj[k]) for k in KEYS[4:]):
            raise InputError(name, no, "expected value, ci_low, ci_high and n as numbers or null")
        rec = {k: obj[k] for k in KEYS}
        for k in ("value", "ci_low", "ci_high"):
            rec[k] = math.nan if rec[k] is None else float(rec[k])
        out.append(rec)
    if not out:
        raise InputError(name, 0, "no records (expected zelo_agree -o jsonl output)")
    return out
