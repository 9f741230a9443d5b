"""A `cmd:` judge (or a proxy) printing the API key as a dump (session 30, c40): the dumps are made live by the
tools themselves (xxd, hexdump, od: the oracle of what a dump looks like; a tool not installed is skipped), the key
at every offset of a line, and the redacted dump must show none of the key -- not its bytes in hexadecimal (as
written or as little-endian words: ``od -x``, ``hexdump``, ``xxd -e``), not its characters in a text column
(``xxd``, ``hexdump -C``, ``od -tx1z``: also a last line holding fewer than 8 of them), not its characters in a
character dump (``od -c``, ``hexdump -c``, ``od -a``: 16 a line, between offsets).
"""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from pref_eval.judge.redact import Redactor

# letters g-z only: any of them left in a redacted dump of the key and dots is the key's (offsets, hex digits and
# the dots are 0-9, a-f, '.', ':' and '|'); ``nul``-free fillers (od -a names a NUL byte ``nul``)
KEY = "skXprojXQxyLmzVgqRtwNwuKhvHyrJisGgtZsuPovUnwIoxXr"
TOOLS = [["xxd"], ["xxd", "-g1"], ["xxd", "-e"], ["xxd", "-c", "8"], ["xxd", "-p"], ["hexdump", "-C"],
         ["hexdump"], ["hexdump", "-x"], ["hexdump", "-c"], ["od", "-x"], ["od", "-c"], ["od", "-a"],
         ["od", "-An", "-tx1"], ["od", "-An", "-x"], ["od", "-An", "-c"], ["od", "-tx1"], ["od", "-tx1z"],
         ["od", "-tx4"], ["od", "-tx8"], ["od", "-tx1", "-w8"]]


def dump(tool: list[str], data: bytes) -> str:
    if shutil.which(tool[0]) is None:
        pytest.skip(f"{tool[0]} not installed")
    return subprocess.run(tool, input=data, capture_output=True, check=True).stdout.decode("latin-1")


def shown(text: str, key: str = KEY) -> list[str]:
    """What of ``key`` ``text`` shows: its letters outside ``***``, and two of its bytes side by side in hex
    (as written or swapped: a little-endian word) once everything but hex digits is taken out."""
    bare = text.replace("***", " ")
    found = re.findall(r"[g-zG-Z]+", bare)
    digits = re.sub(r"[^0-9a-f]", "", bare.lower())
    raw = key.encode()
    return found + [raw[i:i + 2].hex() for i in range(len(raw) - 1)
                    if raw[i:i + 2].hex() in digits or raw[i:i + 2][::-1].hex() in digits]


def check(tool: list[str], before: int, after: int) -> None:
    data = b"." * before + KEY.encode() + b"." * after
    text = dump(tool, data)
    assert shown(text)  # (the dump shows the key)
    got = Redactor(KEY)(text)
    assert not shown(got), (" ".join(tool), before, after, text, got)
    if before >= 16 and tool not in (["xxd", "-c", "8"], ["od", "-tx1", "-w8"], ["xxd", "-p"]):
        assert got.splitlines()[0] == text.splitlines()[0]  # a line of other bytes is left as it is


@pytest.mark.parametrize("tool", TOOLS, ids=" ".join)
def test_a_dump_of_the_key_shows_none_of_it(tool):
    """The key 3, 9 and 14 bytes into a line (its last line holding 4, 10, 15 of its bytes), and after a line
    of other bytes (that line kept as it is)."""
    for before in (3, 9, 14, 16):
        check(tool, before, 5)


@pytest.mark.slow
@pytest.mark.parametrize("tool", TOOLS, ids=" ".join)
def test_a_dump_of_the_key_at_any_offset_shows_none_of_it(tool):
    for before in range(17):
        for after in (0, 1, 3, 9, 16):
            check(tool, before, after)


@pytest.mark.parametrize("tool", [["xxd"], ["hexdump", "-C"], ["od", "-x"], ["od", "-c"], ["xxd", "-e"]],
                         ids=" ".join)
def test_a_key_of_hex_digits_in_a_dump(tool):
    """A key whose characters are hex digits too (its text column looks like bytes): none of its 8-character
    windows, and none of its bytes' hex by runs of 4, left."""
    key = "sk-proj-deadbeef0123cafe4567abcd89ef"
    for before in (0, 5, 13):
        text = dump(tool, b"." * before + key.encode() + b"." * 7)
        got = Redactor(key)(text)
        bare = re.sub(r"\s", "", got)
        assert not [key[i:i + 8] for i in range(len(key) - 7) if key[i:i + 8] in bare], (tool, got)
        digits = re.sub(r"[^0-9a-f]", "", got.replace("***", " "))
        raw = key.encode()
        assert not [i for i in range(len(raw) - 3) if raw[i:i + 4].hex() in digits
                    or raw[i:i + 2][::-1].hex() + raw[i + 2:i + 4][::-1].hex() in digits], (tool, got)


def test_ordinary_dumps_are_left_alone():
    """Dumps of other bytes (every byte value, English text) are not touched by the key's redactor."""
    for tool in (["xxd"], ["hexdump", "-C"], ["od", "-x"], ["od", "-c"], ["xxd", "-e"], ["od", "-tx1z"]):
        for data in (bytes(range(256)), b"the quick brown fox jumps over the lazy dog " * 4):
            text = dump(tool, data)
            assert Redactor(KEY)(text) == text


@pytest.mark.parametrize("before", [0, 1, 6, 7])
def test_little_endian_words_are_replaced_word_for_word(before):
    """``od -x`` (live): the key's bytes in 16-bit words, each written high byte first. Replaced: from the first
    word holding a key byte to the last one, whole words, nothing before or after (the words of other bytes and
    the offsets outside the run kept). Oracle: od's layout -- word i holds bytes 2i and 2i + 1, eight words a line
    after a 7-digit offset. (Mutants of ``_digits``' positions of the swapped digits survived without it.)"""
    data = b"." * before + KEY.encode() + b"." * 9
    text = dump(["od", "-x"], data)
    words = [m for m in re.finditer(r"(?m)(?<=[ ])[0-9a-f]{4}\b", text)]  # every word after its line's offset
    assert len(words) == (len(data) + 1) // 2
    first, last = before // 2, (before + len(KEY) - 1) // 2
    want = text[:words[first].start()] + "***" + text[words[last].end():]
    assert Redactor(KEY)(text) == want
