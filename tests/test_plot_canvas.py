"""zelo_plot's own drawing layer (pref_eval/plot/canvas.py, png.py, svg.py, pdf.py; issue #13): the kinds
ported off matplotlib write PNG with Pillow and SVG as text. The SVG is read back with xml.etree and its
numbers are checked against the input computed here independently: each marker's x position, mapped
through the panel's own tick labels, is the document's score; each interval's ends are score ± z·se
with z from scipy.stats.norm; rows are in descending score order; the texts name the documents, the
queries and the axis. Same input → same bytes (PNG, SVG, PDF)."""
from __future__ import annotations

import csv
import io
import math
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT  # noqa: E402

JUDGE = str(ROOT / "judgments" / "dl19-sample.judge")
SVG = "{http://www.w3.org/2000/svg}"
PIL = pytest.importorskip("PIL.Image", reason="Pillow not installed (pip install 'pref_eval[plot]')")
pytest.importorskip("matplotlib", reason="matplotlib not installed (pip install 'pref_eval[plot]')")


def run_plot(argv, capsys):
    from pref_eval.cli.plot import main

    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


@pytest.fixture(scope="module")
def scores_tsv(tmp_path_factory):
    out = tmp_path_factory.mktemp("fit") / "scores.tsv"
    res = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", JUDGE, "-o", str(out)],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    return out


def read_tsv(path: Path) -> dict[str, list[tuple[str, float, float]]]:
    """qid → [(docno, score, se)] in file order (csv module, not pref_eval's reader)."""
    out: dict[str, list[tuple[str, float, float]]] = {}
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            out.setdefault(row["qid"], []).append((row["docno"], float(row["score"]), float(row["se"])))
    return out


def classes(e) -> set[str]:
    return set((e.get("class") or "").split())


def panel(root, k: int) -> list:
    return [e for e in root.iter() if f"panel-{k}" in classes(e)]


def of(elems, role: str) -> list:
    return [e for e in elems if role in classes(e)]


def x_map(elems):
    """Data value of an SVG x from the panel's tick labels (a least-squares line through them)."""
    ticks = of(elems, "tick-label")
    assert len(ticks) >= 3
    vals = [float(t.text.replace("\u2212", "-")) for t in ticks]
    xs = [float(t.get("x")) for t in ticks]
    slope, icept = np.polyfit(xs, vals, 1)
    resid = np.asarray(vals) - (slope * np.asarray(xs) + icept)
    assert np.abs(resid).max() < 1e-3 * (max(vals) - min(vals))  # the ticks are evenly placed
    return lambda x: slope * float(x) + icept, abs(slope)


def test_scores_svg_numbers_match_the_input(scores_tsv, tmp_path, capsys):
    from scipy.stats import norm

    out = tmp_path / "s.svg"
    code, _, err = run_plot(["scores", "-S", str(scores_tsv), "--top", "12", "--confidence", "0.9", "-o", str(out),
                             "-Q"], capsys)
    assert code == 0, err
    root = ET.parse(out).getroot()
    assert root.tag == f"{SVG}svg" and root.get("width") == "792pt" and root.get("height") == "432pt"
    data = read_tsv(scores_tsv)
    z = norm.ppf(0.95)
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "zELO scores with 90% intervals" in texts and f"score ± {z:.2f}·se" in texts
    for k, (qid, rows) in enumerate(list(data.items())[:3], start=1):
        elems = panel(root, k)
        assert [t.text for t in of(elems, "title")] == [f"query {qid} ({len(rows)} docs)"]
        assert [t.text for t in of(elems, "axis-label")] == ["zELO score"]
        best = sorted(rows, key=lambda r: -r[1])[:12]
        assert [t.text for t in of(elems, "doc-label")] == [d for d, _, _ in best]
        to_data, per_pt = x_map(elems)
        tol = 2e-3 * per_pt + 1e-9  # three decimals of a point
        markers = [m for m in of(elems, "marker") if "legend-handle" not in classes(m)]
        assert len(markers) == len(best)
        ys = [float(m.get("cy")) for m in markers]
        assert ys == sorted(ys) and len(set(ys)) == len(ys)  # best on top, one row each
        for m, (_, score, _) in zip(markers, best, strict=True):
            assert to_data(m.get("cx")) == pytest.approx(score, abs=tol)
        intervals = of(elems, "interval")
        assert len(intervals) == len(best)
        for line, (_, score, se) in zip(intervals, best, strict=True):
            (x0, y0), (x1, y1) = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
            assert y0 == y1
            assert to_data(x0) == pytest.approx(score - z * se, abs=tol)
            assert to_data(x1) == pytest.approx(score + z * se, abs=tol)
        # the x range holds every interval and 0, with a 5% margin on each side
        frame = of(elems, "frame")[0]
        left, right = float(frame.get("x")), float(frame.get("x")) + float(frame.get("width"))
        lo = min(0.0, *(s - z * e for _, s, e in best))
        hi = max(0.0, *(s + z * e for _, s, e in best))
        assert to_data(left) == pytest.approx(lo - 0.05 * (hi - lo), abs=tol)
        assert to_data(right) == pytest.approx(hi + 0.05 * (hi - lo), abs=tol)
        zero = of(elems, "zero")[0]
        assert to_data(zero.get("points").split()[0].split(",")[0]) == pytest.approx(0.0, abs=tol)


