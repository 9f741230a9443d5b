"""Behaviour no test saw, found by mutants (session 30, c40: ``tools/mutants.py gen``; each test checked to fail on
the mutants it names): pref_eval/judge/redact.py's merging of stretches and rolling hash (c39's four open mutants),
and k39's NTCIREVAL measures (pref_eval/measures/qmeasure.py, nerr.py). Oracles: ``str.replace``, the dump of the
key alone, NTCIREVAL's printed values (tests/data/ntcir) and hand-worked examples of the measures' definitions.
"""
from __future__ import annotations

import pytest

from pref_eval.judge.redact import SHORT, Redactor

OPENAI_KEY = "sk-proj-Qx7Lm2Vb9Rt4Nw8Kc3Hy6Jd1Fg5Zs0Pa8Ue2Io4Xr"
AWS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
LETTERS_KEY = "skXprojXQxyLmzVgqRtwNwuKhvHyrJisGgtZsuPovUnwIoxXr"  # letters g-z: none is a hex digit


@pytest.mark.parametrize("key", [OPENAI_KEY, AWS_KEY, LETTERS_KEY, "EMPTY-placeholder"])
def test_a_key_anywhere_in_a_long_text_is_replaced_whole(key):
    """A text longer than :data:`SHORT` (its windows looked up by their rolling hashes): the key at an odd or an
    even offset is replaced whole, not a character of it left. The hash of a window at offset i is
    ``sum(code[i + j] * MULT**(i + j)) * MULT**-i`` modulo 2**64: with the inverse taken modulo 2**63 (mutant of
    ``pow(_MULT, -1, 1 << 64)``, c39's 319) ``MULT * inverse`` is 1 + 2**63, so a window's hash at an odd offset
    differs from the same window's at an even one by 2**63 when the window's sum is odd: the key's first or last
    window is missed and its first or last character shown. Oracle: ``str.replace``."""
    for before in range(SHORT, SHORT + 4):
        text = "x" * before + key + " and after it the answer goes on."
        assert Redactor(key)(text) == text.replace(key, "***"), before


def test_a_dump_after_an_earlier_mention_is_redacted_as_the_dump_alone():
    """The key mentioned, then dumped by xxd over four lines after a line of other bytes: the dump's hex run is
    one stretch from the key's first byte to its last, and the runs of key characters in its text columns lie
    inside it (nested). A nested stretch must not cut the one holding it: ``max(out[-1][1], b)`` in ``_merged``
    -> ``out[-0]`` (the first stretch, the earlier mention) or ``out[-1][0]`` (c39's 300, 302) ended the dump's
    stretch at the nested run's end, showing the key's later bytes. Oracle: the dump redacted alone, and the
    key's characters and bytes looked for in it."""
    from test_judge_adversarial import xxd

    redact = Redactor(LETTERS_KEY)
    dump = xxd(b"0123456789ABCDEF" + b"AB= " + LETTERS_KEY.encode() + b"\n")
    alone = redact(dump)
    assert alone.splitlines()[0] == dump.splitlines()[0]  # (other bytes: kept)
    assert redact(f"key: {LETTERS_KEY}\n" + dump) == "key: ***\n" + alone
    rest = alone.replace("***", " ")
    assert not [c for c in rest if c in "ghijklmnopqrstuvwxyzGHIJKLMNOPQRSTUVWXYZ"], alone  # no key character
    digits = "".join(c for c in rest.lower() if c in "0123456789abcdef")
    raw = LETTERS_KEY.encode()
    assert not [raw[i:i + 2].hex() for i in range(len(raw) - 1) if raw[i:i + 2].hex() in digits], alone  # no bytes


def _evaluate(tmp_path, qrels: str, run: str, names: list[str]) -> dict:
    import pref_eval

    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    df = pref_eval.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), names)
    return {(m, q): v for m, q, v in zip(df.measure, df.qid, df.value, strict=True)}


def test_q_and_nerr_of_a_query_without_a_relevant_document_are_0(tmp_path):
    """t1: one document of grade 2, found at rank 2 behind a judged 0 -- Q = BR(2) / R = (β·2 + 1) / (β·2 + 2)
    = 3/4 (cg* held at the total 2 below rank R = 1), Q@10 the same (divided by min(10, 1)), nERR(H=2)@10 =
    (1/2 · 2/3) / (2/3) = 1/2; t2: judged documents of grade 0 only (R = 0): 0 for each, as the measures'
    docstrings say (NTCIREVAL skips such a topic), not 0/0 (mutant ``where=den > 0`` -> ``>=``: nan). ``Q_cut``
    without cutoffs is Q_cut.10 and Q_cut.1000 (its documented defaults: mutants of ``defaults=(10, 1000)``)."""
    got = _evaluate(tmp_path, "t1 0 a 2\nt1 0 b 0\nt2 0 c 0\nt2 0 d 0\n",
                    "t1 Q0 b 1 3 s\nt1 Q0 a 2 2 s\nt2 Q0 c 1 3 s\nt2 Q0 e 2 2 s\n",
                    ["Q", "Q@10", "Q_cut", "nERR(max_rel=2)@10"])
    names = ["Q", "Q@10", "Q_cut_10", "Q_cut_1000", "nERR(max_rel=2)@10"]
    assert [got[n, "t1"] for n in names] == pytest.approx([0.75, 0.75, 0.75, 0.75, 0.5], abs=1e-12)
    assert [got[n, "t2"] for n in names] == [0.0] * 5
    assert sorted({m for m, _ in got}) == sorted(names)


def test_nerr_of_a_run_missing_the_top_grade(tmp_path):
    """The run retrieves only the grade-1 document, the grade-2 one is judged but not retrieved (in the whole
    collection): with H = 2, stops 1/3 and 2/3; ERR@10 of the run 1/3, of the ideal list (grade 2, then 1)
    2/3 + 1/2 · 1/3 · (1 - 2/3) = 13/18: nERR = 6/13. A judged grade above max_rel is refused also when no run
    retrieves it (mutant ``top = max(run's, judged)`` -> ``min``: an IndexError, and no refusal)."""
    from pref_eval.errors import EvaluationError

    got = _evaluate(tmp_path, "t1 0 a 2\nt1 0 b 1\n", "t1 Q0 b 1 3 s\nt1 Q0 c 2 2 s\n", ["nERR(max_rel=2)@10"])
    assert got["nERR(max_rel=2)@10", "t1"] == pytest.approx(6 / 13, abs=1e-12)
    with pytest.raises(EvaluationError, match="grade 3 above max_rel=2"):
        _evaluate(tmp_path, "t1 0 a 3\nt1 0 b 1\n", "t1 Q0 b 1 3 s\n", ["nERR(max_rel=2)@10"])
