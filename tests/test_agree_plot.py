"""zelo_plot calibration: renders a valid, non-blank PNG/SVG from zelo_agree's jsonl; the buckets it
draws are the records' values; bad input is one line with exit code 2."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from test_plot import check_png, check_svg, run_plot  # same folder (pytest prepends it to sys.path)

pytest.importorskip("matplotlib")
ROOT = Path(__file__).resolve().parents[1]
CROWD = str(ROOT / "judgments" / "dl21-crowd-sample.txt")
GPT = str(ROOT / "judgments" / "dl21-gpt4o-sample.human")


@pytest.fixture(scope="module")
def agree_jsonl(tmp_path_factory):
    from pref_eval.agree.records import FIELDS
    from pref_eval.api import agree

    recs = agree([CROWD, GPT], names=["crowd", "gpt4o"], levels=["calibration"], calibration="always",
                 buckets=8, resamples=0)
    path = tmp_path_factory.mktemp("cal") / "a.jsonl"
    path.write_text("".join(json.dumps({k: (None if isinstance(v, float) and np.isnan(v) else v)
                                        for k, v in zip(FIELDS, r.row(), strict=True)}) + "\n" for r in recs))
    return path


@pytest.mark.parametrize("ext", ["png", "svg"])
def test_renders(agree_jsonl, ext, tmp_path, capsys):
    out = tmp_path / f"c.{ext}"
    code, _, err = run_plot(["calibration", "-A", str(agree_jsonl), "-o", str(out), "--dpi", "50"], capsys)
    assert code == 0, err
    if ext == "png":
        check_png(out, 11.0, 4.5, 50)
    else:
        check_svg(out, 11.0, 4.5)


def test_selected_buckets_are_the_records(agree_jsonl):
    from pref_eval.io.agree_records import read_agree_jsonl
    from pref_eval.plot.calibration import select_calibration

    recs = read_agree_jsonl(str(agree_jsonl))
    data = select_calibration(recs, "gpt4o", "x")
    obs = [r["value"] for r in recs if r["statistic"].endswith(".observed")]
    assert list(data.observed) == obs and 2 <= len(obs) <= 8  # at most --buckets (equal scores share one)
    assert np.allclose(data.shares.sum(1), 1.0)
    assert data.ece == next(r["value"] for r in recs if r["statistic"] == "ece")


def test_errors(agree_jsonl, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"judge_a": "a"}\n')
    code, _, err = run_plot(["calibration", "-A", str(bad), "-o", str(tmp_path / "x.png")], capsys)
    assert code == 2 and err.startswith("zelo_plot: ") and "bad.jsonl:1:" in err and err[-1] == "\n"
    assert err.count("\n") == 1
    code, _, err = run_plot(["calibration", "-A", str(agree_jsonl), "--judge", "nobody",
                             "-o", str(tmp_path / "x.png")], capsys)
    assert code == 2 and "no calibration records for judge 'nobody'" in err
    pair_only = tmp_path / "p.jsonl"
    pair_only.write_text(json.dumps({"judge_a": "a", "judge_b": "b", "level": "pair", "statistic": "matched",
                                     "value": 3, "ci_low": None, "ci_high": None, "n": 3}) + "\n")
    code, _, err = run_plot(["calibration", "-A", str(pair_only), "-o", str(tmp_path / "x.png")], capsys)
    assert code == 2 and "no calibration records" in err
    assert not (tmp_path / "x.png").exists()
