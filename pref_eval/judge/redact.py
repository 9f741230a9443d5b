"""The API key out of every text zelo_judge keeps or shows: messages, stored answers, exceptions, a judge
program's standard error.

A server -- or a debugging proxy in front of it -- may echo the request's ``Authorization`` header, and a
judge program may print its environment, whole or in part, and in any of the encodings text on the web goes
through. :class:`Redactor` replaces with ``***``:

- every run of at least :data:`MIN_RUN` characters that is a substring of the key: the key cut anywhere (its
  first 20 characters, its last 8, a line-wrapped half);
- the same runs written with escapes, mixed in any way: percent-encoding (``%2F``, ``%2f``), JSON's
  ``\\uXXXX``, ``\\/``, ``\\"``, ``\\\\``, HTML's numeric character references (``&#47;``, ``&#x2F;``);
- the key in base64 (standard or URL-safe alphabet, at any of the three alignments, so also inside
  ``base64("user:" + KEY)`` of HTTP Basic authentication), and runs of at least :data:`MIN_RUN` characters of
  it.

Why 8 characters: servers show up to 4 on purpose to name a key without giving it away (OpenAI's "Incorrect
API key provided: sk-proj-****abcd" keeps the last 4), and shorter windows of a key are likely in ordinary
text (a 4-character window of a key matches English words and ids), which would mangle answers; 8 random key
characters are not met by chance, and 8 characters of a 40-160-character key are useless to an attacker. The
8-character prefix ``sk-proj-`` that every key of a kind shares is redacted too (harmless). A key shorter than
8 characters (a local server's placeholder such as ``EMPTY``) is redacted whole only, as itself or escaped.
"""
from __future__ import annotations

import base64
import re
from typing import Any

MIN_RUN = 8  # the shortest run of key characters replaced (see the module's docstring)

# one escaped character: %XX | \uXXXX | \/ \" \\ | &#DDD; | &#xHH;
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})|\\u([0-9A-Fa-f]{4})|\\([/\"\\])|&#([0-9]{1,7});|&#[xX]([0-9A-Fa-f]{1,6});")
SHORT = 256  # characters: a longer text's windows are looked up by their hashes (numpy)
_MULT = 0x9E3779B97F4A7C15  # the rolling hash's multiplier (odd: windows hash apart; collisions are checked)


def _unescaped(m: re.Match) -> str:
    """The character an escape stands for (U+FFFD for a code point that does not exist)."""
    pct, uni, bs, dec, hexa = m.groups()
    if bs is not None:
        return bs
    code = int(pct or uni or hexa, 16) if dec is None else int(dec)
    return chr(code) if code <= 0x10FFFF else "\ufffd"


def base64_cores(key: str) -> list[str]:
    """What base64 of any text holding ``key`` holds, whatever the key's alignment to the 3-byte groups and
    the alphabet (standard, URL-safe): per alignment, the characters that depend on the key's bytes only."""
    raw = key.encode("utf-8", "surrogatepass")
    out = []
    for r, lead in ((0, 0), (1, 2), (2, 3)):
        enc = base64.b64encode(b"\0" * r + raw).decode("ascii").rstrip("=")
        core = enc[lead:len(enc) - (1 if (r + len(raw)) % 3 else 0)]
        out += [core, core.translate(str.maketrans("+/", "-_"))]
    return out


class Redactor:
    """``redactor(text)``: ``text`` with every run of the key (see the module's docstring) replaced by ``***``."""

    def __init__(self, key: str) -> None:
        import numpy as np

        self.key = key
        self.width = min(MIN_RUN, len(key))
        forms = [key] + (base64_cores(key) if len(key) >= MIN_RUN else [])
        self.grams = {f[i:i + self.width] for f in forms for i in range(len(f) - self.width + 1)} if key else set()
        self.powers = np.array([pow(_MULT, j, 1 << 64) for j in range(self.width)], dtype=np.uint64)
        self.hashes = np.unique(np.array([self._hash(g)[0] for g in self.grams], dtype=np.uint64))

    def _hash(self, text: str) -> Any:
        """The hash of every window of ``width`` characters of ``text`` (numpy, uint64 with wrap-around)."""
        import numpy as np

        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4").astype(np.uint64)
        n = len(codes) - self.width + 1
        h = codes[:n] * self.powers[0]
        for j in range(1, self.width):  # one vector operation per character of the window
            h += codes[j:j + n] * self.powers[j]
        return h

    def _starts(self, plain: str) -> list[int]:
        """Where a window of ``width`` characters of ``plain`` is one of the key's (its forms')."""
        w, grams = self.width, self.grams
        if len(plain) <= SHORT:  # a short text (most answers, every message): looked up window by window
            return [i for i in range(len(plain) - w + 1) if plain[i:i + w] in grams]
        import numpy as np

        h = self._hash(plain)
        at = np.searchsorted(self.hashes, h)
        at[at == len(self.hashes)] = 0
        return [p for p in np.flatnonzero(self.hashes[at] == h).tolist() if plain[p:p + w] in grams]  # no collision

    def __call__(self, text: str) -> str:
        if not self.grams or len(text) < self.width:
            return text
        plain, escapes = text, None
        if "%" in text or "\\" in text or "&#" in text:
            plain, escapes = _decode(text)
            if len(plain) < self.width:
                return text
        starts = self._starts(plain)
        if not starts:
            return text
        import numpy as np

        # the runs covered by the windows found, in the decoded text, then in the text
        cover = np.zeros(len(plain) + 1, dtype=np.int64)
        np.add.at(cover, starts, 1)
        np.add.at(cover, [p + self.width for p in starts], -1)
        inside = np.concatenate(([0], (np.cumsum(cover)[:-1] > 0).astype(np.int8), [0]))
        edges = np.flatnonzero(np.diff(inside))
        out, last = [], 0
        for a, b in zip(edges[0::2].tolist(), edges[1::2].tolist(), strict=True):
            oa, ob = (a, b) if escapes is None else (escapes.start(a), escapes.end(b - 1))
            out += [text[last:oa], "***"]
            last = ob
        out.append(text[last:])
        return "".join(out)


class _Escapes:
    """Positions of the decoded text in the text: ``start(i)`` / ``end(i)`` of the decoded character ``i``."""

    def __init__(self, spans: list[tuple[int, int, int]]) -> None:
        self.spans = spans  # (decoded position, start, end in the text) per escape
        self.at = {d: (s, e) for d, s, e in spans}
        self.decoded = [d for d, _, _ in spans]

    def _shift(self, i: int) -> int:
        import bisect

        k = bisect.bisect_left(self.decoded, i)  # escapes before decoded position i
        return 0 if k == 0 else self.spans[k - 1][2] - self.spans[k - 1][0] - 1

    def start(self, i: int) -> int:
        return self.at[i][0] if i in self.at else i + self._shift(i)

    def end(self, i: int) -> int:
        return self.at[i][1] if i in self.at else i + self._shift(i) + 1


def _decode(text: str) -> tuple[str, _Escapes]:
    """``text`` with its escapes (``_ESCAPE``) decoded, and where each decoded character came from."""
    parts: list[str] = []
    spans: list[tuple[int, int, int]] = []
    last = n = 0
    for m in _ESCAPE.finditer(text):
        parts.append(text[last:m.start()])
        n += m.start() - last
        spans.append((n, m.start(), m.end()))
        parts.append(_unescaped(m))
        n += 1
        last = m.end()
    parts.append(text[last:])
    return "".join(parts), _Escapes(spans)
