"""A :class:`~pref_eval.plot.canvas.Canvas` as SVG 1.1 text.

The picture is ``W × H`` points (``width="Wpt"``, ``viewBox="0 0 W H"``: one user unit per point).
Texts stay texts (``font-family="DejaVu Sans"``, the font the layout was measured with, then the
generic sans-serif), so that they can be searched, selected and edited; numbers are written with
at most three decimals. No date, no random ids: the same canvas gives the same bytes.
"""
from __future__ import annotations

import re

from .canvas import Canvas, Circle, Line, Rect, Text
from .fonts import FACES


# characters XML 1.0 does not allow (its "Char" production: #x9 | #xA | #xD | [#x20-#xD7FF] |
# [#xE000-#xFFFD] | [#x10000-#x10FFFF]); ids may hold them, an SVG may not
_NOT_XML = "[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"  # compiled on use (re's cache)


def xml_safe(text: str) -> str:
    """``text`` with each character XML 1.0 does not allow (C0 controls but tab/newline/return,
    lone surrogates, U+FFFE, U+FFFF) replaced by U+FFFD, the replacement character."""
    return re.sub(_NOT_XML, "\ufffd", text)


def _escape(text: str) -> str:
    # xml.sax.saxutils.escape's rule, written here: that module imports urllib.request, hence http.client, email,
    # ssl and socket (~40 modules zelo_plot pairs loaded for three replacements; tests/test_plot_svg_escape.py)
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def escape(text: str) -> str:
    """``text`` as XML character data (``xml.sax.saxutils.escape``'s output)."""
    return _escape(xml_safe(text))


def quoteattr(text: str) -> str:
    """``text`` as a quoted XML attribute value (``xml.sax.saxutils.quoteattr``'s output: tab, newline and return
    as character references; double quotes around it, or single quotes when it holds a double quote and no
    single one, else double quotes with ``&quot;``)."""
    data = _escape(xml_safe(text)).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in data:
        return f'"{data}"'
    if "'" not in data:
        return f"'{data}'"
    return '"{}"'.format(data.replace('"', "&quot;"))


def _n(v: float) -> str:
    s = f"{v:.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _cls(role: str, group: str) -> str:
    return quoteattr(f"{role} {group}".strip())


def svg_text(canvas: Canvas) -> str:
    """The SVG document of ``canvas``."""
    w, h = _n(canvas.width), _n(canvas.height)
    out = ['<?xml version="1.0" encoding="utf-8" standalone="no"?>',
           f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}pt" height="{h}pt" '
           f'viewBox="0 0 {w} {h}">',
           f'<rect class="background" x="0" y="0" width="{w}" height="{h}" fill="#ffffff"/>']
    for it in canvas.items:
        cls = _cls(it.role, it.group)
        if isinstance(it, Line):
            pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in it.points)
            out.append(f'<polyline class={cls} points="{pts}" fill="none" stroke="{it.color}" '
                       f'stroke-width="{_n(it.width)}" stroke-linecap="butt"/>')
        elif isinstance(it, Rect):
            fill = it.fill or "none"
            stroke = f' stroke="{it.stroke}" stroke-width="{_n(it.width)}"' if it.stroke else ""
            rad = f' rx="{_n(it.radius)}"' if it.radius else ""
            out.append(f'<rect class={cls} x="{_n(it.x)}" y="{_n(it.y)}" width="{_n(it.w)}" height="{_n(it.h)}"'
                       f'{rad} fill="{fill}"{stroke}/>')
        elif isinstance(it, Circle):
            out.append(f'<circle class={cls} cx="{_n(it.cx)}" cy="{_n(it.cy)}" r="{_n(it.r)}" fill="{it.fill}"/>')
        elif isinstance(it, Text):
            rot = f' transform="rotate({_n(-it.rotation)} {_n(it.x)} {_n(it.y)})"' if it.rotation else ""
            _, family, weight = FACES[it.face]
            generic = "monospace" if "Mono" in family else "sans-serif"
            bold = ' font-weight="bold"' if weight == "bold" else ""
            out.append(f'<text class={cls} x="{_n(it.x)}" y="{_n(it.y)}"{rot} font-family="{family}, {generic}"{bold} '
                       f'font-size="{_n(it.size)}" text-anchor="{it.anchor}" fill="{it.color}" '
                       f'xml:space="preserve">{escape(it.text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"
