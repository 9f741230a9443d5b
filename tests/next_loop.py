"""What tests/test_next_repeat.py and tests/test_judge_next_file_warning.py share (session 30, the D2
duplicate): the sample's qrels and texts for a two-topic adaptive state, and one command run in process.

Import from tests as ``from next_loop import QRELS, TOY_JUDGE, main_ok, write_texts``."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from conftest import ROOT

QRELS = ROOT / "qrels" / "dl19-sample.qrels"
TOY_JUDGE = f"cmd:{sys.executable} {ROOT / 'tools' / 'toy_judge.py'} {QRELS}"
"""tools/toy_judge.py on the sample's qrels: a seeded answer per (pair, repetition); add ``--noise 1``."""


def main_ok(module: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """``pref_eval.cli.<module>.main(argv)`` in process: its standard error, the test failed (showing it) unless
    it exits 0."""
    with pytest.raises(SystemExit) as exc:
        importlib.import_module(f"pref_eval.cli.{module}").main(argv)
    _, err = capsys.readouterr()
    assert exc.value.code in (0, None), err
    return err


def write_texts(path: Path) -> Path:
    """``path`` holding ``two.qrels`` (the sample's topics 1037798 and 1103812), ``d.tsv`` and ``q.tsv`` (a
    text for every document and query of the sample's qrels)."""
    lines = [ln.split() for ln in QRELS.read_text().splitlines()]
    two = [f for f in lines if f[0] in ("1037798", "1103812")]
    (path / "two.qrels").write_text("".join(" ".join(f) + "\n" for f in two))
    (path / "d.tsv").write_text("".join(f"{d}\tdocument {d}\n" for d in sorted({f[2] for f in lines})))
    (path / "q.tsv").write_text("".join(f"{q}\tquery {q}\n" for q in sorted({f[0] for f in lines})))
    return path
