"""Track organizers, session 25 (k35): ``zelo_eval -o topics* --clef-stats``, the per-topic descriptive statistics
of the CLEF 2007 working notes' appendices (Di Nunzio & Ferro: Min, 1st Q, 2nd Q, 3rd Q, Max, Mean, Std, IQR,
Range over the submitted runs, e.g. https://ceur-ws.org/Vol-1173/CLEF2007wn-GeoCLEF-Appendix_D.pdf). Oracles: a
hand-worked table (AP by hand, test_track_types' five runs), and pandas' ``groupby`` (mean, ``std``: n - 1,
quantiles, max - min) and numpy on trec_eval 10's own ``-q`` output of five runs of its test collection (live
when the binary is at /tmp/trec_eval)."""
from __future__ import annotations

import csv
import io
import json
import math
import os
from fractions import Fraction as F

import pytest

from cli_harness import run_inproc
from test_track_types import RUNS, TREC_EVAL, _close, _table, _ws, five_runs, trec_eval_rows

HEAD = ["qid", "measure", "type", "runs", "min", "q1", "median", "q3", "max", "mean", "std", "iqr", "range", *RUNS]


class _Root:
    """A float cell whose expected value is sqrt(fraction) (compared to 1e-12)."""

    def __init__(self, square: F) -> None:
        self.value = math.sqrt(square)


def _check(row: list[str], want: list) -> None:
    roots = {k: w.value for k, w in enumerate(want) if isinstance(w, _Root)}
    _close([x for k, x in enumerate(row) if k not in roots], [w for k, w in enumerate(want) if k not in roots])
    for k, v in roots.items():
        assert float(row[k]) == pytest.approx(v, abs=1e-12), (row, k)


def test_clef_stats_hand_worked(tmp_path):
    """Automatic t1 AP [1, 1/2, 1/6, 0]: mean 5/12, deviations 7, 1, -3, -5 twelfths: std sqrt(84/144/3), q1 1/8,
    q3 5/8 (type 7): iqr 1/2, range 1; t2 [1, 1/2, 1/3, 1]: mean 17/24, deviations 7, -5, -9, 7 24ths: std
    sqrt(204/576/3), q1 1/3 + 1/8, q3 1: iqr 13/24, range 2/3; the means [1, 1/2, 1/4, 1/2]: mean 9/16, std
    sqrt(76/256/3), q1 7/16, q3 5/8, iqr 3/16, range 3/4; the manual run alone: std empty, iqr and range 0."""
    ws = _ws(tmp_path)
    got = _table(ws, ["--run-types", "types.csv", "--clef-stats"])
    assert got[0] == HEAD
    h, t, z = F(1, 2), F(1, 6), F(0)
    want = [["t1", "map", "automatic", 4, z, t * 3 / 4, (t + h) / 2, h + h / 4, F(1), F(5, 12), _Root(F(84, 432)),
             h, F(1), F(1), h, "", t, z],
            ["t1", "map", "manual", 1, F(1), F(1), F(1), F(1), F(1), F(1), "", z, z, "", "", F(1), "", ""],
            ["t2", "map", "automatic", 4, F(1, 3), F(11, 24), F(3, 4), F(1), F(1), F(17, 24), _Root(F(204, 1728)),
             F(13, 24), F(2, 3), F(1), h, "", F(1, 3), F(1)],
            ["t2", "map", "manual", 1, z, z, z, z, z, z, "", z, z, "", "", z, "", ""],
            ["all", "map", "automatic", 4, F(1, 4), F(7, 16), h, F(5, 8), F(1), F(9, 16), _Root(F(76, 768)),
             F(3, 16), F(3, 4), F(1), h, "", F(1, 4), h],
            ["all", "map", "manual", 1, h, h, h, h, h, h, "", z, z, "", "", h, "", ""]]
    assert len(got) == 1 + len(want)
    for row, w in zip(got[1:], want, strict=True):
        _check(row, w)
    # --quartiles beside it: the same table (the statistics hold the quartiles); no types: one row a topic
    assert _table(ws, ["--run-types", "types.csv", "--clef-stats", "--quartiles"]) == got
    plain = _table(ws, ["--clef-stats"])
    assert plain[0] == [h for h in HEAD if h != "type"]
    one = [F(1), h, F(1), t, z]  # t1 over the five runs: mean 8/15, range 1
    mean = sum(one) / 5
    _check(plain[1][:12], ["t1", "map", 5, z, t, h, F(1), F(1), mean,
                           _Root(sum((x - mean) ** 2 for x in one) / 4), F(1) - t, F(1)])


