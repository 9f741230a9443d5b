"""Behaviour of pref_eval/judge/redact.py no test saw, found by its mutants (session 29, c39: ``tools/mutants.py
gen`` on the module after j39's change, each mutant run against the redactor's unit tests). Each test was checked
to fail on the mutants it names. Oracles: the standard library's encoders (``urllib.parse.quote``), Unicode's
character properties (``unicodedata``: the format characters, category Cf, are invisible) and the module's
documented rules (docs/zelo_judge.md: escapes of escapes up to 3 deep; a key cut by white space or invisible
characters is one run; visible separators are not removed).
"""
from __future__ import annotations

import unicodedata
from urllib.parse import quote

import pytest

from pref_eval.judge.redact import Redactor

AWS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # AWS's documented example secret key: '/' gets escaped
OPENAI_KEY = "sk-proj-Qx7Lm2Vb9Rt4Nw8Kc3Hy6Jd1Fg5Zs0Pa8Ue2Io4Xr"

# the invisible characters the module's docstring names: soft hyphen, Mongolian vowel separator, zero-width
# space, non-joiner, joiner, left-to-right and right-to-left marks, the bidi embeddings and overrides, word joiner
# and the invisible operators, the BOM (zero-width no-break space)
INVISIBLE = [0xAD, 0x180E, *range(0x200B, 0x2010), *range(0x202A, 0x202F), *range(0x2060, 0x2065), 0xFEFF]


def _cut(key: str, sep: str, every: int) -> str:
    return sep.join(key[i:i + every] for i in range(0, len(key), every))


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_key_percent_encoded_up_to_three_times_is_one_run(depth):
    """A callback URL carried in a query parameter of another URL, logged by a proxy: the key's ``/`` as ``%2F``,
    ``%252F``, ``%25252F``. Escapes of escapes are decoded 3 deep (docs/zelo_judge.md), so the key is one run
    (mutant ``ROUNDS = 3`` -> 2: at depth 3 ``%2F`` and the 7 characters ``K7MDENG`` between the slashes stayed)."""
    enc = AWS_KEY
    for _ in range(depth):
        enc = quote(enc, safe="")
    assert enc.count("%") == 2 and enc != AWS_KEY
    assert Redactor(AWS_KEY)(f"GET /cb?next={enc}&x=1 403") == "GET /cb?next=***&x=1 403"


def test_the_invisible_characters_are_unicodes_format_characters():
    assert all(unicodedata.category(chr(c)) == "Cf" for c in INVISIBLE)


@pytest.mark.parametrize("code", INVISIBLE, ids=[f"U+{c:04X}" for c in INVISIBLE])
def test_a_key_cut_by_an_invisible_character_is_one_run(code):
    """The key with the character between every 3 of its characters (a soft hyphen a web page's hyphenation put
    in, a zero-width space, a BOM pasted between pieces): no piece is 8 characters long, yet the key is one run,
    replaced with its separators (mutants dropping a character from ``INVISIBLE``: ``0xAD`` -> ``0`` / ``172`` /
    ``174``, a range's bound moved in)."""
    cut = _cut(OPENAI_KEY, chr(code), 3)
    assert Redactor(OPENAI_KEY)(f"Incorrect API key provided: {cut}. See the docs") == \
        "Incorrect API key provided: ***. See the docs"


@pytest.mark.parametrize("code", [0x2010, 0x2011, 0xAC, 0xAE], ids=["U+2010", "U+2011", "U+00AC", "U+00AE"])
def test_a_visible_character_between_pieces_is_no_separator(code):
    """Visible characters are not removed (they would join ordinary words): the hyphen U+2010, the non-breaking
    hyphen, and the neighbours of the soft hyphen (the not sign, the registered sign) between pieces of 4 key
    characters leave the text as it is (mutants ``range(0x200B, 0x2010)`` -> ``0x2011``, ``0xAD`` -> ``172`` /
    ``174`` took one of them for an invisible character)."""
    assert unicodedata.category(chr(code)) != "Cf"
    text = f"pieces: {_cut(OPENAI_KEY[8:], chr(code), 4)}"
    assert Redactor(OPENAI_KEY)(text) == text


