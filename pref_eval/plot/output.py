"""Writing figures: format from ``--format`` or the file extension, temp file + rename (or standard output).

``binary_output`` writes through the output layer
(:mod:`pref_eval.output.atomic`): the bytes go to a temporary file in the
target's directory, renamed over the target only when everything succeeded,
so a failure never truncates an existing image.
"""
from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, IO

from ..errors import UsageError, command_running

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .canvas import Canvas

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}


def image_format(path: str, fmt: str | None = None) -> str:
    """``png``, ``svg`` or ``pdf``: ``fmt`` when given, else the extension of ``path`` (case-insensitive: ``x.PNG``
    is PNG). ``-`` (standard output) needs ``fmt``; a ``fmt`` that contradicts the extension of ``path`` (``-o
    x.svg --format png``) is refused; a path without one of the three extensions (``/dev/stdout``) takes ``fmt``.
    A directory (existing, or a name ending in ``/``) is refused as an unwritable output
    (:class:`~pref_eval.errors.OutputError`, exit 1, docs/exit-codes.md) before the extension is looked at."""
    from ..output.atomic import is_stdout

    if fmt is not None and fmt not in FORMATS.values():
        raise UsageError(f"image format {fmt!r}: expected png, svg or pdf")
    if is_stdout(path):
        if fmt is None:
            raise UsageError("-o - (standard output) needs an image format: --format png|svg|pdf "
                             "(zelo_plot matrix: --image-format)" if command_running() else
                             "output='-' (standard output) needs an image format: output_format='png', 'svg' or "
                             "'pdf'")
        return fmt
    if path.endswith(os.sep) or os.path.isdir(path):  # a directory is an unwritable output (exit 1)
        import errno

        from ..output.atomic import output_error

        raise output_error(path, IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR)))
    ext = os.path.splitext(path)[1].lower()
    if fmt is not None:
        if ext in FORMATS and FORMATS[ext] != fmt:
            given = f"--format {fmt}" if command_running() else f"output_format={fmt!r}"
            raise UsageError(f"output file {path!r}: {given} contradicts its extension {ext}")
        return fmt
    if ext not in FORMATS:
        other = "--format png|svg|pdf" if command_running() else "output_format='png', 'svg' or 'pdf'"
        raise UsageError(f"output file {path!r}: expected a .png, .svg or .pdf extension (or {other})")
    return FORMATS[ext]


@contextlib.contextmanager
def binary_output(path: str, inputs: Mapping[str, Sequence[str]] | None = None) -> Iterator[IO[bytes]]:
    """Yield a binary file; on success rename it to ``path`` atomically
    (:func:`pref_eval.output.atomic.output_file`; refused when it is one of ``inputs``)."""
    from ..output.atomic import output_file

    with output_file(path, inputs=inputs, binary=True) as fh:
        yield fh


def save_figure(fig: Figure, path: str, dpi: float, inputs: Mapping[str, Sequence[str]] | None = None,
                fmt: str | None = None) -> list[str]:
    """Save ``fig`` (a ``matplotlib.figure.Figure``) to ``path`` (PNG, SVG or PDF: ``fmt``, else by extension;
    ``-`` = standard output, :func:`image_format`).

    The canvas size is kept exactly (no tight bounding box): a
    ``W × H`` inch figure at ``dpi`` gives a ``round(W·dpi) × round(H·dpi)``
    pixel PNG, and an SVG of ``W·72 × H·72`` points. SVG output carries no
    date and a fixed hash salt, a PDF no creation date, so the same input gives the same bytes.
    """
    import io

    import matplotlib

    fmt = image_format(path, fmt)
    metadata = {"Date": None} if fmt == "svg" else {"CreationDate": None} if fmt == "pdf" else {"Software": None}
    buf = io.BytesIO()  # rendered in memory first: a failing write (a full disk) meets our writer, not
    with matplotlib.rc_context({"svg.hashsalt": "pref_eval"}), \
            warnings.catch_warnings(record=True) as caught:  # matplotlib's PDF clean-up (a 2nd exception)
        warnings.simplefilter("always")
        fig.savefig(buf, format=fmt, dpi=dpi, metadata=metadata)
    with binary_output(path, inputs) as fh:
        fh.write(buf.getvalue())
    return _summary(caught)


def _summary(caught) -> list[str]:
    """matplotlib's warnings while saving, as at most one line per kind: the missing glyphs gathered
    ("Glyph N (\\N{NAME}) missing from font(s) DejaVu Sans.", one warning per character), others as they are."""
    import re

    missing: list[str] = []
    other: list[str] = []
    for w in caught:
        text = str(w.message)
        m = re.match(r"Glyph \d+ \((.*)\) missing from font\(s\) (.*)\.$", text)
        if m:
            if m.group(1) not in missing:
                missing.append(m.group(1))
        elif text not in other:
            other.append(text)
    out = other[:1]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        out.insert(0, f"{len(missing)} characters have no glyph in DejaVu Sans and are drawn as boxes: {shown}")
    return out[:1]


def save_canvas(canvas: Canvas, path: str, dpi: float, inputs: Mapping[str, Sequence[str]] | None = None,
                fmt: str | None = None) -> list[str]:
    """Save a :class:`~pref_eval.plot.canvas.Canvas` to ``path`` (``-`` = standard output, as binary bytes; the
    format ``fmt``, else the extension: :func:`image_format`): PNG by Pillow (:mod:`.png`), SVG as text
    (:mod:`.svg`), PDF through matplotlib (:mod:`.pdf`, the only format that imports it). The picture is
    made before the file is opened; the bytes do not depend on the date. Returns the warnings to log
    (:func:`save_figure`; none for PNG and SVG)."""
    fmt = image_format(path, fmt)
    if fmt == "png":
        from .png import png_bytes

        data = png_bytes(canvas, dpi)
    elif fmt == "svg":
        from .svg import svg_text

        data = svg_text(canvas).encode("utf-8")
    else:
        from .pdf import canvas_figure

        return save_figure(canvas_figure(canvas), path, dpi, inputs, fmt)
    with binary_output(path, inputs) as fh:
        fh.write(data)
    return []