def test_scores_without_se_are_red_points(tmp_path, capsys):
    f = tmp_path / "z.tsv"
    f.write_text("qid\tdocno\tscore\tse\nq1\ta\t1.5\t0.5\nq1\tb\t-0.25\tnan\nq1\tc\t0.5\t0.25\n")
    out = tmp_path / "z.svg"
    assert run_plot(["scores", "-S", str(f), "-o", str(out), "-Q"], capsys)[0] == 0
    root = ET.parse(out).getroot()
    elems = panel(root, 1)
    markers = [m for m in of(elems, "marker") if "legend-handle" not in classes(m)]
    assert [m.get("fill") for m in markers] == ["#1f77b4", "#1f77b4", "#d62728"]  # tab:blue, tab:red
    assert len(of(elems, "interval")) == 2
    assert "no se" in [t.text for t in of(elems, "legend-label")]
    to_data, per_pt = x_map(elems)
    assert to_data(markers[2].get("cx")) == pytest.approx(-0.25, abs=2e-3 * per_pt)


def test_scores_png_pdf_and_same_bytes(scores_tsv, tmp_path, capsys):
    from PIL import Image

    for ext in ("png", "svg", "pdf"):
        a, b = tmp_path / f"a.{ext}", tmp_path / f"b.{ext}"
        for p in (a, b):
            code, _, err = run_plot(["scores", "-S", str(scores_tsv), "--width", "6", "--height", "4.5", "--dpi", "80",
                                     "-o", str(p)], capsys)
            assert code == 0 and f"wrote {p}" in err
        assert a.read_bytes() == b.read_bytes(), ext
    with Image.open(tmp_path / "a.png") as img:
        assert img.format == "PNG" and img.size == (480, 360)
        px = np.asarray(img.convert("RGB"), dtype=float)
        assert set(img.info) <= {"dpi"}  # no date or software text
    assert px.var() > 100, "blank image"
    blue = (np.abs(px - [31, 119, 180]).sum(axis=2) < 60).sum()  # tab:blue intervals and markers
    assert blue > 200
    assert (tmp_path / "a.pdf").read_bytes().startswith(b"%PDF")
    assert b"CreationDate" not in (tmp_path / "a.pdf").read_bytes()


def test_many_documents_have_no_names(tmp_path, capsys):
    rows = "".join(f"q\td{i}\t{math.sin(i):.6f}\t0.1\n" for i in range(45))
    f = tmp_path / "many.tsv"
    f.write_text("qid\tdocno\tscore\tse\n" + rows)
    out = tmp_path / "many.svg"
    assert run_plot(["scores", "-S", str(f), "-o", str(out), "-Q"], capsys)[0] == 0
    elems = panel(ET.parse(out).getroot(), 1)
    assert not of(elems, "doc-label") and len(of(elems, "interval")) == 45


def test_rotated_text_in_png_and_svg(tmp_path):
    """A text turned by 90° reads bottom to top: the SVG rotates it about its anchor, the PNG's ink is
    a tall narrow column above the anchor (start alignment)."""
    from PIL import Image

    from pref_eval.plot.canvas import Canvas
    from pref_eval.plot.png import png_bytes
    from pref_eval.plot.svg import svg_text

    c = Canvas(200, 200)
    c.text(100, 150, "rotated label", 12, rotation=90, va="baseline")
    root = ET.fromstring(svg_text(c))
    t = next(root.iter(f"{SVG}text"))
    assert t.get("transform") == "rotate(-90 100 150)" and t.text == "rotated label"
    img = np.asarray(Image.open(io.BytesIO(png_bytes(c, 72))).convert("L"))
    ys, xs = np.nonzero(img < 128)
    assert ys.max() <= 151 and ys.min() >= 150 - c.text_width("rotated label", 12) - 2
    assert xs.max() <= 101 and xs.min() >= 100 - 12
    assert ys.max() - ys.min() > 4 * (xs.max() - xs.min())


def test_text_widths_are_dejavu_advances():
    """DejaVu Sans's advance widths (units of 2048 per em, from the font's hmtx table read by fontTools):
    digits 1303 units, 'i' 569, 'm' 1995, 'W' 2025."""
    from pref_eval.plot.fonts import TextMeasure

    m = TextMeasure()
    fonttools = pytest.importorskip("fontTools.ttLib")
    hmtx = fonttools.TTFont(m.path)["hmtx"]
    for ch, name in [("0", "zero"), ("i", "i"), ("m", "m"), ("W", "W")]:
        assert m.width(ch * 10, 10.0) == pytest.approx(10 * hmtx[name][0] / 2048 * 10, rel=2e-3)
    assert m.width("0", 10.0) == pytest.approx(1303 / 2048 * 10, rel=2e-3)


