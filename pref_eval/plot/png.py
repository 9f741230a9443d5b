"""A :class:`~pref_eval.plot.canvas.Canvas` as a PNG image, drawn with Pillow.

The image is ``round(W·dpi/72) × round(H·dpi/72)`` pixels for a ``W × H`` point canvas. Shapes are
anti-aliased by supersampling: drawn at ``SUPERSAMPLE`` times the resolution and reduced by averaging
each ``SUPERSAMPLE × SUPERSAMPLE`` block (``Image.reduce``, a box filter). Texts are then drawn at the
final resolution by FreeType (Pillow's ``ImageDraw.text``, anti-aliased glyphs), in DejaVu Sans; a
text rotated by 90° is drawn into a mask and turned with an exact transpose. The file holds the
pixels and the resolution (``pHYs``), no date: the same canvas gives the same bytes.

Memory: the supersampled shapes are drawn in horizontal strips of at most ``STRIP_PIXELS`` supersampled
pixels each (every strip is drawn, reduced and pasted into the final image), so the peak is the final
RGB image (3 bytes a pixel) plus one strip (~12 MB), not 16 times the image. An image above
``MAX_PIXELS`` pixels (or 65536 pixels on a side, matplotlib's Agg limit) is refused before any work.
"""
from __future__ import annotations

import math

from .canvas import Canvas, Circle, Line, Rect, Text

SUPERSAMPLE = 4
STRIP_PIXELS = 1 << 22  # supersampled pixels drawn at once (12 MB of RGB)
MAX_PIXELS = 1 << 27  # 134 M pixels: a 400 MB RGB image
MAX_SIDE = 1 << 16
TILE_PIXELS = 1 << 22  # shapes up to this many supersampled pixels crossing a strip's top go through a tile
_PIL_ANCHOR = {"start": "ls", "middle": "ms", "end": "rs"}


def png_size(width_pt: float, height_pt: float, dpi: float) -> tuple[int, int]:
    """Pixels of a ``width_pt × height_pt`` point canvas at ``dpi``."""
    k = dpi / 72.0
    return max(1, round(width_pt * k)), max(1, round(height_pt * k))


def check_png_size(width_in: float, height_in: float, dpi: float) -> None:
    """Refuse (:class:`~pref_eval.errors.UsageError`, exit 2) a PNG larger than ``MAX_PIXELS`` pixels or
    ``MAX_SIDE`` pixels on a side."""
    from ..errors import UsageError, command_running, option_name

    w, h = png_size(width_in * 72.0, height_in * 72.0, dpi)
    if w * h > MAX_PIXELS or max(w, h) > MAX_SIDE:
        size = (f"--width {width_in:g} --height {height_in:g} --dpi {dpi:g}" if command_running() else
                f"width={width_in:g}, height={height_in:g}, dpi={dpi:g}")
        raise UsageError(f"{size} makes a {w} × {h} pixel PNG, more than {MAX_PIXELS} pixels or {MAX_SIDE} on a "
                         f"side: lower {option_name('dpi')} or the size, or write SVG or PDF")
def png_bytes(canvas: Canvas, dpi: float) -> bytes:
    """The PNG file of ``canvas`` at ``dpi`` pixels per inch."""
    import io

    from PIL import Image, ImageDraw, ImageFont

    k = dpi / 72.0
    size = png_size(canvas.width, canvas.height, dpi)
    s = SUPERSAMPLE
    img = Image.new("RGB", size, "#ffffff")
    rows = max(1, min(size[1], STRIP_PIXELS // (size[0] * s * s)))  # final pixel rows per strip
    for top in range(0, size[1], rows):
        strip = Image.new("RGB", (size[0] * s, min(rows, size[1] - top) * s), "#ffffff")
        _draw_shapes(strip, canvas, k * s, top * s)
        img.paste(strip.reduce(s), (0, top))
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


def _draw_shapes(img, canvas: Canvas, ks: float, y0: int) -> None:
    """The lines, rectangles and circles of ``canvas`` (``ks`` pixels a point) that reach the supersampled
    pixel rows ``[y0, y0 + img.height)``, drawn on ``img`` shifted up by ``y0``."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(img)

    def px(v: float) -> float:
        return v * ks

    def py(v: float) -> float:
        return v * ks - y0

    def stroke(w: float) -> int:
        return max(1, round(w * ks))

    for it in canvas.items:
        if isinstance(it, Line):
            pts = [(px(x), py(y)) for x, y in it.points]
            w = stroke(it.width)
            joint = "curve" if len(pts) > 2 else None
            _clipped(img, draw, [v for p in pts for v in p], w + 2,
                     lambda d, sh, it=it, pts=pts, w=w, joint=joint: d.line(
                         [(x - sh[0], y - sh[1]) for x, y in pts], fill=it.color, width=w, joint=joint))
        elif isinstance(it, Rect):
            box = (px(it.x), py(it.y), px(it.x + it.w), py(it.y + it.h))
            width = stroke(it.width) if it.stroke else 0

            def rect(d, sh, it=it, box=box, width=width):
                b = (box[0] - sh[0], box[1] - sh[1], box[2] - sh[0], box[3] - sh[1])
                if it.radius:
                    d.rounded_rectangle(b, radius=px(it.radius), fill=it.fill, outline=it.stroke, width=width)
                else:
                    d.rectangle(b, fill=it.fill, outline=it.stroke, width=width)
            _clipped(img, draw, box, width + 2, rect)
        elif isinstance(it, Circle):
            box = (px(it.cx - it.r), py(it.cy - it.r), px(it.cx + it.r), py(it.cy + it.r))
            _clipped(img, draw, box, 2, lambda d, sh, it=it, box=box: d.ellipse(
                (box[0] - sh[0], box[1] - sh[1], box[2] - sh[0], box[3] - sh[1]), fill=it.fill))


def _clipped(img, draw, coords, pad: float, paint) -> None:
    """``paint(draw, (0, 0))`` for a shape whose ``coords`` (x, y, x, y, …) ± ``pad`` reach ``img``; one
    reaching above it (negative y, which Pillow rasterises differently from the same shape in the whole
    picture) is painted on a transparent tile at non-negative coordinates, shifted by whole pixels
    (``paint(tile, shift)``), and pasted: every strip then matches the whole picture pixel for pixel. A
    shape of more than ``TILE_PIXELS`` pixels is drawn directly (straight edges, at most a supersampled
    pixel off: a quarter of a final one)."""
    xs, ys = coords[0::2], coords[1::2]
    top, bottom = min(ys) - pad, max(ys) + pad
    if bottom < 0 or top > img.height:
        return
    if top >= 0 or (max(xs) - min(xs) + 2 * pad) * (bottom - top) > TILE_PIXELS:
        paint(draw, (0, 0))  # a big shape (a frame, a grid line) is drawn directly: at most 1/4 pixel off
        return
    from PIL import Image, ImageDraw

    ox, oy = math.floor(min(xs) - pad), math.floor(top)
    tile = Image.new("RGBA", (math.ceil(max(xs) + pad) - ox + 1, math.ceil(bottom) - oy + 1), (0, 0, 0, 0))
    paint(ImageDraw.Draw(tile), (ox, oy))
    img.paste(tile, (ox, oy), tile)


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
