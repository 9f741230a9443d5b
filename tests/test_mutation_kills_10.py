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