# ---- nice ticks (Heckbert 1990) -----------------------------------------------------------

@pytest.mark.parametrize(("x", "rounded", "ceiled"), [
    (1.0, 1.0, 1.0), (1.4, 1.0, 2.0), (1.6, 2.0, 2.0), (2.9, 2.0, 5.0), (3.1, 5.0, 5.0), (6.9, 5.0, 10.0),
    (7.1, 10.0, 10.0), (0.034, 0.05, 0.05), (0.026, 0.02, 0.05), (4200.0, 5000.0, 5000.0), (13.6, 10.0, 20.0)])
def test_nice_number(x, rounded, ceiled):
    from pref_eval.plot.ticks import nice_number

    assert nice_number(x, True) == pytest.approx(rounded) and nice_number(x, False) == pytest.approx(ceiled)


def test_nice_ticks_are_nice_inside_and_labelled():
    from pref_eval.plot.ticks import nice_ticks, tick_label

    assert nice_ticks(-6.5, 7.1, 4) == ([-5.0, 0.0, 5.0], 0)
    assert nice_ticks(0.12, 0.47, 5) == ([0.2, 0.3, 0.4], 1)
    assert nice_ticks(0.0, 1.0, 6) == ([0.0, 0.2, 0.4, 0.6, 0.8, 1.0], 1)
    assert nice_ticks(-0.003, 0.0021, 4) == ([-0.002, 0.0, 0.002], 3)  # steps down 0.005 -> 0.002
    assert tick_label(-5.0, 0) == "\u22125" and tick_label(0.0, 1) == "0.0" and tick_label(-0.0004, 3) == "0.000"
    rng = np.random.default_rng(5)
    for _ in range(300):
        lo = float(rng.normal() * 10.0 ** rng.integers(-4, 5))
        hi = lo + float(rng.random() * 10.0 ** rng.integers(-4, 5)) + 1e-12
        n = int(rng.integers(2, 10))
        values, dec = nice_ticks(lo, hi, n)
        assert len(values) >= 3 and all(lo - 1e-9 * abs(lo) - 1e-12 <= v <= hi + 1e-9 * abs(hi) + 1e-12
                                        for v in values)
        steps = np.diff(values)
        step = float(steps[0])
        assert np.allclose(steps, step, rtol=1e-6)
        mant = step / 10 ** math.floor(math.log10(step) + 1e-9)
        rounding = 1e-12 * max(abs(v) for v in values) / step  # differences of large tick values
        assert min(abs(mant - m) for m in (1, 2, 5, 10)) < 1e-6 + 10 * rounding
        assert len({tick_label(v, dec) for v in values}) == len(values)


# ---- systems --------------------------------------------------------------------------------

def test_systems_svg_numbers_match_ir_measures_and_scipy(tmp_path, capsys):
    """Markers at the runs' mean AP (ir-measures, live), intervals at scipy's t interval, best on top,
    run names and letters as texts."""
    ir_measures = pytest.importorskip("ir_measures")
    from scipy import stats

    qrels = str(ROOT / "qrels" / "dl19-sample.qrels")
    runs = {r: str(ROOT / "runs" / f"{r}.run") for r in ("bm25", "dense", "rerank")}
    out = tmp_path / "sys.svg"
    code, _, err = run_plot(["systems", "-R", qrels, "-m", "map", "--confidence", "0.9", "--run-id", "path",
                             *runs.values(), "-o", str(out), "-Q"], capsys)
    assert code == 0, err
    per_q = {}
    for name, path in runs.items():
        vals = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.AP], ir_measures.read_trec_qrels(qrels),
                                                                      ir_measures.read_trec_run(path))}
        per_q[name] = vals
    common = sorted(set.intersection(*(set(v) for v in per_q.values())))
    expect = {}
    for name, vals in per_q.items():
        x = np.array([vals[q] for q in common])
        lo, hi = stats.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=x.std(ddof=1) / np.sqrt(len(x)))
        expect[name] = (x.mean(), lo, hi)
    best = sorted(expect, key=lambda r: -expect[r][0])
    root = ET.parse(out).getroot()
    elems = panel(root, 1)
    assert [t.text for t in of(elems, "row-label")] == [f"{r}.run" for r in best]
    assert [t.text for t in of(elems, "axis-label")] == [f"mean map over {len(common)} queries"]
    assert [t.text for t in of(elems, "title")] == ["runs by map"]
    assert all(t.text and set(t.text) <= set("abc") for t in of(elems, "letters"))
    to_data, per_pt = x_map(elems)
    tol = 2e-3 * per_pt
    markers = of(elems, "marker")
    assert [float(m.get("cy")) for m in markers] == sorted(float(m.get("cy")) for m in markers)
    for m, line, r in zip(markers, of(elems, "interval"), best, strict=True):
        mean, lo, hi = expect[r]
        assert to_data(m.get("cx")) == pytest.approx(mean, abs=tol)
        (x0, _), (x1, _) = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
        assert (to_data(x0), to_data(x1)) == pytest.approx((lo, hi), abs=tol)
    legend = [t.text for t in root.iter(f"{SVG}text") if "legend-label" in classes(t)]
    assert legend and legend[0].startswith("90% t intervals; same letter = not significantly different")