def test_four_key_bytes_in_hex_apart_are_ordinary_text():
    """Hex bytes apart by separators are the key's by runs of 16 digits, 8 of its bytes (docs/zelo_judge.md: 8
    digits turn up in hashes and ids of ordinary text): a fingerprint sharing the key's first 4 or 7 bytes is kept,
    8 bytes are replaced (mutant ``HEX_RUN = 2 * MIN_RUN`` -> ``1 * MIN_RUN`` replaced runs of 8 digits)."""
    from pref_eval.judge.redact import Redactor

    head = OPENAI_KEY.encode()
    for n in (4, 7):
        text = "cert fingerprint " + ":".join(f"{b:02x}" for b in head[:n] + b"\x9a\x01\x02") + " ok"
        assert Redactor(OPENAI_KEY)(text) == text
    text = "cert fingerprint " + ":".join(f"{b:02x}" for b in head[:8] + b"\x9a\x01\x02") + " ok"
    assert Redactor(OPENAI_KEY)(text) == "cert fingerprint ***:9a:01:02 ok"


def test_a_stream_is_looked_at_after_its_last_4096_characters():
    """docs/zelo_judge.md: a cmd: judge's standard error, each piece looked at after the last 4,096 characters
    before it -- no more (a long-running judge's whole history would be searched again on every write) and no
    fewer (mutants ``TAIL = 4096`` -> 0: the whole stream kept and searched each time; 4095)."""
    from pref_eval.judge.redact import Redactor, StreamRedactor

    seen: list[int] = []

    class Counting(Redactor):
        def spans(self, text: str) -> list[tuple[int, int]]:
            seen.append(len(text))
            return super().spans(text)

    stream = StreamRedactor(Counting(OPENAI_KEY))
    pieces = [f"step {i}: " + "x" * 990 + "\n" for i in range(10)]
    assert "".join(stream(p) for p in pieces) == "".join(pieces)
    assert seen == [min(4096, sum(map(len, pieces[:i]))) + len(pieces[i]) for i in range(10)]


def test_a_key_of_exactly_8_characters_gets_every_form():
    """Only a key shorter than 8 characters is redacted whole only; one of exactly 8 (a local server's token)
    is found in base64 inside HTTP Basic authentication, backwards and in hexadecimal too (mutant ``len(key) <
    MIN_RUN`` -> ``<=``). Oracle: ``base64.b64encode`` of ``user:KEY`` (RFC 7617) and ``bytes.hex``."""
    import base64

    from pref_eval.judge.redact import Redactor

    key = "t0k3n-42"
    basic = base64.b64encode(f"user:{key}".encode()).decode()
    assert basic == "dXNlcjp0MGszbi00Mg=="
    redact = Redactor(key)
    assert redact(f"Authorization: Basic {basic}") == "Authorization: Basic dXNlcjp***g=="
    assert redact(f"key={key[::-1]} end") == "key=*** end"
    assert redact(f"dump {key.encode().hex()} end") == "dump *** end"
    assert redact("dump " + ":".join(f"{b:02x}" for b in key.encode()) + " end") == "dump *** end"  # (mutant
    # ``len(key) >= MIN_RUN`` -> ``>`` for the bytes apart: no hex group for such a key)


@pytest.mark.parametrize("width, replaced", [(8, False), (10, False), (11, True), (12, True)])
def test_base64_of_base64_is_replaced_by_runs_of_11(width, replaced):
    """Base64 of the key's base64 (``base64.b64encode`` twice): runs of ceil(8 * 4 / 3) = 11 characters carry the
    information of 8 characters of the key's base64 and are replaced; 10 or fewer are left, as base64 of ordinary
    text may hold them (docs/zelo_judge.md; mutants of ``-(-MIN_RUN * 4 // 3)``: 4 -> 3 or 5, 3 -> 2 or 4)."""
    import base64

    from pref_eval.judge.redact import Redactor

    twice = base64.b64encode(base64.b64encode(OPENAI_KEY.encode())).decode()
    window = twice[20:20 + width]
    assert Redactor(OPENAI_KEY)(f"x {window} y") == ("x *** y" if replaced else f"x {window} y")