def test_clef_stats_in_every_topics_format(tmp_path):
    """JSON lines: the four keys after max, std null for one run; counts: an integer range, iqr in the quartiles'
    form; the text table's header and legend; CSV equals TSV."""
    ws = _ws(tmp_path)
    argv = ["-R", "q.txt", "-m", "map", "-m", "num_rel_ret", "-Q", "--run-types", "types.csv", "--clef-stats"]
    res = run_inproc("zelo_eval", [*argv, "-o", "topics-jsonl", *RUNS], ws)
    rows = [json.loads(x) for x in res.stdout.decode().splitlines()]
    assert list(rows[0]) == [*HEAD[:13], "values"]
    manual = [r for r in rows if r["type"] == "manual"]
    assert manual and all(r["std"] is None and r["iqr"] == 0 and r["range"] == 0 for r in manual)
    counts = [r for r in rows if r["measure"] == "num_rel_ret" and r["qid"] != "all"]
    assert counts and all(isinstance(r["range"], int) for r in counts)
    tsv = _table(ws, ["-m", "num_rel_ret", "--run-types", "types.csv", "--clef-stats"])
    assert _table(ws, ["-m", "num_rel_ret", "--run-types", "types.csv", "--clef-stats"], fmt="topics-csv") == tsv
    text = run_inproc("zelo_eval", [*argv, "-o", "topics-text", "--digits", "3", *RUNS], ws).stdout.decode()
    lines = text.split("\n\n")[0].splitlines()
    assert lines[0].split() == HEAD
    t1 = next(x.split() for x in lines if x.startswith("t1") and "num_rel_ret" in x and "automatic" in x)
    assert t1[4:13] == ["0", "0.75", "1", "1.25", "2", "1.000", "0.816", "0.5", "2"]  # [2, 1, 1, 0]: std sqrt(2/3)
    assert "mean, std (sample standard deviation, n - 1), iqr (q3 - q1), range (max - min)" in text
    md = run_inproc("zelo_eval", [*argv, "-o", "topics-markdown", *RUNS], ws).stdout.decode()
    assert md.splitlines()[1] == "|---|---|---|" + "---:|" * 15


@pytest.mark.slow  # pandas' import and five trec_eval runs: ~2 s
@pytest.mark.skipif(not os.access(TREC_EVAL, os.X_OK), reason="trec_eval 10 binary not at /tmp/trec_eval")
def test_clef_stats_equal_pandas_and_numpy_on_trec_eval_output(tmp_path):
    """trec_eval -c -q on each of five runs (three automatic, two manual); per (type, topic, measure) pandas'
    mean, std (ddof 1), quantile 0.75 - 0.25, max - min, and numpy's std(ddof=1) too; a type of one run: std
    empty (pandas: NaN). trec_eval prints 4 decimals: cells equal to 1e-4 (the std of 4-decimal values)."""
    import numpy as np

    ws = tmp_path
    runs = five_runs(ws)
    te = trec_eval_rows(ws, runs, ["map", "P.10", "num_rel_ret", "recip_rank"])
    te = te[te.measure != "runid"]
    for typed in (True, False):
        keys = ["type", "qid", "measure"] if typed else ["qid", "measure"]
        g = te.groupby(keys).value
        want = {"mean": g.mean(), "std": g.std(), "iqr": g.quantile(0.75) - g.quantile(0.25),
                "range": g.max() - g.min(), "np_std": g.agg(lambda v: np.std(np.asarray(v), ddof=1))}
        res = run_inproc("zelo_eval", ["-R", "qrels.test", "-c", "-m", "map", "-m", "P_10", "-m", "num_rel_ret",
                                       "-m", "recip_rank", "-Q", "-o", "topics", "--clef-stats",
                                       *(["--run-types", "types.tsv"] if typed else []), *runs], ws)
        assert res.returncode == 0, res.stderr
        rows = list(csv.reader(io.StringIO(res.stdout.decode()), delimiter="\t"))
        assert len(rows) - 1 == len(want["mean"])
        for r in rows[1:]:
            cell = dict(zip(rows[0], r, strict=True))
            key = (cell["type"], r[0], r[1]) if typed else (r[0], r[1])
            for col in ("mean", "iqr", "range"):
                assert float(cell[col]) == pytest.approx(want[col][key], abs=1e-4), (key, col)
            if math.isnan(want["std"][key]):
                assert cell["std"] == "" and cell["runs"] == "1", key
            else:
                assert float(cell["std"]) == pytest.approx(want["std"][key], abs=1e-4), key
                assert want["np_std"][key] == pytest.approx(want["std"][key], abs=1e-12)
            if r[1] == "num_rel_ret" and r[0] != "all":  # counts: trec_eval's integers, so exactly
                assert int(cell["range"]) == want["range"][key]
                assert float(cell["mean"]) == pytest.approx(want["mean"][key], abs=1e-12)
