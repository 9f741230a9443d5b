"""zelo_plot -P on a per-query file in the runi/runj layout (``zelo_eval -q`` with a preference measure):
a metric's pair rows (its per-pair differences) are left out, as ``zelo_compare -P`` does -- the plotted values
are the per-run values ``pref_eval.evaluate`` gives (trec_eval-exact); a preference measure (values per pair
only) is refused in one line naming the file. Before, every such file was refused: "two values for run"."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT  # noqa: E402

QRELS = str(ROOT / "qrels" / "dl19-sample.qrels")
RUNS = [str(ROOT / "runs" / f"{r}.run") for r in ("bm25", "dense", "rerank")]

pytest.importorskip("matplotlib", reason="matplotlib not installed (pip install 'pref_eval[plot]')")


def _cli(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "bin" / argv[0]), *argv[1:]], capture_output=True,
                          text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def pair_file(tmp_path_factory) -> Path:
    from pref_eval.cli.eval import main

    out = tmp_path_factory.mktemp("pq") / "pq.tsv"
    with pytest.raises(SystemExit) as exc:
        main(["-q", "-m", "map", "-m", "rpp", "-o", "tsv", "-R", QRELS, *RUNS, "--output", str(out), "-Q"])
    assert exc.value.code == 0
    text = out.read_text()
    assert text.startswith("runi\trunj\t") and "\tmap\t" in text and "\trpp\t" in text
    return out


def test_metric_values_are_the_per_run_rows(pair_file):
    import pref_eval
    from pref_eval.plot.data import load_values

    table, name = load_values(None, (), str(pair_file), "map")
    assert name == "map"
    got = {(Path(r).stem, q): v for r, q, v in zip(table["run"], table["qid"], table["value"], strict=True)}
    ref = pref_eval.evaluate(QRELS, RUNS, ["map"])
    ref = ref[ref["qid"] != "all"]
    want = {(Path(r).stem, q): v for r, q, v in zip(ref["run"], ref["qid"], ref["value"], strict=True)}
    assert got == want


@pytest.mark.parametrize("kind", ["systems", "pairs"])
def test_plot_from_pair_file_equals_plain_file(pair_file, tmp_path, kind):
    plain = tmp_path / "plain.tsv"
    r = _cli("zelo_eval", "-q", "-m", "map", "-o", "tsv", "-R", QRELS, *RUNS, "--output", str(plain), "-Q")
    assert r.returncode == 0, r.stderr
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    for src, dst in ((pair_file, a), (plain, b)):
        r = _cli("zelo_plot", kind, "-P", str(src), "-m", "map", "-o", str(dst), "-Q")
        assert r.returncode == 0, r.stderr
    assert a.read_bytes() == b.read_bytes()


def test_preference_measure_refused_in_one_line(pair_file, tmp_path):
    out = tmp_path / "x.svg"
    r = _cli("zelo_plot", "systems", "-P", str(pair_file), "-m", "rpp", "-o", str(out))
    assert r.returncode == 2 and not out.exists()
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "pq.tsv: rpp: values per pair of runs" in r.stderr and "zelo_compare -P" in r.stderr