# ---- pairs ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["viridis", "RdBu"])
def test_colormaps_equal_matplotlib(name):
    """The tables read from matplotlib's sources give matplotlib's colours (matplotlib live)."""
    import matplotlib

    from pref_eval.plot.colormaps import colormap_table, hex_color, lookup

    table = colormap_table(name)
    cmap = matplotlib.colormaps[name]
    for v in [0.0, 1.0, 0.5, 1 / 256, 255 / 256, *np.random.default_rng(1).random(300)]:
        want = cmap(float(v))[:3]
        assert lookup(table, float(v)) == pytest.approx(want, abs=1e-12)
        assert hex_color(lookup(table, float(v))) == matplotlib.colors.to_hex(want)


def test_pairs_svg_cells_match_scipy_statsmodels(tmp_path, capsys):
    """Cell (A, B): Holm-corrected scipy ttest_rel p-value, coloured by matplotlib's viridis, written with
    3 significant digits and * below alpha; runs ordered best first; names along both sides."""
    import matplotlib
    from scipy import stats
    from statsmodels.stats.multitest import multipletests

    import pref_eval

    qrels = str(ROOT / "qrels" / "dl19-sample.qrels")
    paths = [str(ROOT / "runs" / f"{r}.run") for r in ("bm25", "dense", "rerank")]
    out = tmp_path / "pairs.svg"
    code, _, err = run_plot(["pairs", "-R", qrels, "-m", "P.10", "--alpha", "0.1", *paths, "-o", str(out), "-Q"],
                            capsys)
    assert code == 0, err
    df = pref_eval.evaluate(qrels, {Path(p).name: p for p in paths}, ["P.10"])
    wide = df.pivot_table(index="qid", columns="run", values="value").dropna()
    runs = sorted(wide.columns, key=lambda r: -wide[r].mean())
    pairs = [(a, b) for i, a in enumerate(runs) for b in runs[i + 1:]]
    p = [stats.ttest_rel(wide[a], wide[b]).pvalue for a, b in pairs]
    adj = dict(zip(pairs, multipletests(p, method="holm")[1], strict=True))
    root = ET.parse(out).getroot()
    elems = panel(root, 1)
    assert [t.text for t in of(elems, "row-label")] == runs == [t.text for t in of(elems, "column-label")]
    cells = of(elems, "cell")
    assert len(cells) == 9
    labels = iter(of(elems, "cell-label"))
    for i, a in enumerate(runs):
        for j, b in enumerate(runs):
            fill = cells[3 * i + j].get("fill")
            if i == j:
                assert fill == "#eeeeee"
                continue
            pv = adj.get((a, b), adj.get((b, a)))
            assert fill == matplotlib.colors.to_hex(matplotlib.colormaps["viridis"](pv))
            assert next(labels).text == f"{pv:.3g}" + ("*" if pv < 0.1 else "")
    assert "corrected p-value (t)" in [t.text for t in root.iter(f"{SVG}text")]


# ---- matrix ---------------------------------------------------------------------------------

def test_matrix_svg_cells_match_hand_counts(scores_tsv, tmp_path, capsys):
    """Cell (i, j) of both panels: W[i, j] / (W[i, j] + W[j, i]) counted from the judgment file's lines
    here, coloured by matplotlib's RdBu (live), grey when never compared; the second panel in the order
    of the -S scores file (highest first)."""
    import matplotlib

    qid = "1037798"
    out = tmp_path / "m.svg"
    code, _, err = run_plot(["matrix", "-J", JUDGE, "-q", qid, "-S", str(scores_tsv), "-o", str(out), "-Q"], capsys)
    assert code == 0, err
    lines = [ln.split() for ln in Path(JUDGE).read_text().splitlines() if ln.startswith(qid + " ")]
    docs = list(dict.fromkeys(d for _, a, b in lines for d in (a, b)))
    wins = {}
    for _, winner, loser in lines:
        wins[winner, loser] = wins.get((winner, loser), 0) + 1
    by_score = [d for d, _, _ in sorted(read_tsv(scores_tsv)[qid], key=lambda r: -r[1])]
    root = ET.parse(out).getroot()
    rdbu = matplotlib.colormaps["RdBu"]
    for k, order in ((1, docs), (2, by_score)):
        elems = panel(root, k)
        assert [t.text for t in of(elems, "row-label")] == order == [t.text for t in of(elems, "column-label")]
        cells = of(elems, "cell")
        assert len(cells) == len(order) ** 2
        for i, a in enumerate(order):
            for j, b in enumerate(order):
                w, lost = wins.get((a, b), 0), wins.get((b, a), 0)
                want = "#eeeeee" if i == j or w + lost == 0 else matplotlib.colors.to_hex(rdbu(w / (w + lost)))
                assert cells[i * len(order) + j].get("fill") == want
    texts = [t.text for t in root.iter(f"{SVG}text")]
    pairs = len({frozenset((a, b)) for _, a, b in lines})
    assert f"query {qid}: {len(docs)} documents, {pairs} compared pairs" in texts
    assert "share of comparisons the row document won" in texts


