"""The `-o latex` tables compiled by a real TeX engine (pdflatex) and read back from the PDF (pdftotext):
every run name with LaTeX's specials prints as written, and the document compiles without an error.
tests/test_paper_table.py checks the same escaping with a text-mode reader written from the LaTeX rules
on every machine; this test is the engine itself, where it is installed (Debian: texlive-latex-base,
texlive-latex-recommended for booktabs, poppler-utils for pdftotext) -- skipped otherwise."""
from __future__ import annotations

import random
import shutil
import subprocess
import unicodedata

import pytest

from cli_harness import run_module_inproc

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (shutil.which("pdflatex") and shutil.which("pdftotext")),
                                 reason="pdflatex / pdftotext not installed")]

# every LaTeX special of the docs' list (\ & % $ # _ { } ~ ^ | < >), Latin-1 letters (T1 fonts)
NAMES = ["bm25_rm3", "T5-3B%", "a&b#$x$", "u{c}~^\\x", "pipe|x", "ünïcödé", "<b>x<i>"]
TOPICS = ["1", "2", "3", "4", "5", "6"]

# T1 fonts (as the ACM / IEEE / Springer templates load them): _ ~ ^ \\ are glyphs pdftotext reads back
PREAMBLE = ("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n"
            "\\usepackage{booktabs}\n\\begin{document}\n")
# LaTeX's default OT1 encoding, where a bare | < > would print as an em dash, ¡ and ¿
PREAMBLE_OT1 = PREAMBLE.replace("\\usepackage[T1]{fontenc}\n", "")


@pytest.fixture(scope="module")
def coll(tmp_path_factory):
    d = tmp_path_factory.mktemp("ltx")
    rng = random.Random(5)
    docs = [f"D{i}" for i in range(20)]
    rel = {t: {x: rng.choice([0, 1, 2]) for x in rng.sample(docs, 12)} for t in TOPICS}
    (d / "qrels").write_text("".join(f"{t} 0 {x} {g}\n" for t in TOPICS for x, g in rel[t].items()))
    runs = []
    for k, n in enumerate(NAMES):
        lines = []
        for t in TOPICS:
            score = {x: rng.random() + 0.3 * k * rel[t].get(x, 0) for x in docs}
            ranked = sorted(docs, key=lambda x: -score[x])[:15]
            lines += [f"{t} Q0 {x} {i + 1} {15 - i} tag\n" for i, x in enumerate(ranked)]
        (d / f"{n}.run").write_text("".join(lines))
        runs.append(d / f"{n}.run")
    return d, runs


