"""The SVG writer's XML escapes (pref_eval/plot/svg.py) give ``xml.sax.saxutils``'s output, written without that
module (session 27, t37: it imports urllib.request and with it http.client, email, ssl and socket -- 43 modules
``zelo_plot pairs`` and ``scores -o x.svg`` loaded, tests/test_startup_imports.py). Oracle: the standard library's
``xml.sax.saxutils.escape`` / ``quoteattr`` on the same (XML-safe) text."""
from __future__ import annotations

import random
from xml.sax import saxutils

import pytest

from pref_eval.plot import svg

HAND = ["", "plain", "a&b", "<run>", "x > y & y < z", 'say "hi"', "it's", "both \" and '", "\t\n\r", "&amp;",
        "tab\there", 'q"\'\n', "\x00\x07 control", "\ud800 lone", "\ufffe\uffff", "é ü 中 \U0001f600"]


@pytest.mark.parametrize("text", HAND)
def test_escapes_equal_saxutils_by_hand(text):
    safe = svg.xml_safe(text)
    assert svg.escape(text) == saxutils.escape(safe)
    assert svg.quoteattr(text) == saxutils.quoteattr(safe)


def test_escapes_equal_saxutils_on_random_texts():
    rng = random.Random(27)
    alphabet = "&<>\"'\t\n\r ab;#\x01\ufffd\u00e9"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        safe = svg.xml_safe(text)
        assert svg.escape(text) == saxutils.escape(safe), text
        assert svg.quoteattr(text) == saxutils.quoteattr(safe), text
