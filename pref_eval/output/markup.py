"""Names (runs, systems, measures) as the text of a LaTeX or Markdown table cell that shows them as they are."""
from __future__ import annotations

import re

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  # with LaTeX's default OT1 font encoding these three print as an em dash, ¡ and ¿:
                  "|": r"\textbar{}", "<": r"\textless{}", ">": r"\textgreater{}"}
_LATEX_RE = re.compile("[" + re.escape("".join(_LATEX_SPECIAL)) + "]")
# CommonMark backslash escapes (any ASCII punctuation may be escaped): the pipe that would split a GFM table cell,
# and the characters that could start emphasis, code, links, HTML, strikethrough or GitHub's $math$. An
# underscore between two letters or digits cannot open or close emphasis and stays as it is (bm25_rm3, P_10).
_MD_RE = re.compile(r"[\\|*`<>\[\]~$&]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


def latex_escape(s: str) -> str:
    """``s`` as LaTeX text: each of ``\\ & % $ # _ { } ~ ^ | < >`` by its text-mode command, in one pass (replacing
    the backslash first and the braces after would escape the braces of ``\\textbackslash{}`` again)."""
    return _LATEX_RE.sub(lambda m: _LATEX_SPECIAL[m.group()], s)


def markdown_escape(s: str) -> str:
    """``s`` as the text of a GFM table cell that renders as ``s`` (pipes and markup characters escaped)."""
    return _MD_RE.sub(lambda m: "\\" + m.group(), s)
