"""zelo_plot: every kind renders a valid, non-blank PNG/SVG of the expected size
from the sample data; the numbers behind the plots match independent oracles
(hand counts, scipy, statsmodels); errors are one line with exit code 2."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT  # noqa: E402
QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUNS = [str(ROOT / "runs" / f"{r}.run") for r in ("bm25", "dense", "rerank")]
JUDGE = str(ROOT / "judgments" / "dl19-sample.judge")

mpl = pytest.importorskip("matplotlib", reason="matplotlib not installed (pip install 'pref_eval[plot]')")


def run_plot(argv, capsys):
    from pref_eval.cli.plot import main

    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


def check_png(path: Path, width_in: float, height_in: float, dpi: float) -> None:
    import matplotlib.image as mimg

    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    img = mimg.imread(str(path))
    assert img.shape[0] == round(height_in * dpi) and img.shape[1] == round(width_in * dpi)
    assert float(np.var(img[..., :3])) > 1e-4, "image is blank"


def check_svg(path: Path, width_in: float, height_in: float) -> None:
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert root.get("width") == f"{width_in * 72:g}pt"
    assert root.get("height") == f"{height_in * 72:g}pt"
    # matplotlib's SVG draws paths (and glyph <use>s); the ported kinds' own writer (plot/svg.py) polylines,
    # circles, rectangles and texts
    drawn = [e for e in root.iter() if e.tag.split("}")[-1] in ("path", "use", "polyline", "circle", "text")]
    assert len(drawn) > 20, "SVG has almost nothing drawn"


@pytest.fixture(scope="module")
def scores_tsv(tmp_path_factory):
    out = tmp_path_factory.mktemp("fit") / "scores.tsv"
    res = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", JUDGE, "-o", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    if res.returncode != 0:
        pytest.skip(f"zelo_fit not usable here: {res.stderr.strip()}")
    return out


CASES = {
    "matrix": lambda s: ["matrix", "-J", JUDGE, "-q", "1037798"],
    "matrix-scores": lambda s: ["matrix", "-J", JUDGE, "-q", "1103812", "-S", str(s)],
    "scores": lambda s: ["scores", "-S", str(s)],
    "systems": lambda s: ["systems", "-R", QRELS, "-m", "map", *RUNS],
    "systems-bootstrap": lambda s: ["systems", "-R", QRELS, "-m", "P.10", "--ci", "bootstrap", *RUNS],
    "pairs": lambda s: ["pairs", "-R", QRELS, "-m", "map", *RUNS],
    "pairs-diff": lambda s: ["pairs", "-R", QRELS, "-m", "P.10", "--value", "mean_diff", *RUNS],
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("ext", ["png", "svg"])
def test_renders(case, ext, tmp_path, scores_tsv, capsys):
    out = tmp_path / f"plot.{ext}"
    w, h, dpi = 6.0, 4.5, 80
    code, stdout, err = run_plot(CASES[case](scores_tsv) + ["-o", str(out), "--width", str(w),
                                                            "--height", str(h), "--dpi", str(dpi)], capsys)
    assert code == 0, err
    assert stdout == ""
    assert f"wrote {out}" in err
    if ext == "png":
        check_png(out, w, h, dpi)
    else:
        check_svg(out, w, h)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]


def test_svg_is_deterministic(tmp_path, capsys):
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    for p in (a, b):
        assert run_plot(["pairs", "-R", QRELS, "-m", "map", *RUNS, "-o", str(p)], capsys)[0] == 0
    assert a.read_bytes() == b.read_bytes()


def test_per_query_file_and_compare_jsonl(tmp_path, capsys):
    import pandas as pd
    import pref_eval

    df = pref_eval.evaluate(QRELS, RUNS, ["map"])
    df["run"] = df["run"].map(lambda r: Path(r).stem)
    pq = tmp_path / "pq.tsv"
    df.to_csv(pq, sep="\t", index=False)
    assert run_plot(["systems", "-P", str(pq), "-o", str(tmp_path / "s.png")], capsys)[0] == 0
    check_png(tmp_path / "s.png", 7.0, 4.0, 100)
    recs = [{"measure": "map", "run_a": a, "run_b": b, "test": "t", "mean_diff": d, "p_value": p,
             "p_adjusted": min(1.0, 3 * p), "correction": "bonferroni"}
            for a, b, d, p in [("x", "y", 0.1, 0.01), ("x", "z", 0.2, 0.001), ("y", "z", 0.1, 0.2)]]
    cj = tmp_path / "cmp.jsonl"
    cj.write_text("".join(json.dumps(r) + "\n" for r in recs))
    assert run_plot(["pairs", "-C", str(cj), "-o", str(tmp_path / "p.png")], capsys)[0] == 0
    check_png(tmp_path / "p.png", 6.5, 5.5, 100)
    from pref_eval.plot.pairs import pair_matrix

    runs, m = pair_matrix(pd.DataFrame(recs), "mean_diff")
    assert runs == ["x", "y", "z"]
    assert m[0, 1] == 0.1 and m[1, 0] == -0.1 and m[2, 0] == -0.2 and m[1, 1] == 0.0


# ---- the numbers behind the plots -------------------------------------------------------

def test_win_matrix_counts_match_file():
    """clarke3 'topic winner loser': W[i, j] = number of lines where i beat j (hand count)."""
    from pref_eval.plot.matrix import share_matrix, win_matrix
    from pref_eval.io.judgments import read_judgments

    j = read_judgments(JUDGE)
    docs, w = win_matrix(j, "1037798")
    lines = [ln.split() for ln in Path(JUDGE).read_text().splitlines() if ln.startswith("1037798 ")]
    assert w.sum() == len(lines) == 46
    idx = {d: i for i, d in enumerate(docs)}
    expect = np.zeros_like(w)
    for _, winner, loser in lines:
        expect[idx[winner], idx[loser]] += 1
    assert np.array_equal(w, expect)
    p = share_matrix(w)
    tot = expect + expect.T
    for i in range(len(docs)):
        for k in range(len(docs)):
            if i != k and tot[i, k]:
                assert p[i, k] == expect[i, k] / tot[i, k]
            else:
                assert np.isnan(p[i, k])


def test_win_matrix_fractional_scores(tmp_path):
    """score s (1 = B better) adds s to W[b, a] and 1 - s to W[a, b], as zbench's W."""
    from pref_eval.plot.matrix import win_matrix
    from pref_eval.io.judgments import read_judgments

    f = tmp_path / "j.jsonl"
    rows = [("q", "d1", "d2", 0.75), ("q", "d2", "d1", 1.0), ("q", "d1", "d3", 0.0)]
    f.write_text("".join(json.dumps({"qid": q, "doc_a": a, "doc_b": b, "score": s}) + "\n"
                         for q, a, b, s in rows))
    docs, w = win_matrix(read_judgments(str(f)), "q")
    assert docs == ["d1", "d2", "d3"]
    assert w[1, 0] == 0.75 and w[0, 1] == 0.25 + 1.0 and w[0, 2] == 1.0 and w[2, 0] == 0.0