def _compile(tmp_path, body: str, preamble: str = PREAMBLE) -> str:
    """pdflatex the table in a minimal article; the PDF's text (pdftotext, NFC, spaces collapsed)."""
    (tmp_path / "t.tex").write_text(preamble + body + "\n\\end{document}\n", encoding="utf-8")
    res = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"], cwd=tmp_path,
                         capture_output=True, text=True, errors="replace", timeout=120)
    log = (tmp_path / "t.log").read_text(errors="replace") if (tmp_path / "t.log").exists() else res.stdout
    assert res.returncode == 0, log[-3000:]
    assert "Missing character" not in log and "Undefined control sequence" not in log, log[-3000:]
    out = subprocess.run(["pdftotext", "-raw", "t.pdf", "-"], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout
    return " ".join(unicodedata.normalize("NFC", out).split())


def _names_printed(text: str, names) -> None:
    for n in names:
        assert n in text, (n, text)


def test_zelo_eval_latex_compiles_with_every_special(coll, tmp_path):
    d, runs = coll
    res = run_module_inproc("eval", ["-R", str(d / "qrels"), "-m", "map", "-m", "ndcg_cut.10", "-o", "latex",
                                     *map(str, runs)])
    assert res.returncode == 0, res.stderr
    text = _compile(tmp_path, res.stdout)
    _names_printed(text, [f"{n}.run" for n in NAMES] + ["ndcg_cut_10", "scipy.stats.ttest_rel"])


def test_zelo_compare_latex_metric_and_preference_tables_compile(coll, tmp_path):
    d, runs = coll
    res = run_module_inproc("compare", ["-R", str(d / "qrels"), "-m", "ndcg_cut.10", "-m", "rpp", "-o", "latex",
                                        "--tests", "t", *map(str, runs)])
    assert res.returncode == 0, res.stderr
    text = _compile(tmp_path, res.stdout)
    _names_printed(text, [f"{n}.run" for n in NAMES])


def test_zelo_agree_latex_compiles(tmp_path):
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[1]
    res = run_module_inproc("agree", ["-J", str(root / "judgments" / "dl21-gpt4o-sample.human"),
                                      "-J", str(root / "judgments" / "dl21-crowd-sample.txt"),
                                      "-n", "gpt_4o&co", "-n", "crowd~50%", "-o", "latex"])
    assert res.returncode == 0, res.stderr
    text = _compile(tmp_path, res.stdout)
    _names_printed(text, ["gpt_4o&co", "crowd~50%"])


def test_pipe_and_angle_brackets_print_as_written_in_the_default_ot1_encoding(coll, tmp_path):
    d, runs = coll
    picked = [r for r in runs if r.stem in ("pipe|x", "<b>x<i>", "bm25_rm3")]
    res = run_module_inproc("eval", ["-R", str(d / "qrels"), "-m", "map", "-o", "latex", *map(str, picked)])
    assert res.returncode == 0, res.stderr
    text = _compile(tmp_path, res.stdout, PREAMBLE_OT1)
    _names_printed(text, ["pipe|x.run", "<b>x<i>.run"])
    assert not set("\u2014\u00a1\u00bf") & set(text), text


def test_zelo_eval_topics_latex_longtable_compiles(coll, tmp_path):
    """-o topics-latex (session 23): a longtable; the run names as column heads (three runs a table: a column a
    run, wider ones leave the page), the measures' underscores, the caption."""
    d, runs = coll
    for k in range(0, len(runs), 3):
        res = run_module_inproc("eval", ["-R", str(d / "qrels"), "-m", "map", "-m", "num_rel_ret", "-c", "-o",
                                         "topics-latex", "--median", "upper", *map(str, runs[k:k + 3])])
        assert res.returncode == 0, res.stderr
        text = _compile(tmp_path, res.stdout, PREAMBLE.replace("{booktabs}", "{booktabs,longtable}"))
        _names_printed(text, [f"{n}.run" for n in NAMES[k:k + 3]] + ["num_rel_ret", "NIST's upper median"])
        text = _compile(tmp_path, res.stdout, PREAMBLE_OT1.replace("{booktabs}", "{booktabs,longtable}"))
        _names_printed(text, [f"{n}.run" for n in NAMES[k:k + 3] if n in ("pipe|x", "<b>x<i>")])
        assert not set("\u2014\u00a1\u00bf") & set(text), text


def test_zelo_eval_topics_latex_per_run_type_compiles(coll, tmp_path):
    """-o topics-latex --run-types --quartiles (session 24): the type column left-aligned and escaped (an
    underscore, an ampersand), q1 / q3 beside the median."""
    d, runs = coll
    paths = []
    for k, r in enumerate(runs[:2]):
        p = tmp_path / f"typed{k}.run"
        p.write_text(r.read_text().replace(" tag\n", f" r{k}\n"))
        paths.append(str(p))
    (tmp_path / "types.txt").write_text("r0 auto_matic\nr1 man&ual\n")
    res = run_module_inproc("eval", ["-R", str(d / "qrels"), "-m", "map", "-c", "-o", "topics-latex", "--run-types",
                                     str(tmp_path / "types.txt"), "--quartiles", *paths])
    assert res.returncode == 0, res.stderr
    assert "\\begin{longtable}{lll" + "r" * 8 + "}" in res.stdout
    text = _compile(tmp_path, res.stdout, PREAMBLE.replace("{booktabs}", "{booktabs,longtable}"))
    _names_printed(text, ["auto_matic", "man&ual", "q1", "q3", "typed0.run"])