def test_a_short_key_in_a_long_text():
    """A local server's placeholder key (``EMPTY``: shorter than 8, redacted whole) in an answer longer than
    :data:`SHORT` characters, whose windows are looked up by their hashes: the key's one window has one hash,
    and a window hashing above it is clamped to the table's first entry (mutants ``at[at == len(hashes)] = 0`` ->
    1 / 2: an IndexError on every long text for such a key). Oracle: ``str.replace``."""
    from pref_eval.judge.redact import SHORT, Redactor

    text = "The model answered at length. " * 10 + "Bearer EMPTY was sent. " + "More words follow here. " * 5
    assert len(text) > SHORT
    assert Redactor("EMPTY")(text) == text.replace("EMPTY", "***")
    assert Redactor("EMPTY")(text.replace("EMPTY", "empt")) == text.replace("EMPTY", "empt")


def test_a_key_over_two_xxd_lines_is_one_run():
    """A 14-byte key over two lines of ``xxd`` (7 bytes a line: 14 digits, fewer than a run's 16 on either side):
    one run only once the dump's offsets and text columns are skipped. The key's bytes, from its first (``73`` in
    the group ``7873``) to its last (``33`` in ``3320``), are replaced (mutants of ``for g in (1, 3)``, the
    offset's and text column's groups: 0 masked whole lines, 2 the bytes -- both halves were left). Oracle: the
    layout of xxd (checked against the tool by test_dumps_are_those_of_xxd_and_hexdump)."""
    from test_judge_adversarial import xxd

    from pref_eval.judge.redact import Redactor

    key = "sk-FAKE-abc123"
    dump = xxd(b"Bearer: x" + key.encode() + b" end of the header line")
    assert dump.splitlines()[0].endswith("7873 6b2d 4641 4b45  Bearer: xsk-FAKE")
    assert dump.splitlines()[1].startswith("00000010: 2d61 6263 3132 3320")
    first, last = dump.index("7873") + 2, dump.index("3320") + 1
    # (since session 30 the last line's text column shows none of the key's 7 bytes there: c40)
    want = dump[:first] + "***" + dump[last + 1:].replace("  -abc123 end", "  *** end")
    assert Redactor(key)(dump) == want


def test_the_key_beside_its_hex_bytes_is_one_stretch():
    """The key followed at once by its bytes in hex apart by colons (a debug line printing a value and its dump):
    two runs found apart (the plain one, the hex one) that touch are one ``***`` -- ``Redactor.spans`` returns
    stretches apart from each other -- also after an earlier stretch (mutants of ``_merged``: ``inclusive`` False,
    ``<=`` -> ``<``, ``+ (1 ...)`` -> ``-``, ``1 if inclusive`` -> 0, ``out[-1]`` -> ``out[-0]``)."""
    from pref_eval.judge.redact import Redactor

    hexa = ":".join(f"{b:02x}" for b in OPENAI_KEY.encode())
    redact = Redactor(OPENAI_KEY)
    assert redact(f"a {OPENAI_KEY}{hexa} b") == "a *** b"
    assert redact(f"a {hexa}{OPENAI_KEY} b") == "a *** b"
    assert redact(f"x {OPENAI_KEY} y {OPENAI_KEY}{hexa} z") == "x *** y *** z"
    assert redact.spans(f"a {OPENAI_KEY}{hexa} b") == [(2, 2 + len(OPENAI_KEY) + len(hexa) - 1)]


def test_a_cut_key_in_a_long_text_beside_characters_beyond_the_bmp():
    """An answer longer than :data:`SHORT` (the windows looked up by their rolling hashes, the separators taken
    out by a table of code points) holding emoji (code points above U+FFFF) and the key cut by zero-width spaces
    and a soft hyphen, and the key plain: each replaced, the rest kept (mutants of ``_prefix`` / ``_windows`` /
    ``_squeezed``'s long path: the table's size and clamp, the hash's powers). Oracle: ``str.replace``."""
    from pref_eval.judge.redact import SHORT, Redactor

    cut = "\u200b".join(OPENAI_KEY[i:i + 5] for i in range(0, len(OPENAI_KEY), 5)).replace("Vb9", "V\u00adb9")
    text = "\U0001f600 fine " * 40 + f"token: {cut} and {OPENAI_KEY}. \U0001f680 end"
    assert len(text) > SHORT
    assert Redactor(OPENAI_KEY)(text) == text.replace(cut, "***").replace(OPENAI_KEY, "***")
