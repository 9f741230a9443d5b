"""A :class:`~pref_eval.plot.canvas.Canvas` as a PNG image, drawn with Pillow.

The image is ``round(W·dpi/72) × round(H·dpi/72)`` pixels for a ``W × H`` point canvas. Shapes are
anti-aliased by supersampling: drawn at ``SUPERSAMPLE`` times the resolution and reduced by averaging
each ``SUPERSAMPLE × SUPERSAMPLE`` block (``Image.reduce``, a box filter). Texts are then drawn at the
final resolution by FreeType (Pillow's ``ImageDraw.text``, anti-aliased glyphs), in DejaVu Sans; a
text rotated by 90° is drawn into a mask and turned with an exact transpose. The file holds the
pixels and the resolution (``pHYs``), no date: the same canvas gives the same bytes.
"""
from __future__ import annotations

import math

from .canvas import Canvas, Circle, Line, Rect, Text

SUPERSAMPLE = 4
_PIL_ANCHOR = {"start": "ls", "middle": "ms", "end": "rs"}


def png_bytes(canvas: Canvas, dpi: float) -> bytes:
    """The PNG file of ``canvas`` at ``dpi`` pixels per inch."""
    import io

    from PIL import Image, ImageDraw, ImageFont

    k = dpi / 72.0
    size = (max(1, round(canvas.width * k)), max(1, round(canvas.height * k)))
    s = SUPERSAMPLE
    ks = k * s
    big = Image.new("RGB", (size[0] * s, size[1] * s), "#ffffff")
    draw = ImageDraw.Draw(big)

    def px(v: float) -> float:
        return v * ks

    def stroke(w: float) -> int:
        return max(1, round(w * ks))

    for it in canvas.items:
        if isinstance(it, Line):
            pts = [(px(x), px(y)) for x, y in it.points]
            draw.line(pts, fill=it.color, width=stroke(it.width), joint="curve" if len(pts) > 2 else None)
        elif isinstance(it, Rect):
            box = (px(it.x), px(it.y), px(it.x + it.w), px(it.y + it.h))
            width = stroke(it.width) if it.stroke else 0
            if it.radius:
                draw.rounded_rectangle(box, radius=px(it.radius), fill=it.fill, outline=it.stroke, width=width)
            else:
                draw.rectangle(box, fill=it.fill, outline=it.stroke, width=width)
        elif isinstance(it, Circle):
            draw.ellipse((px(it.cx - it.r), px(it.cy - it.r), px(it.cx + it.r), px(it.cy + it.r)), fill=it.fill)
    img = big.reduce(s)
    draw = ImageDraw.Draw(img)
    fonts: dict[tuple[str, float], ImageFont.FreeTypeFont] = {}
    for it in canvas.items:
        if not isinstance(it, Text) or not it.text:
            continue
        font = fonts.get((it.face, it.size))
        if font is None:
            font = fonts[it.face, it.size] = ImageFont.truetype(canvas.measure.face_path(it.face), it.size * k)
        if it.rotation == 0:
            draw.text((it.x * k, it.y * k), it.text, font=font, fill=it.color, anchor=_PIL_ANCHOR[it.anchor])
        else:
            _rotated_text(img, font, it, k)
    buf = io.BytesIO()
    img.save(buf, format="PNG", dpi=(dpi, dpi))
    return buf.getvalue()


def _rotated_text(img, font, it: Text, k: float) -> None:
    """Draw ``it`` turned ``it.rotation`` degrees counter-clockwise about its anchor (x, y): the text is
    drawn into a mask, the mask turned (90°: an exact transpose; else bicubic with expansion), and the
    anchor's place in the turned mask put on (x, y)."""
    from PIL import Image, ImageDraw

    length = float(font.getlength(it.text))
    ascent, descent = font.getmetrics()
    w, h = math.ceil(length) + 2, ascent + descent + 2
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).text((1, 1 + ascent), it.text, font=font, fill=255, anchor="ls")
    ax = 1 + {"start": 0.0, "middle": length / 2, "end": length}[it.anchor]
    ay = 1.0 + ascent  # the anchor in the mask
    if it.rotation == 90:
        turned = mask.transpose(Image.Transpose.ROTATE_90)  # source (u, v) -> (v, w - 1 - u)
        tx, ty = ay, w - 1 - ax
    else:
        turned = mask.rotate(it.rotation, resample=Image.Resampling.BICUBIC, expand=True)
        rad = math.radians(it.rotation)
        dx, dy = ax - w / 2, ay - h / 2
        tx = turned.width / 2 + dx * math.cos(rad) + dy * math.sin(rad)
        ty = turned.height / 2 - dx * math.sin(rad) + dy * math.cos(rad)
    origin = (round(it.x * k - tx), round(it.y * k - ty))
    img.paste(it.color, (*origin, origin[0] + turned.width, origin[1] + turned.height), turned)