def test_zelo_order_from_scores_file(scores_tsv):
    from pref_eval.plot.matrix import win_matrix, zelo_order
    from pref_eval.plot.scores import read_scores_with_se
    from pref_eval.io.judgments import read_judgments

    j = read_judgments(JUDGE)
    table = read_scores_with_se(str(scores_tsv))
    docs, _ = win_matrix(j, "1110199")
    given = dict(zip(table["1110199"][0], table["1110199"][1], strict=False))
    order, x = zelo_order(j, "1110199", docs, given)
    assert [docs[i] for i in order] == sorted(docs, key=lambda d: -given[d])
    # the fit done inside zelo_plot gives the same order as zelo_fit's file (same default prior)
    order2, _ = zelo_order(j, "1110199", docs, None)
    assert list(order2) == list(order)


def test_t_intervals_equal_scipy():
    import pandas as pd
    from scipy import stats

    from pref_eval.plot.systems import mean_intervals

    rng = np.random.default_rng(3)
    wide = pd.DataFrame(rng.random((12, 3)), columns=["a", "b", "c"])
    means, lo, hi = mean_intervals(wide, 0.9, "t", 0)
    for k, col in enumerate(wide.columns):
        ci = stats.ttest_1samp(wide[col].to_numpy(), 0.0).confidence_interval(0.9)
        assert lo[k] == pytest.approx(ci.low, rel=1e-12) and hi[k] == pytest.approx(ci.high, rel=1e-12)
        assert means[k] == pytest.approx(wide[col].mean(), rel=1e-15)
        iv = stats.t.interval(0.9, 11, loc=means[k], scale=wide[col].std(ddof=1) / np.sqrt(12))
        assert (lo[k], hi[k]) == pytest.approx(iv, rel=1e-12)


def test_letter_groups_hand_example():
    from pref_eval.plot.systems import letter_groups

    # runs A B C D (best first); significant: A-C, A-D, B-D
    sig = np.zeros((4, 4), dtype=bool)
    for i, k in [(0, 2), (0, 3), (1, 3)]:
        sig[i, k] = sig[k, i] = True
    assert letter_groups(sig, np.arange(4)) == ["a", "ab", "bc", "c"]
    assert letter_groups(np.zeros((3, 3), dtype=bool), np.arange(3)) == ["a", "a", "a"]
    full = ~np.eye(3, dtype=bool)
    assert letter_groups(full, np.array([2, 0, 1])) == ["b", "c", "a"]