# ---- calibration ----------------------------------------------------------------------------

def test_calibration_svg_numbers_are_the_records(tmp_path, capsys):
    """Points at (predicted, observed) and stacked bars of the five shares per bucket, as in the
    zelo_agree records (read here with json); axes mapped through their own tick labels."""
    import json

    from pref_eval.agree.records import FIELDS
    from pref_eval.api import agree

    crowd, gpt = (str(ROOT / "judgments" / f) for f in ("dl21-crowd-sample.txt", "dl21-gpt4o-sample.human"))
    recs = agree([crowd, gpt], names=["crowd", "gpt4o"], levels=["calibration"], calibration="always", buckets=6,
                 resamples=0)
    src = tmp_path / "a.jsonl"
    src.write_text("".join(json.dumps({k: (None if isinstance(v, float) and np.isnan(v) else v)
                                       for k, v in zip(FIELDS, r.row(), strict=True)}) + "\n" for r in recs))
    out = tmp_path / "cal.svg"
    code, _, err = run_plot(["calibration", "-A", str(src), "-o", str(out), "-Q"], capsys)
    assert code == 0, err
    buckets: dict[int, dict[str, float]] = {}
    for line in src.read_text().splitlines():
        r = json.loads(line)
        name = r["statistic"]
        if name.startswith("bucket"):
            k, field = name[len("bucket"):].split(".")
            buckets.setdefault(int(k), {})[field] = r["value"]
    rows = [buckets[k] for k in sorted(buckets)]
    root = ET.parse(out).getroot()

    def y_map(elems):
        """(slope, intercept) of data y on the canvas y of the horizontal tick marks, paired with their labels."""
        marks = [[tuple(map(float, p.split(","))) for p in e.get("points").split()] for e in of(elems, "tick")]
        ys = [a[1] for a, b in marks if a[1] == b[1]]
        labels = [float(t.text.replace("\u2212", "-")) for t in of(elems, "y-tick-label")]
        assert len(ys) == len(labels) >= 3
        return np.polyfit(ys, labels, 1)

    left = panel(root, 1)
    to_x, px = x_map(left)
    slope, icept = y_map(left)
    markers = of(left, "marker")
    markers = [m for m in markers if "legend-handle" not in classes(m)]
    assert len(markers) == len(rows) and 2 <= len(rows) <= 7  # --buckets, + 1: the run of 1/2 on its own
    for m, row in zip(markers, rows, strict=True):
        assert to_x(m.get("cx")) == pytest.approx(row["predicted"], abs=2e-3 * px)
        assert slope * float(m.get("cy")) + icept == pytest.approx(row["observed"], abs=2e-3 * abs(slope))
    right = panel(root, 2)
    slope, _ = y_map(right)
    levels = ("share_0", "share_below_half", "share_half", "share_above_half", "share_1")
    for j, level in enumerate(levels):
        bars = [e for e in of(right, "bar") if f"level-{j}" in classes(e)]
        heights = [float(b.get("height")) * abs(slope) for b in bars]
        want = [row[level] for row in rows if row[level] > 0]
        assert heights == pytest.approx(want, abs=2e-3 * abs(slope))
    assert [t.text for t in of(right, "tick-label")] == [f"{row['predicted']:.2f}" for row in rows]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "calibration of gpt4o against crowd" in texts and "y = ½" in texts


CONTROL = "\x01\x1b\x7f"


@pytest.fixture()
def control_inputs(tmp_path):
    """Inputs whose ids hold control characters (allowed in ids, not in XML 1.0)."""
    (tmp_path / "z.tsv").write_text("qid\tdocno\tscore\tse\n"
                                    f"q{CONTROL}\ta{CONTROL}\t1.5\t0.5\nq{CONTROL}\tb\x01\t-0.25\t0.3\n")
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 d{d} {int(d < 3)}\n" for q in (1, 2, 3) for d in range(6)))
    for r, tag in ((0, f"r{CONTROL}x"), (1, "s\x02"), (2, "t")):
        (tmp_path / f"{r}.run").write_text("".join(f"{q} Q0 d{(d + r + q) % 6} {d + 1} {6 - d} {tag}\n"
                                                   for q in (1, 2, 3) for d in range(6)))
    (tmp_path / "j.judge").write_text(f"q1 a{CONTROL} b\x1f\nq1 b\x1f c\nq1 a{CONTROL} c\n")
    return tmp_path


