"""An output whose directory the permissions open but the file system refuses (session 30, f40; u39's leftover:
``--output /proc/x.txt`` ran the whole evaluation before the write failed): the output preflight creates a file
there and removes it at once (Linux's ``O_TMPFILE``: a file without a name; else a hidden name unlinked at once),
so the refusal -- status 1, the writing's own message -- comes before any input is read. Oracle: the kernel's own
answer to creating a file there (``touch``'s), docs/exit-codes.md's rule (status 1, one line, before the work,
nothing left behind)."""
from __future__ import annotations

import errno
import os

import pytest

from cli_harness import digest_tree, run_inproc
from fault_workspace import argv_with
from test_output_preflight import CASES_OUT, _ext, _inputs, _spoiled

ROOT_ON_PROC = os.path.isdir("/proc") and os.access("/proc", os.W_OK | os.X_OK)  # root: permissions do not stop
FEW = {"eval", "compare-R", "fit", "pairs-cycles", "judge", "simulate-figure3", "agree", "aggregate"}


def _kernel_says(directory: str) -> str:
    """What creating a new file in ``directory`` gives (the oracle: the kernel itself, as ``touch`` would)."""
    path = os.path.join(directory, "pref-eval-probe-oracle")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as err:
        return os.strerror(err.errno)
    os.close(fd)
    os.unlink(path)
    pytest.skip(f"{directory} takes new files here")


@pytest.mark.skipif(not ROOT_ON_PROC, reason="/proc refuses a new file by its permissions here (not root): the "
                                             "permission check finds it (test_output_preflight)")
@pytest.mark.parametrize("case", [c if c in FEW else pytest.param(c, marks=pytest.mark.slow)
                                  for c in sorted(CASES_OUT)])
def test_proc_is_found_before_any_input(ws, case):
    """Each input of the invocation spoiled in turn: status 1 naming the output, never the input's status 2."""
    script, argv = CASES_OUT[case]
    out = "/proc/pref-eval-out" + _ext(case)
    says = _kernel_says("/proc")
    for victim in _inputs(argv, ws) or [None]:
        for _ in _spoiled(ws, victim):
            before = digest_tree(ws, ignore=())
            res = run_inproc(script, argv_with(argv, out), ws)
            assert res.returncode == 1, (victim, res.stderr)
            assert f"{out}: cannot write: {says}" in res.stderr and res.stderr.count("\n") == 1, res.stderr
            assert "NUL" not in res.stderr
            assert digest_tree(ws, ignore=()) == before, victim


def _open_refusing(real, code: int, tmpfile_only: bool):
    def fake(path, flags, *a, **k):
        if flags & getattr(os, "O_TMPFILE", 0) == getattr(os, "O_TMPFILE", -1) or \
                (not tmpfile_only and flags & os.O_CREAT):
            raise OSError(code, os.strerror(code), path)
        return real(path, flags, *a, **k)
    return fake


@pytest.mark.skipif(not hasattr(os, "O_TMPFILE"), reason="Linux's O_TMPFILE")
def test_a_refusing_file_system_is_named_with_its_reason(tmp_path, monkeypatch):
    """Any user: a directory the permissions open whose file system refuses new files (read-only here)."""
    from pref_eval.errors import OutputError
    from pref_eval.output import atomic

    monkeypatch.setattr(atomic.os, "open", _open_refusing(os.open, errno.EROFS, tmpfile_only=True))
    with pytest.raises(OutputError) as info:
        atomic.preflight(str(tmp_path / "x.txt"))
    assert str(info.value) == (f"{tmp_path / 'x.txt'}: cannot write: Read-only file system (creating a new file in "
                               f"directory {tmp_path}, renamed over it when complete)")


@pytest.mark.parametrize("refused", [False, True])
def test_without_tmpfile_support_a_hidden_name_is_created_and_removed(tmp_path, monkeypatch, refused):
    """A file system without O_TMPFILE (EOPNOTSUPP): the probe's hidden name is removed at once (nothing left);
    a refusal of it is the output's refusal."""
    from pref_eval.errors import OutputError
    from pref_eval.output import atomic

    real = os.open
    created: list[str] = []

    def fake(path, flags, *a, **k):
        if flags & getattr(os, "O_TMPFILE", 0) == getattr(os, "O_TMPFILE", -1):
            raise OSError(errno.EOPNOTSUPP, os.strerror(errno.EOPNOTSUPP), path)
        if flags & os.O_CREAT:
            if refused:
                raise OSError(errno.EACCES, os.strerror(errno.EACCES), path)
            created.append(path)
        return real(path, flags, *a, **k)

    monkeypatch.setattr(atomic.os, "open", fake)
    if refused:
        with pytest.raises(OutputError, match="x.txt: cannot write: Permission denied"):
            atomic.preflight(str(tmp_path / "x.txt"))
    else:
        atomic.preflight(str(tmp_path / "x.txt"))
        assert len(created) == 1 and os.path.basename(created[0]).startswith(".tmp-probe-")
    assert list(tmp_path.iterdir()) == []


def test_a_writable_directory_is_left_as_it_was(tmp_path):
    from pref_eval.output import atomic

    (tmp_path / "keep").write_text("x")
    atomic.preflight(str(tmp_path / "x.txt"))
    assert os.listdir(tmp_path) == ["keep"]
