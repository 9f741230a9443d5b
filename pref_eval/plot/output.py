"""Writing figures: format from the file extension, temp file + rename.

``binary_output`` is the binary twin of
:func:`pref_eval.cli.common.output_stream`: the bytes go to a temporary file
in the target's directory, renamed over the target only when everything
succeeded, so a failure never truncates an existing image.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import BinaryIO, Iterator

from ..errors import UsageError

FORMATS = {".png": "png", ".svg": "svg"}


def image_format(path: str) -> str:
    """``png`` or ``svg`` from the extension of ``path`` (case-insensitive)."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise UsageError(f"output file {path!r}: expected a .png or .svg extension")
    return FORMATS[ext]


@contextlib.contextmanager
def binary_output(path: str) -> Iterator[BinaryIO]:
    """Yield a binary file; on success rename it to ``path`` atomically."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise UsageError(f"output file {path!r}: directory {directory!r} does not exist")
    if os.path.isdir(path):
        raise UsageError(f"output file {path!r} is a directory")
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=os.path.splitext(path)[1], dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
        # mkstemp creates 0600; give the image the usual umask-derived mode
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def save_figure(fig, path: str, dpi: float) -> None:
    """Save ``fig`` to ``path`` (PNG or SVG by extension) and close it.

    The canvas size is kept exactly (no tight bounding box): a
    ``W × H`` inch figure at ``dpi`` gives a ``round(W·dpi) × round(H·dpi)``
    pixel PNG, and an SVG of ``W·72 × H·72`` points. SVG output carries no
    date and a fixed hash salt so the same input gives the same bytes.
    """
    import matplotlib

    fmt = image_format(path)
    metadata = {"Date": None} if fmt == "svg" else {"Software": None}
    try:
        with matplotlib.rc_context({"svg.hashsalt": "pref_eval"}):
            with binary_output(path) as fh:
                fig.savefig(fh, format=fmt, dpi=dpi, metadata=metadata)
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