@pytest.mark.parametrize("kind", ["scores", "systems", "pairs", "matrix"])
def test_svg_parses_with_control_characters_in_ids(kind, control_inputs, capsys):
    """Ids with U+0001, U+001B, U+007F: every kind's SVG is well-formed XML (read with xml.etree); the
    characters XML 1.0 does not allow are drawn as U+FFFD (was: an SVG no XML reader accepts)."""
    d = control_inputs
    runs = [str(d / f"{r}.run") for r in range(3)]
    argv = {"scores": ["scores", "-S", str(d / "z.tsv")],
            "systems": ["systems", "-R", str(d / "q.qrels"), "-m", "P.5", "--run-id", "tag", *runs],
            "pairs": ["pairs", "-R", str(d / "q.qrels"), "-m", "P.5", "--run-id", "tag", *runs],
            "matrix": ["matrix", "-J", str(d / "j.judge")]}[kind]
    out = d / f"{kind}.svg"
    code, _, err = run_plot([*argv, "-o", str(out), "-Q"], capsys)
    assert code == 0, err
    root = ET.parse(out).getroot()
    texts = "".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "\ufffd" in texts and "\x01" not in texts and "\x1b" not in texts


def _labels_apart(elems, role="tick-label"):
    """Tick labels (text, x) in order; neighbours' DejaVu extents do not overlap."""
    from pref_eval.plot.fonts import TextMeasure

    m = TextMeasure()
    ticks = sorted((float(t.get("x")), t.text, float(t.get("font-size"))) for t in of(elems, role))
    for (x0, t0, s0), (x1, t1, s1) in zip(ticks, ticks[1:], strict=False):
        assert x0 + m.width(t0, s0) / 2 < x1 - m.width(t1, s1) / 2, (t0, t1)
    return [t for _, t, _ in ticks]


@pytest.mark.parametrize("value", [0.5, 0.0, 1e-12])
def test_flat_data_gets_matplotlibs_nonsingular_range(value):
    """A single value is widened as matplotlib's locators widen it (transforms.nonsingular, expander 0.05)."""
    from matplotlib.transforms import nonsingular as mpl_nonsingular

    from pref_eval.plot.ticks import nonsingular

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated in matplotlib 3.11: still the behaviour of its locators
        expected = mpl_nonsingular(value, value, expander=0.05)
    assert nonsingular(value, value) == pytest.approx(expected)


def test_systems_with_no_spread_has_short_distinct_ticks(tmp_path, capsys):
    """All runs with mean 0.5 and no interval (one query): the axis is widened around 0.5 (was
    0.49999999992 … 0.50000000008, overlapping labels)."""
    f = tmp_path / "flat.tsv"
    f.write_text("run\tqid\tmeasure\tvalue\nA\t1\tmap\t0.5\nB\t1\tmap\t0.5\nC\t1\tmap\t0.5\n")
    out = tmp_path / "flat.svg"
    code, _, err = run_plot(["systems", "-P", str(f), "-m", "map", "-o", str(out), "-Q"], capsys)
    assert code == 0, err
    elems = panel(ET.parse(out).getroot(), 1)
    labels = _labels_apart(elems)
    assert len(labels) >= 3 and all(len(t) <= 5 for t in labels), labels
    to_data, _ = x_map(elems)
    assert to_data(of(elems, "marker")[0].get("cx")) == pytest.approx(0.5, abs=1e-3)
    vals = [float(t) for t in labels]
    assert min(vals) <= 0.49 and max(vals) >= 0.51


def test_huge_scores_have_compact_ticks(tmp_path, capsys):
    """A score of 1e300: tick labels in %g style (was 300-digit numbers), still a linear axis."""
    f = tmp_path / "big.tsv"
    f.write_text("qid\tdocno\tscore\tse\nq\ta\t1e300\t0.5\nq\tb\t0\t0.5\n")
    out = tmp_path / "big.svg"
    assert run_plot(["scores", "-S", str(f), "-o", str(out), "-Q"], capsys)[0] == 0
    elems = panel(ET.parse(out).getroot(), 1)
    labels = _labels_apart(elems)
    assert max(len(t) for t in labels) <= 6, labels
    to_data, _ = x_map(elems)
    assert to_data(of(elems, "marker")[0].get("cx")) == pytest.approx(1e300, rel=1e-3)


def test_png_strips_equal_the_whole_picture(scores_tsv, monkeypatch):
    """The supersampled shapes drawn in strips of 1, 3, 7 rows give the very pixels of one whole drawing."""
    from pref_eval.plot import png
    from pref_eval.plot.scores import draw_scores, read_scores_with_se

    data = read_scores_with_se(str(scores_tsv))
    canvas = draw_scores(data, list(data)[:3], 0.95, None, (6, 3.5))
    monkeypatch.setattr(png, "STRIP_PIXELS", 1 << 30)
    whole = png.png_bytes(canvas, 80)
    for rows in (1, 3, 7):
        monkeypatch.setattr(png, "STRIP_PIXELS", 480 * 16 * rows)
        assert png.png_bytes(canvas, 80) == whole, rows


