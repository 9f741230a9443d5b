"""``zelo_plot ... -o - --format png|svg|pdf``: the image on standard output, binary-safe, the same bytes as
``-o FILE.ext``; ``--format`` needed with ``-o -`` and refused when it contradicts the file's extension (exit 2,
one line); a reader that has gone (``| head -c1``) is exit 0 and silent. Closed and full standard output:
tests/test_output_faults.py (STDOUT_CASES)."""
from __future__ import annotations

import os
import subprocess

import pytest
from cli_harness import run_subprocess

pytest.importorskip("matplotlib")

JUDGE = "1 a b\n1 b c\n1 c a\n1 a c\n1 a b\n2 x y\n2 y x\n2 x y\n"


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    d = tmp_path_factory.mktemp("plotout")
    (d / "j.judge").write_text(JUDGE)
    res = run_subprocess("zelo_fit", ["-J", "j.judge", "-Q", "-o", "scores.tsv"], d)
    assert res.returncode == 0, res.stderr
    return d


def _plot(ws, argv):
    return run_subprocess("zelo_plot", argv, ws)


@pytest.mark.parametrize("fmt", ["png", "svg", pytest.param("pdf", marks=pytest.mark.slow)])  # pdf: slow (s30)
def test_stdout_bytes_equal_the_file(ws, fmt):
    to_file = _plot(ws, ["scores", "-S", "scores.tsv", "-Q", "-o", f"s.{fmt}"])
    assert to_file.returncode == 0, to_file.stderr
    res = _plot(ws, ["scores", "-S", "scores.tsv", "-Q", "-o", "-", "--format", fmt])
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    assert res.stdout == (ws / f"s.{fmt}").read_bytes()
    assert res.stdout[:8] == {"png": b"\x89PNG\r\n\x1a\n", "svg": b"<?xml ve", "pdf": b"%PDF-1.4"}[fmt]


def test_matrix_takes_image_format(ws):
    """matrix's --format is the judgment format (as zelo_fit's): its image format is --image-format."""
    res = _plot(ws, ["matrix", "-J", "j.judge", "--format", "clarke3", "-Q", "-o", "-", "--image-format", "svg"])
    assert res.returncode == 0, res.stderr
    _plot(ws, ["matrix", "-J", "j.judge", "-Q", "-o", "m.svg"])
    assert res.stdout == (ws / "m.svg").read_bytes()


@pytest.mark.parametrize(("argv", "words"), [
    (["-o", "-"], "needs an image format"),
    (["-o", "x.svg", "--format", "png"], "contradicts its extension .svg"),
    (["-o", "x.PNG", "--image-format", "pdf"], "contradicts its extension .png"),
    (["-o", "-", "--format", "gif"], "'gif' is not one of"),
])
def test_format_refused(ws, argv, words):
    res = _plot(ws, ["scores", "-S", "scores.tsv", "-Q", *argv])
    err = res.stderr.decode()
    assert res.returncode == 2 and words in err and "Traceback" not in err, err
    assert not (ws / "x.svg").exists() and not (ws / "x.PNG").exists()


def test_format_agreeing_or_without_extension(ws):
    """--format equal to the extension, or a name without one of the three extensions, is written."""
    res = _plot(ws, ["scores", "-S", "scores.tsv", "-Q", "-o", "same.svg", "--format", "svg"])
    assert res.returncode == 0, res.stderr
    res = _plot(ws, ["scores", "-S", "scores.tsv", "-Q", "-o", "picture", "--format", "png"])
    assert res.returncode == 0, res.stderr
    assert (ws / "picture").read_bytes()[:4] == b"\x89PNG"


def test_reader_gone_is_quiet(ws):
    r, w = os.pipe()
    os.close(r)  # every write gets EPIPE
    try:
        res = run_subprocess("zelo_plot", ["scores", "-S", "scores.tsv", "-o", "-", "--format", "png"], ws,
                             stdout=w, stderr=subprocess.PIPE)
    finally:
        os.close(w)
    err = res.stderr.decode()
    assert res.returncode == 0 and "Traceback" not in err and "Broken pipe" not in err, err
