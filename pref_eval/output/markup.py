"""Names (runs, systems, measures) as the text of a LaTeX or Markdown table cell that shows them as they are."""
from __future__ import annotations

import re
import unicodedata

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  # with LaTeX's default OT1 font encoding these three print as an em dash, ¡ and ¿:
                  "|": r"\textbar{}", "<": r"\textless{}", ">": r"\textgreater{}"}
_LATEX_RE = "[" + re.escape("".join(_LATEX_SPECIAL)) + "]"  # patterns compiled on use (re's cache)
# CommonMark backslash escapes (any ASCII punctuation may be escaped): the pipe that would split a GFM table cell,
# and the characters that could start emphasis, code, links, HTML, strikethrough or GitHub's $math$. An
# underscore between two letters or digits cannot open or close emphasis and stays as it is (bm25_rm3, P_10).
_MD_RE = r"[\\|*`<>\[\]~$&]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])"


def latex_escape(s: str) -> str:
    """``s`` as LaTeX text: each of ``\\ & % $ # _ { } ~ ^ | < >`` by its text-mode command, in one pass (replacing
    the backslash first and the braces after would escape the braces of ``\\textbackslash{}`` again)."""
    return re.sub(_LATEX_RE, lambda m: _LATEX_SPECIAL[m.group()], s)


def markdown_escape(s: str) -> str:
    """``s`` as the text of a GFM table cell that renders as ``s`` (pipes and markup characters escaped)."""
    return re.sub(_MD_RE, lambda m: "\\" + m.group(), s)


# the format characters a terminal prints (Prepended_Concatenation_Mark: Arabic number signs and the like)
_PREPENDED = frozenset(map(chr, [*range(0x600, 0x606), 0x6DD, 0x70F, 0x890, 0x891, 0x8E2, 0x110BD, 0x110CD]))


def _char_width(c: str) -> int:
    """Terminal columns of one code point on its own: 2 for East Asian Wide and Fullwidth, 0 for combining and
    enclosing marks, format characters (zero width space, joiners; but the soft hyphen U+00AD and
    :data:`_PREPENDED`, which terminals print), controls and Hangul medial vowels and final consonants
    (U+1160-U+11FF, U+D7B0-U+D7FF: they join the initial consonant before them) and the Hangul fillers
    U+3164, U+FFA0, else 1."""
    o = ord(c)
    if 0x1160 <= o <= 0x11FF or 0xD7B0 <= o <= 0xD7FF or o in (0x3164, 0xFFA0):
        return 0
    cat = unicodedata.category(c)
    if cat in ("Mn", "Me", "Cc") or (cat == "Cf" and o != 0xAD and c not in _PREPENDED):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def display_width(s: str) -> int:
    """The columns ``s`` takes in a terminal with a monospace font, for aligning text tables (``len`` counts a
    CJK character, two columns, as one, and a combining accent, no column, as one).

    Per code point :func:`_char_width`, with the emoji sequences terminals draw as one wide glyph: a character
    after a zero width joiner (U+200D) joins the one before it (no column of its own), variation selector 16
    (U+FE0F) makes the character before it wide, a skin tone modifier (U+1F3FB-U+1F3FF) after another character
    takes no column, and two regional indicators (a flag) take two columns. East Asian Ambiguous characters (α,
    ①) count one column, as in a terminal outside a CJK locale. The rules of the ``wcwidth`` package
    (https://github.com/jquast/wcwidth), which tests/test_display_width.py compares with live."""
    w = 0
    prev = ""  # the last code point that took columns (its own width is prev_w)
    prev_w = 0
    joined = False
    ri_open = False  # an unpaired regional indicator before
    for c in s:
        o = ord(c)
        if joined:  # after a ZWJ: part of the glyph before
            joined = False
            if _char_width(c) > 0:
                continue
        if o == 0x200D:
            joined = bool(prev)
            continue
        if o == 0xFE0F:
            if prev and prev_w == 1:
                w += 1
                prev_w = 2
            continue
        if 0x1F3FB <= o <= 0x1F3FF and prev:
            continue
        if 0x1F1E6 <= o <= 0x1F1FF:
            ri_open = not ri_open
            if not ri_open:
                continue  # the flag's second letter: drawn in the first one's two columns
            cw = 2
        else:
            ri_open = False
            cw = _char_width(c)
        if cw:
            prev, prev_w = c, cw
            w += cw
    return w


def ljust_display(s: str, width: int) -> str:
    """``s`` padded with spaces to ``width`` terminal columns (:func:`display_width`)."""
    return s + " " * max(0, width - display_width(s))