@pytest.mark.slow  # a peak measured in a child process: slow (session 21, s30; docs/architecture.md, tests)
def test_large_png_memory_is_bounded(scores_tsv, tmp_path):
    """A 4000 × 3000 pixel PNG (``--width 20 --height 15 --dpi 200``) peaks below 400 MB resident (the whole
    4× supersampled picture alone was 576 MB). Measured as the child's own VmHWM (/proc/self/status: the
    high-water mark of its address space, reset at exec); getrusage's ru_maxrss is not, as Linux carries the
    forking parent's peak over exec (a pytest worker late in the suite is above 400 MB itself)."""
    code = ("import sys\nfrom pref_eval.cli.plot import main\n"
            "try:\n    main(sys.argv[1:])\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
            "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))")
    out = tmp_path / "big.png"
    res = subprocess.run([sys.executable, "-c", code, "scores", "-S", str(scores_tsv), "--width", "20",
                          "--height", "15", "--dpi", "200", "-o", str(out), "-Q"],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    with PIL.open(out) as img:
        assert img.size == (4000, 3000)
    assert int(res.stdout.split()[-1]) < 400_000, res.stdout  # KiB


def test_too_large_png_is_a_usage_error(tmp_path, capsys):
    """``--width 100 --height 100 --dpi 1200`` (120000² pixels): one line, exit 2, before any drawing; SVG is fine."""
    f = tmp_path / "z.tsv"
    f.write_text("qid\tdocno\tscore\tse\nq\ta\t1\t0.5\n")
    code, _, err = run_plot(["scores", "-S", str(f), "--width", "100", "--height", "100", "--dpi", "1200",
                             "-o", str(tmp_path / "x.png")], capsys)
    assert code == 2 and "120000 × 120000 pixel PNG" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x.png").exists()


def test_short_doc_labels_sit_next_to_the_panel(tmp_path, capsys):
    """One-letter ids are right-aligned 3.5 pt left of the panel's frame (were at x ≈ 4.5 pt, against the
    image's edge, ~12 pt left of the panel)."""
    f = tmp_path / "z.tsv"
    f.write_text("qid\tdocno\tscore\tse\nq\ta\t1.5\t0.5\nq\tb\t-0.25\t0.3\n")
    out = tmp_path / "z.svg"
    assert run_plot(["scores", "-S", str(f), "-o", str(out), "-Q"], capsys)[0] == 0
    elems = panel(ET.parse(out).getroot(), 1)
    x0 = float(of(elems, "frame")[0].get("x"))
    labels = of(elems, "doc-label")
    assert [t.text for t in labels] == ["a", "b"]
    for t in labels:
        assert t.get("text-anchor") == "end" and x0 - float(t.get("x")) == pytest.approx(3.5, abs=0.01)


def test_pdf_missing_glyphs_one_warning_or_none(tmp_path):
    """CJK names in a PDF: matplotlib's "Glyph … missing from font(s) DejaVu Sans" UserWarnings (one per
    character, with source lines) become one ``zelo_plot: warning:`` line; ``-Q`` prints nothing."""
    f = tmp_path / "cjk.tsv"
    f.write_text("qid\tdocno\tscore\tse\nq\t文書\t1.5\t0.5\nq\t検索\t-0.25\t0.3\n", encoding="utf-8")
    out = tmp_path / "cjk.pdf"
    for quiet in (True, False):
        res = subprocess.run([sys.executable, "-m", "pref_eval.cli.plot", "scores", "-S", str(f), "-o", str(out),
                              *(["-Q"] if quiet else [])], capture_output=True, text=True, cwd=ROOT)
        assert res.returncode == 0, res.stderr
        lines = res.stderr.splitlines()
        if quiet:
            assert lines == []
        else:
            assert len(lines) == 2 and lines[0].startswith("zelo_plot: warning: 4 characters have no glyph")
            assert lines[1] == f"zelo_plot: wrote {out}"


def test_scores_on_the_elo_scale_have_no_zero(tmp_path, capsys):
    """``zelo_fit --scale elo`` output (header column ``scale``): the x axis spans the intervals only, no
    zero line (0 was drawn and included, squeezing intervals around 1500 into a sliver)."""
    elo = tmp_path / "elo.tsv"
    res = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", JUDGE, "--scale", "elo", "-o", str(elo)],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    out = tmp_path / "elo.svg"
    assert run_plot(["scores", "-S", str(elo), "-o", str(out), "-Q"], capsys)[0] == 0
    rows: dict[str, list[tuple[float, float]]] = {}
    with open(elo, newline="") as fh:
        for r in csv.DictReader(fh, delimiter="\t"):
            rows.setdefault(r["qid"], []).append((float(r["score"]), float(r["se"])))
    z = 1.959963984540054
    first = next(iter(rows.values()))
    lo = min(s - z * se for s, se in first if math.isfinite(se))
    hi = max(s + z * se for s, se in first if math.isfinite(se))
    elems = panel(ET.parse(out).getroot(), 1)
    assert not of(elems, "zero")
    to_data, _ = x_map(elems)
    frame_ = of(elems, "frame")[0]
    left, right = to_data(frame_.get("x")), to_data(float(frame_.get("x")) + float(frame_.get("width")))
    pad = 0.05 * (hi - lo)
    assert left == pytest.approx(lo - pad, rel=1e-3) and right == pytest.approx(hi + pad, rel=1e-3)


def _svg_size(root) -> float:
    return float(root.get("viewBox").split()[2])


@pytest.mark.parametrize("kind", ["scores", "systems", "pairs"])
def test_long_names_are_cut_with_an_ellipsis(kind, tmp_path, capsys):
    """A 180-character id: its label ends in "…", starts inside the picture, and the panel keeps at least
    40 % of the width (the name ran off the left edge and squeezed the panel)."""
    from pref_eval.plot.fonts import TextMeasure

    long = "x" * 180
    (tmp_path / "z.tsv").write_text(f"qid\tdocno\tscore\tse\nq\t{long}\t1.5\t0.5\nq\tb\t-0.25\t0.3\n")
    (tmp_path / "p.tsv").write_text("run\tqid\tmeasure\tvalue\n" + "".join(
        f"{r}\t{q}\tmap\t{v}\n" for r, vs in ((long, (0.5, 0.3, 0.4)), ("B", (0.4, 0.2, 0.1)), ("C", (0.1, 0.2, 0.3)))
        for q, v in enumerate(vs)))
    argv = {"scores": ["scores", "-S", str(tmp_path / "z.tsv")],
            "systems": ["systems", "-P", str(tmp_path / "p.tsv"), "-m", "map"],
            "pairs": ["pairs", "-P", str(tmp_path / "p.tsv"), "-m", "map"]}[kind]
    out = tmp_path / f"{kind}.svg"
    code, _, err = run_plot([*argv, "-o", str(out), "-Q"], capsys)
    assert code == 0, err
    root = ET.parse(out).getroot()
    m = TextMeasure()
    labels = [t for t in root.iter(f"{SVG}text") if classes(t) & {"doc-label", "row-label"}]
    cut = [t for t in labels if t.text.startswith("xxx")]
    assert cut and all(t.text.endswith("\u2026") and len(t.text) < 180 for t in cut)
    for t in labels:
        assert float(t.get("x")) - m.width(t.text, float(t.get("font-size"))) >= 0, t.text
    frame_ = [e for e in root.iter() if "frame" in classes(e) and "panel-1" in classes(e)][0]
    assert float(frame_.get("width")) >= 0.4 * _svg_size(root)


def test_many_queries_wrap_into_rows(tmp_path, capsys):
    """``scores --max-queries 12``: panels 5 a row (3 rows), none overlapping (was 12 slivers in one row)."""
    f = tmp_path / "many.tsv"
    f.write_text("qid\tdocno\tscore\tse\n" + "".join(f"q{q}\td{d}\t{math.sin(q + d):.4f}\t0.2\n"
                                                   for q in range(12) for d in range(6)))
    out = tmp_path / "many.svg"
    assert run_plot(["scores", "-S", str(f), "--max-queries", "12", "-o", str(out), "-Q"], capsys)[0] == 0
    root = ET.parse(out).getroot()
    frames = [[float(e.get(a)) for a in ("x", "y", "width", "height")]
              for k in range(1, 13) for e in of(panel(root, k), "frame")]
    assert len(frames) == 12
    assert len({round(y) for _, y, _, _ in frames}) == 3 and len({round(x) for x, _, _, _ in frames}) == 5
    for i, (x, y, w, h) in enumerate(frames):
        assert w >= 0.1 * _svg_size(root)
        for x2, y2, w2, h2 in frames[i + 1:]:
            assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y


def test_many_runs_labels_do_not_overlap(tmp_path, capsys):
    """65 runs in ``systems``: neighbouring run labels are at least a line of their font apart."""
    f = tmp_path / "p.tsv"
    f.write_text("run\tqid\tmeasure\tvalue\n" + "".join(f"run{r:02d}\t{q}\tmap\t{(r * 7 + q * 3) % 11 / 10}\n"
                                                       for r in range(65) for q in range(4)))
    out = tmp_path / "sys.svg"
    code, _, err = run_plot(["systems", "-P", str(f), "-m", "map", "-o", str(out), "-Q"], capsys)
    assert code == 0, err
    labels = of(panel(ET.parse(out).getroot(), 1), "row-label")
    assert len(labels) == 65
    ys = sorted(float(t.get("y")) for t in labels)
    size = float(labels[0].get("font-size"))
    assert min(np.diff(ys)) >= 1.2 * size - 1e-6