def test_letter_groups_share_iff_not_significant():
    from pref_eval.plot.systems import letter_groups

    rng = np.random.default_rng(7)
    for _ in range(200):
        r = int(rng.integers(2, 8))
        upper = np.triu(rng.random((r, r)) < 0.4, 1)
        sig = upper | upper.T
        letters = letter_groups(sig, rng.permutation(r))
        for i in range(r):
            for k in range(i + 1, r):
                assert bool(set(letters[i]) & set(letters[k])) == (not sig[i, k])


def test_significance_groups_match_scipy_statsmodels():
    """Sample data, map: letters share iff Holm-corrected scipy ttest_rel p >= alpha."""
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    from pref_eval.plot.data import load_values, paired_table, pairwise_tests
    from pref_eval.plot.systems import letter_groups, significant_matrix

    import pref_eval

    for measure in ("map", "P.10"):
        df, name = load_values(QRELS, RUNS, None, measure)
        table = paired_table(df)
        runs = list(table.columns)
        # the oracle's table from pref_eval.evaluate's DataFrame with pandas; ours (no pandas) equals it
        ev = pref_eval.evaluate(QRELS, dict(zip(runs, RUNS, strict=True)), [measure])
        wide = ev.pivot_table(index="qid", columns="run", values="value", aggfunc="first")[runs].dropna()
        assert list(table.index) == list(wide.index) and np.array_equal(table.to_numpy(), wide.to_numpy())
        recs = pairwise_tests(df, "t", "holm", 0.05, 0)
        sig = significant_matrix(recs, runs, 0.05)
        pairs = [(i, k) for i in range(len(runs)) for k in range(i + 1, len(runs))]
        p = [stats.ttest_rel(wide[runs[i]], wide[runs[k]]).pvalue for i, k in pairs]
        rej = multipletests(p, alpha=0.05, method="holm")[0]
        for (i, k), r in zip(pairs, rej, strict=False):
            assert sig[i, k] == r
        letters = letter_groups(sig, np.argsort(-wide.mean().to_numpy()))
        for (i, k), r in zip(pairs, rej, strict=False):
            assert bool(set(letters[i]) & set(letters[k])) == (not r)


# ---- errors -------------------------------------------------------------------------------

def test_bad_extension_and_missing_input(tmp_path, capsys):
    code, _, err = run_plot(["systems", "-R", QRELS, "-m", "map", *RUNS, "-o", str(tmp_path / "x.eps")], capsys)
    assert code == 2 and err.startswith("zelo_plot: ") and ".png, .svg or .pdf" in err
    assert "Traceback" not in err and not (tmp_path / "x.eps").exists()
    old = tmp_path / "keep.png"
    old.write_bytes(b"old")
    code, _, err = run_plot(["matrix", "-J", str(tmp_path / "nope.judge"), "-o", str(old)], capsys)
    assert code == 2 and "nope.judge" in err and err.count("\n") == 1
    assert old.read_bytes() == b"old"
    code, _, err = run_plot(["matrix", "-J", JUDGE, "-q", "999", "-o", str(old)], capsys)
    assert code == 2 and "'999'" in err and old.read_bytes() == b"old"


def test_bad_scores_file_names_line(tmp_path, capsys):
    f = tmp_path / "s.tsv"
    f.write_text("qid\tdocno\tscore\tse\nq1\td1\t0.5\t0.1\nq1\td2\tabc\t0.1\n")
    code, _, err = run_plot(["scores", "-S", str(f), "-o", str(tmp_path / "o.png")], capsys)
    assert code == 2 and f"{f}:3: " in err


@pytest.mark.parametrize("kind", ["systems", "scores"])
def test_missing_matplotlib_message(tmp_path, kind):
    """Without matplotlib (whose package data holds the font) every kind stops with the install hint and
    writes nothing; scores stops before reading its file (here a missing one, which would be another error)."""
    out = str(tmp_path / "a.png")
    argv = (["systems", "-R", QRELS, "-m", "map", RUNS[0], "-o", out] if kind == "systems"
            else ["scores", "-S", str(tmp_path / "nope.tsv"), "-o", out])
    code = f"import sys; sys.modules['matplotlib'] = None\nfrom pref_eval.cli.plot import main\nmain({argv!r})"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 2
    assert res.stderr.strip() == ("zelo_plot: matplotlib is not installed: install pref_eval[plot] "
                                  "(pip install 'pref_eval[plot]')")
    assert not (tmp_path / "a.png").exists()


def test_help_does_not_import_matplotlib():
    res = subprocess.run([sys.executable, "-c", "import sys; import pref_eval.cli.plot; "
                          "print(sorted(m for m in ('matplotlib', 'numpy', 'pandas', 'scipy') if m in sys.modules))"],
                         capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.stdout.strip() == "[]"
