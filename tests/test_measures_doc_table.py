"""docs/measures.md is generated from the measure registry and must not drift."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT  # noqa: E402
PAGE = ROOT / "docs" / "measures.md"
sys.path.insert(0, str(ROOT / "tools"))  # tools/doc_table.py: the docs generator
MINE = ("ndcg", "ndcg_cut", "ndcg_rel", "Rndcg", "dcg", "ideal_dcg", "G", "binG", "rbp", "rbp_resid",
        "unj", "judged", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "utility")


def generated() -> str:
    # a fresh interpreter: the registry holds exactly what `families` registers
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "doc_table.py")], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_committed_page_equals_generated_text():
    text = generated()
    assert PAGE.read_text(encoding="utf-8") == text, (
        "docs/measures.md is stale: run `python tools/doc_table.py > docs/measures.md`")


def test_every_registered_measure_has_a_row():
    code = ("from pref_eval.measures import registry; "
            "print('\\n'.join(sorted(registry())))")
    names = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           cwd=ROOT, timeout=120).stdout.split()
    text = generated()
    assert len(names) >= 40
    for n in names:
        assert f"| **{n}** |" in text, n


def test_table_columns_and_escaping():
    from pref_eval.measures import registry
    from doc_table import render_markdown  # tools/ (the docs generator)

    reg = registry()
    text = render_markdown(reg)
    rows = [ln for ln in text.splitlines() if ln.startswith("| **")]
    assert len(rows) == len(reg)
    for ln in rows:  # pipes inside formulas are escaped: every row has 9 cells
        cells = [c for c in ln.replace("\\|", "").split("|")[1:-1]]
        assert len(cells) == 9, ln
    row = {ln.split("|")[1].strip(" *"): ln for ln in rows}
    assert "`nDCG@k`" in row["ndcg_cut"] and "`ndcg_cut`" in row["ndcg_cut"]
    assert "— (not in trec_eval)" in row["judged"] and "`Judged@k`" in row["judged"]
    assert "| sum |" in row["num_ret"] and "geometric mean" in row["gm_map"]
    assert "| no |" in row["ndcg"] and "| yes |" in row["map"]
    for n in MINE:  # the families written with this page give a formula and a citation
        assert reg[n].formula and reg[n].citation, n
