"""Output faults over every command (docs/exit-codes.md, "Output files").

For every command's valid invocation, its output option is pointed at a
missing directory, a directory, a read-only place, /dev/full, /dev/null, a
symbolic link and one of the command's own inputs. Expected: no traceback, the
documented exit status, one line naming the file, and every input and earlier
output byte-identical afterwards (no ``.tmp-*`` left). Closed and full
standard output, multi-output commands (all or nothing) and SIGTERM/SIGINT
mid-write run as subprocesses.
"""
from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_harness import ROOT, SCRIPTS, check_contract, digest_tree, run_inproc, run_subprocess
from fault_workspace import OUT, PLOT, VALID, argv_with

try:
    import matplotlib  # noqa: F401

    CASES = {**VALID, **PLOT}
except ImportError:  # pragma: no cover - plot extra not installed
    CASES = dict(VALID)


def _ext(name: str) -> str:
    return ".png" if name.startswith("plot") else ".txt"


def _readonly_target(ws: Path) -> str:
    """A place the process may not create files in (as root, chmod does not stop it: /sys does)."""
    if os.geteuid() == 0:
        return "/sys/pref_eval_fault_test" + ".png"
    ro = ws / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    return str(ro / "x.png")


SLOW = pytest.mark.slow


def _p(names, fast):
    """Parameters; those not in ``fast`` run only with the slow tests (CI)."""
    return [n if n in fast else pytest.param(n, marks=SLOW) for n in names]


# plot cases import matplotlib (~1 s each): default run keeps one
WITH_OUTPUT = _p(sorted(k for k, (_, a) in CASES.items() if OUT in a),
                 {k for k in CASES if not k.startswith("plot")} | {"plot-scores"})


@pytest.mark.parametrize("case", _p(sorted(CASES), {k for k in CASES if not k.startswith("plot")}))
def test_valid_invocation_succeeds(ws, case):
    """The starting points of the fault cases work (else the faults prove nothing)."""
    script, argv = CASES[case]
    res = run_inproc(script, argv_with(argv, "out" + _ext(case)), ws)
    assert res.returncode == 0, res.stderr


@pytest.mark.parametrize("case", WITH_OUTPUT)
@pytest.mark.parametrize("fault", ["missing-dir", "directory", "read-only", "dev-full"])
def test_unwritable_output_exit_1(ws, case, fault):
    script, argv = CASES[case]
    target = {"missing-dir": "no/such/dir/out" + _ext(case), "directory": "adir" + _ext(case),
              "read-only": None, "dev-full": "/dev/full"}[fault]
    if fault == "directory":
        (ws / target).mkdir()
    if fault == "read-only":
        target = _readonly_target(ws)
    before = digest_tree(ws)
    if case.startswith("plot") and fault == "dev-full":
        pytest.skip("a .png/.svg extension is required by zelo_plot")
    if case == "judge-state" and fault == "dev-full":
        pytest.skip("-o fails at the end, after the state was advanced batch by batch (docs/zelo_judge.md)")
    res = run_inproc(script, argv_with(argv, target), ws)
    assert check_contract(res, script=script, expect={1}, names=(target,)) == []
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert digest_tree(ws) == before


PLOT_CASES = _p(sorted(k for k in CASES if k.startswith("plot")), {"plot-scores"})


@pytest.mark.parametrize("case", PLOT_CASES)
@pytest.mark.parametrize("ext", [".png", ".svg", ".pdf"])
def test_plot_full_disk_one_line(ws, case, ext):
    """``ln -s /dev/full full.pdf; zelo_plot ... -o full.pdf``: one line "No space left on device", exit 1
    (a PDF was a traceback: matplotlib's PDF clean-up raised a second exception after the failed write)."""
    script, argv = CASES[case]
    os.symlink("/dev/full", ws / ("full" + ext))
    before = digest_tree(ws)
    res = run_inproc(script, argv_with(argv, "full" + ext), ws)
    assert check_contract(res, script=script, expect={1}, names=("full" + ext,)) == []
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert "No space left on device" in res.stderr
    assert digest_tree(ws) == before


@pytest.mark.parametrize("case", PLOT_CASES)
@pytest.mark.parametrize("target", ["adir", "adir/", "newdir/"])
def test_plot_directory_output_exit_1(ws, case, target):
    """A directory as zelo_plot's output (existing, or a name ending in /) is an unwritable output, exit 1
    as docs/exit-codes.md says (was exit 2 "expected a .png, .svg or .pdf extension")."""
    script, argv = CASES[case]
    (ws / "adir").mkdir()
    before = digest_tree(ws)
    res = run_inproc(script, argv_with(argv, target), ws)
    assert check_contract(res, script=script, expect={1}, names=(target,)) == []
    assert "Is a directory" in res.stderr
    assert digest_tree(ws) == before


@pytest.mark.parametrize("case", WITH_OUTPUT)
def test_output_onto_input_refused(ws, case):
    script, argv = CASES[case]
    inputs = [a for a in argv if (ws / a).is_file()]
    if not inputs:
        pytest.skip(f"{case} reads no file")
    victim = inputs[-1]
    before = digest_tree(ws)
    res = run_inproc(script, argv_with(argv, "./" + victim), ws)
    if case.startswith("plot"):  # the extension check comes first: still refused, still untouched
        assert res.returncode == 2
    else:
        assert check_contract(res, script=script, expect={2}, names=(victim,)) == []
        assert "same file" in res.stderr
    assert digest_tree(ws) == before


@pytest.mark.parametrize("case", WITH_OUTPUT)
def test_dev_null_written_through(ws, case):
    if case.startswith("plot"):
        pytest.skip("zelo_plot requires a .png/.svg name")
    script, argv = CASES[case]
    before = os.stat("/dev/null")
    res = run_inproc(script, argv_with(argv, "/dev/null"), ws)
    assert res.returncode == 0, res.stderr
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


@pytest.mark.parametrize("case", _p(["eval", "fit", "compare-R", "aggregate", "compare-orderings"], {"eval", "fit"}))
def test_dev_stdout_pipe_written_through(ws, case):
    """``--output /dev/stdout`` with standard output a pipe (``cmd -o /dev/stdout | less``): /dev/stdout
    resolves to ``/proc/PID/fd/pipe:[N]``, which is no path; the pipe is written, nothing is created."""
    script, argv = CASES[case]
    before = digest_tree(ws)
    res = run_subprocess(script, argv_with(argv, "/dev/stdout"), ws)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip(), "nothing written to the pipe"
    assert b"Traceback" not in res.stderr
    assert digest_tree(ws) == before


@pytest.mark.parametrize("case", WITH_OUTPUT)
def test_symlink_followed_not_replaced(ws, case):
    script, argv = CASES[case]
    ext = _ext(case)
    (ws / "sub").mkdir()
    os.symlink("sub/target" + ext, ws / ("link" + ext))
    res = run_inproc(script, argv_with(argv, "link" + ext), ws)
    assert res.returncode == 0, res.stderr
    assert (ws / ("link" + ext)).is_symlink()
    assert (ws / "sub" / ("target" + ext)).stat().st_size > 0
    assert not [p for p in ws.rglob(".tmp-*")]


@pytest.mark.parametrize("case", WITH_OUTPUT)
def test_existing_output_kept_mode(ws, case):
    script, argv = CASES[case]
    out = ws / ("old" + _ext(case))
    out.write_bytes(b"old contents\n")
    out.chmod(0o640)
    res = run_inproc(script, argv_with(argv, out.name), ws)
    assert res.returncode == 0, res.stderr
    assert out.read_bytes() != b"old contents\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


# ---- multi-output commands: all or nothing ---------------------------------------------

def test_fit_all_or_nothing(ws):
    (ws / "old.tsv").write_text("old\n")
    before = digest_tree(ws)
    res = run_inproc("zelo_fit", ["-J", "j.judge", "-Q", "-o", "old.tsv", "--qrels", "nodir/x.qrels"], ws)
    assert check_contract(res, script="zelo_fit", expect={1}, names=("nodir/x.qrels",)) == []
    assert digest_tree(ws) == before
    res = run_inproc("zelo_fit", ["-J", "j.judge", "-Q", "-o", "old.tsv", "--diagnostics", "/dev/full"], ws)
    assert res.returncode == 1 and digest_tree(ws) == before
    # stdout is held back when a file output fails
    res = run_inproc("zelo_fit", ["-J", "j.judge", "-Q", "--qrels", "nodir/x.qrels"], ws)
    assert res.returncode == 1 and res.stdout == b""
    # two outputs naming one file
    res = run_inproc("zelo_fit", ["-J", "j.judge", "-Q", "-o", "old.tsv", "--qrels", "./old.tsv"], ws)
    assert res.returncode == 2 and digest_tree(ws) == before
    res = run_inproc("zelo_fit", ["-J", "j.judge", "-Q", "-o", "new.tsv", "--qrels", "new.qrels",
                                  "--diagnostics", "new.diag"], ws)
    assert res.returncode == 0 and all((ws / n).stat().st_size for n in ("new.tsv", "new.qrels", "new.diag"))


def test_pool_contributions_all_or_nothing(ws):
    """zelo_pairs pool -o F --contributions R: both written or neither; the report never over an input, and a
    clash named by the input's option (--contributions q.qrels: "the same file as --qrels", was "as
    --contributions")."""
    (ws / "old.txt").write_text("old\n")
    before = digest_tree(ws)
    pool = ["pool", "--depth", "5", "--qrels", "q.qrels", "-Q", "-o", "old.txt"]
    for target, code in (("nodir/c.tsv", 1), ("/dev/full", 1), ("adir/", 1), ("q.qrels", 2), ("./old.txt", 2),
                         ("bm25.run", 2)):
        res = run_inproc("zelo_pairs", [*pool, "--contributions", target, "bm25.run", "dense.run"], ws)
        assert check_contract(res, script="zelo_pairs", expect={code}, names=(target,)) == [], target
        assert digest_tree(ws) == before, target
    res = run_inproc("zelo_pairs", [*pool, "--contributions", "q.qrels", "bm25.run", "dense.run"], ws)
    assert "the same file as --qrels q.qrels" in res.stderr, res.stderr
    res = run_inproc("zelo_pairs", ["pool", "--depth", "5", "-Q", "-o", "nodir/p.txt", "--contributions", "new.tsv",
                                    "bm25.run", "dense.run"], ws)
    assert res.returncode == 1 and not (ws / "new.tsv").exists()
    res = run_inproc("zelo_pairs", [*pool, "--contributions", "new.tsv", "bm25.run", "dense.run"], ws)
    assert res.returncode == 0 and (ws / "new.tsv").stat().st_size and (ws / "old.txt").read_text() != "old\n"


def test_pairs_next_state_not_advanced_on_failed_output(ws):
    before = digest_tree(ws)
    for target in ("nodir/batch.txt", "/dev/full", "s.json", "./s.json"):
        res = run_inproc("zelo_pairs", ["next", "--state", "s.json", "-o", target], ws)
        assert res.returncode in (1, 2), res
        assert digest_tree(ws) == before, target
    res = run_inproc("zelo_pairs", ["next", "--state", "s.json", "-o", "batch.txt"], ws)
    assert res.returncode == 0 and (ws / "batch.txt").stat().st_size > 0


def test_pairs_init_force_never_overwrites_its_input(ws):
    before = digest_tree(ws)
    for argv in (["init", "--state", "q.qrels", "--qrels", "q.qrels", "--force"],
                 ["init", "--state", "./q.qrels", "--qrels", "q.qrels", "--force"]):
        res = run_inproc("zelo_pairs", argv, ws)
        assert check_contract(res, script="zelo_pairs", expect={2}, names=("q.qrels",)) == []
    assert digest_tree(ws) == before


def test_pairs_add_rewrites_its_own_state(ws):
    """The same option reading and writing one file is that option's purpose."""
    run_inproc("zelo_pairs", ["next", "--state", "s.json", "-o", "batch.txt"], ws)
    res = run_inproc("zelo_pairs", ["add", "--state", "s.json", "-J", "j.judge", "-Q"], ws)
    assert res.returncode == 0, res.stderr


# ---- stdout faults and signals (subprocesses) --------------------------------------------

STDOUT_CASES = {
    "zelo_trec": ["-m", "map", "q.qrels", "bm25.run"],
    "zelo_eval": ["-R", "q.qrels", "-m", "map", "bm25.run"],
    "pref_aggregate": ["-P", "prefs.jsonl"],
    "zelo_fit": ["-J", "j.judge", "-Q"],
    "zelo_pairs": ["next", "--state", "s.json"],
    "zelo_simulate": ["tournament", "--matrix", "matrix.txt", "--reps", "2", "-Q"],
    "zelo_compare": ["--orderings", "order_a.tsv", "order_b.txt"],
    "zelo_agree": ["-J", "crowd.txt", "-J", "gpt.human", "-l", "pair", "--resamples", "0", "-Q"],
    "zelo_judge": ["export", "--store", "judge.sqlite", "-Q"],
}
if "plot-scores" in CASES:  # the plot extra: an image on standard output (-o - --format)
    STDOUT_CASES["zelo_plot"] = ["scores", "-S", "scores.tsv", "-Q", "-o", "-", "--format", "png"]


@pytest.mark.parametrize("script", _p(sorted(STDOUT_CASES), {"zelo_trec", "zelo_pairs", "zelo_fit", "zelo_plot",
                                                               "zelo_agree", "zelo_judge"}))
def test_closed_stdout(ws, script):
    before = digest_tree(ws)
    res = _closed_stdout(script, ws)
    assert res.returncode == 1, res.stderr
    err = res.stderr.decode()
    assert "Traceback" not in err and err.count("\n") == 1 and "standard output" in err, err
    assert digest_tree(ws) == before


def _closed_stdout(script: str, ws: Path) -> subprocess.CompletedProcess:
    mod, func = SCRIPTS[script]
    argv = " ".join(STDOUT_CASES[script])
    cmd = f"{sys.executable} -c 'import {mod} as m; m.{func}()' {argv} >&-"
    return subprocess.run(["bash", "-c", cmd], capture_output=True, cwd=ws, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.mark.parametrize("script", _p(["zelo_trec", "zelo_eval", "zelo_pairs", "zelo_agree", "zelo_judge",
                                       *(["zelo_plot"] if "zelo_plot" in STDOUT_CASES else [])],
                                      {"zelo_pairs", "zelo_plot", "zelo_agree", "zelo_judge"}))
def test_stdout_disk_full(ws, script):
    with open("/dev/full", "wb") as full:
        res = run_subprocess(script, STDOUT_CASES[script], ws, stdout=full, stderr=subprocess.PIPE)
    err = res.stderr.decode()
    assert res.returncode == 1 and "Traceback" not in err and "No space left" in err, err


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """A collection large enough that the commands are still writing when signalled."""
    d = tmp_path_factory.mktemp("big")
    with open(d / "q.qrels", "w") as f:
        for q in range(300):
            for k in range(100):
                f.write(f"{q} 0 d{k} {(q + k) % 4}\n")
    with open(d / "r.run", "w") as f:
        for q in range(300):
            for k in range(1000):
                f.write(f"{q} Q0 d{k} {k + 1} {1000 - k} r\n")
    return d


def _wait_for_sigterm_handler(p: subprocess.Popen, timeout: float = 60.0) -> None:
    """Until the command catches SIGTERM (``run_main``'s ``_run`` installs the handler; from then on SIGINT
    and SIGTERM end it with 130/143 and no traceback) or ends: read from the caught-signal mask in
    /proc/PID/status (Linux; elsewhere no wait). A signal sent earlier lands in the interpreter still
    importing, where Python itself prints a traceback for Ctrl-C: on a loaded machine the command's start
    can take longer than the test's 0.3 s."""
    status = Path(f"/proc/{p.pid}/status")
    end = time.monotonic() + timeout
    while p.poll() is None and time.monotonic() < end:
        try:
            masks = [ln.split()[1] for ln in status.read_text().splitlines() if ln.startswith("SigCgt:")]
        except OSError:
            return
        if not masks or int(masks[0], 16) >> (signal.SIGTERM - 1) & 1:
            return
        time.sleep(0.005)


def _zelo_eval_writing(big: Path, tmp_path: Path, delay: float) -> tuple[Path, dict, subprocess.Popen]:
    """A copy of ``big`` with an earlier ``out.tsv`` (its digest taken) and zelo_eval started on it,
    writing all_trec into out.tsv; returned ``delay`` seconds after the start, but never before the
    command handles signals."""
    ws = tmp_path / "w"
    shutil.copytree(big, ws)
    (ws / "out.tsv").write_text("earlier output\n")
    before = digest_tree(ws)
    mod, func = SCRIPTS["zelo_eval"]
    p = subprocess.Popen([sys.executable, "-c", f"import {mod} as m; m.{func}()", "-R", "q.qrels", "-q", "-m",
                          "all_trec", "-o", "tsv", "--output", "out.tsv", "r.run"], cwd=ws,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.PIPE)
    t0 = time.monotonic()
    _wait_for_sigterm_handler(p)
    time.sleep(max(0.0, delay - (time.monotonic() - t0)))
    return ws, before, p


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("delay", _p([0.3, 0.8, 1.3], {0.8}))
def test_signal_mid_write_leaves_nothing(big, tmp_path, sig, delay):
    ws, before, p = _zelo_eval_writing(big, tmp_path, delay)
    p.send_signal(sig)
    _, err = p.communicate(timeout=120)
    err = err.decode()
    assert "Traceback" not in err, err
    assert p.returncode in (0, 130, 143), (p.returncode, err)
    # one line: click wrote a blank one first (its terminal ``^C`` echo), also into a file or a pipe
    assert err in ("", "zelo_eval: interrupted\n", "zelo_eval: terminated\n"), err
    assert not list(ws.glob(".tmp-*"))
    after = digest_tree(ws)
    if p.returncode != 0:
        assert after == before
    else:  # finished before the signal: the new output replaced the old one whole
        assert after["out.tsv"] != before["out.tsv"]


@pytest.mark.parametrize("case", _p(["eval", "fit", "compare-R"], {"eval"}))
@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_dev_stdout_closed_is_an_error(ws, case, name):
    """``--output /dev/stdout >&-``: the closed standard output is refused (exit 1, one line), as
    without ``--output`` -- not written silently into the /dev/null that stands in for fd 1."""
    if name == "/proc/self/fd/1" and not os.path.exists(name):
        pytest.skip("no /proc")
    script, argv = CASES[case]
    mod, func = SCRIPTS[script]
    args = " ".join(argv_with(argv, name))
    before = digest_tree(ws)
    res = subprocess.run(["bash", "-c", f"{sys.executable} -c 'import {mod} as m; m.{func}()' {args} >&-"],
                         capture_output=True, cwd=ws, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    err = res.stderr.decode()
    assert res.returncode == 1, err
    assert "Traceback" not in err and err.count("\n") == 1 and "standard output" in err, err
    assert digest_tree(ws) == before


@pytest.mark.parametrize("case", _p(["eval", "fit", "compare-R", "aggregate"], {"eval", "fit"}))
def test_dev_stdout_pipe_closed_by_reader_is_quiet(ws, case):
    """``cmd --output /dev/stdout | head -c1``: a reader that has gone is exit 0 and silent, as
    for standard output itself (docs/exit-codes.md), also when the last bytes are still in the
    buffer when the file is closed (they were reported as 'cannot write: Broken pipe', exit 1)."""
    script, argv = CASES[case]
    r, w = os.pipe()
    os.close(r)  # the reader is gone before anything is written: every write gets EPIPE
    try:
        res = run_subprocess(script, argv_with(argv, "/dev/stdout"), ws, stdout=w, stderr=subprocess.PIPE)
    finally:
        os.close(w)
    assert res.returncode == 0 and res.stderr == b"", res.stderr


@pytest.mark.parametrize("out", ["-", "/dev/stdout"])
def test_files_committed_when_stdout_reader_has_gone(ws, out):
    """``zelo_fit -J J --qrels Q | head -c1``: the scores' reader stopping early is exit 0 (a closed
    pipe is no error) and Q, complete by then, is written (it was silently left out)."""
    r, w = os.pipe()
    os.close(r)
    try:
        res = run_subprocess("zelo_fit", ["-J", "j.judge", "-Q", "--qrels", "q-out.qrels", "-o", out], ws,
                             stdout=w, stderr=subprocess.PIPE)
    finally:
        os.close(w)
    assert res.returncode == 0 and res.stderr == b"", res.stderr
    assert (ws / "q-out.qrels").stat().st_size > 0
    assert not list(ws.rglob(".tmp-*"))


def test_dev_stdout_socket_written_through(ws):
    """``--output /dev/stdout`` when standard output is a socket (a service manager, ``ssh``, a
    socketpair): written through fd 1 itself (reopening /proc/self/fd/1 of a socket fails, ENXIO)."""
    import socket

    script, argv = CASES["fit"]
    a, b = socket.socketpair()
    with a:
        try:
            p = subprocess.Popen([sys.executable, "-c", "import {} as m; m.{}()".format(*SCRIPTS[script]),
                                  *argv_with(argv, "/dev/stdout")], stdout=b.fileno(), stderr=subprocess.PIPE,
                                 cwd=ws, env={**os.environ, "PYTHONPATH": str(ROOT)})
        finally:
            b.close()
        data = b""
        while chunk := a.recv(65536):
            data += chunk
        err = p.stderr.read()
        p.stderr.close()
        assert p.wait(timeout=120) == 0, err
    assert data.startswith(b"qid\tdocno\tscore\tse\n") and err == b""


# ---- an output under another spelling of an input (session 18) -------------------------------

def _inodes(ws: Path) -> dict[str, int]:
    return {str(p.relative_to(ws)): p.lstat().st_ino for p in ws.rglob("*")}


@pytest.mark.parametrize("case", WITH_OUTPUT)
@pytest.mark.parametrize("spelling", _p(["nosub/../{}", "q.qrels/../{}", "link-via-missing-dir"],
                                        {"nosub/../{}"}))
def test_output_through_a_missing_directory_onto_an_input(ws, case, spelling):
    """``-o nosub/../bm25.run``: the kernel finds no such file (nosub is missing: ENOENT; a regular file as a
    directory: ENOTDIR), so nothing can be written there -- but os.path.realpath, which the output layer used
    to find the file to replace, makes it ``bm25.run``, and the input was replaced by the output (exit 0).
    Also through a symbolic link pointing there. Expected: exit 1 naming the path, every file as it was."""
    script, argv = CASES[case]
    inputs = [a for a in argv if (ws / a).is_file()]
    ext = _ext(case)
    victim = inputs[-1] if inputs and not case.startswith("plot") else "old" + ext  # plot: an .png name
    if not (ws / victim).exists():
        (ws / victim).write_bytes(b"an earlier image\n")
    if spelling == "link-via-missing-dir":
        os.symlink(f"nosub/../{victim}", ws / ("link" + ext))
        out = "link" + ext
    else:
        out = spelling.format(victim)
    before, inodes = digest_tree(ws), _inodes(ws)
    res = run_inproc(script, argv_with(argv, out), ws)
    assert check_contract(res, script=script, expect={1}, names=(out,)) == []
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert digest_tree(ws) == before and _inodes(ws) == inodes


def test_judge_store_through_a_missing_directory(ws):
    """``--store nosub/../new.db``: SQLite makes the name ``new.db`` and created the store there, and the
    failed lock file was reported as "OUT: cannot write" (another file's error put on the output)."""
    script, argv = CASES["judge"]
    argv = [("nosub/../new.db" if a == "judge.sqlite" else a) for a in argv_with(argv, "out.txt")]
    before = digest_tree(ws)
    res = run_inproc(script, argv, ws)
    assert check_contract(res, script=script, expect={1}, names=("nosub/../new.db",)) == []
    assert digest_tree(ws) == before and not (ws / "new.db").exists()


def test_another_files_error_is_not_the_outputs(tmp_path):
    """An OSError naming another file (an input read, a lock) met while the output is open is reported
    under that file's name, not as the output's "cannot write"; a write error names the output."""
    from pref_eval.errors import OutputError
    from pref_eval.output.atomic import output_file

    out = tmp_path / "out.txt"
    with pytest.raises(FileNotFoundError) as info, output_file(str(out)) as fh:
        fh.write("x")
        raise FileNotFoundError(2, "No such file or directory", "in.txt")
    assert info.value.filename == "in.txt" and not out.exists() and not list(tmp_path.iterdir())
    with pytest.raises(OutputError, match="out.txt: cannot write: No space left"), output_file(str(out)) as fh:
        raise OSError(28, "No space left on device", str(out))


@pytest.mark.parametrize("script", _p(sorted(STDOUT_CASES), {"zelo_trec", "zelo_fit", "zelo_pairs"}))
def test_stdout_appended_to_an_input_refused(ws, script):
    """``cmd ... RUN >> RUN``: standard output is a regular file that is one of the inputs; writing would
    append to the input. Refused as an output file that is an input (exit 2, one line), the input intact
    (GNU cat: "input file is output file")."""
    argv = STDOUT_CASES[script]
    victim = [a for a in argv if (ws / a).is_file()][-1]
    before, inodes = digest_tree(ws), _inodes(ws)
    with open(ws / victim, "ab") as out:
        res = run_subprocess(script, argv, ws, stdout=out, stderr=subprocess.PIPE)
    err = res.stderr.decode()
    assert res.returncode == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "standard output is the same file as" in err and victim in err, err
    if script == "zelo_trec":  # its one positional parameter holds both files: each named by its place
        assert "RESULTS_FILE bm25.run" in err, err
    assert digest_tree(ws) == before and _inodes(ws) == inodes


def test_output_onto_a_lock_file_refused(ws):
    """``zelo_pairs next --state S -o S.lock``: the lock file exists while the command holds it and is
    removed on release -- the batch written there was removed with it (exit 0, nothing left). The store's
    lock of zelo_judge (``export -o STORE.lock``) likewise. Refused, exit 2; the state not advanced."""
    before = digest_tree(ws)
    for script, argv, name in (("zelo_pairs", ["next", "--state", "s.json", "-o", "s.json.lock"], "s.json.lock"),
                               ("zelo_pairs", ["next", "--state", "s.json", "-o", "./s.json.lock"], "s.json.lock"),
                               ("zelo_judge", ["export", "--store", "judge.sqlite", "-Q", "-o", "judge.sqlite.lock"],
                                "judge.sqlite.lock")):
        res = run_inproc(script, argv, ws)
        assert check_contract(res, script=script, expect={2}, names=(name,)) == []
        assert digest_tree(ws) == before
    assert not (ws / "s.json.lock").exists()


def test_state_lock_release_keeps_a_file_written_over_it(tmp_path):
    """The lock file is removed on release only while it is still the lock (the same inode)."""
    from pref_eval.zelo.state_lock import state_lock

    state = tmp_path / "s.json"
    state.write_text("{}")
    with state_lock(str(state)):
        (tmp_path / "other").write_text("kept\n")
        os.replace(tmp_path / "other", tmp_path / "s.json.lock")
    assert (tmp_path / "s.json.lock").read_text() == "kept\n"
    with state_lock(str(tmp_path / "t.json")):
        assert (tmp_path / "t.json.lock").exists()
    assert not (tmp_path / "t.json.lock").exists()


def _signal_self(sig: int = signal.SIGINT) -> None:
    os.kill(os.getpid(), sig)
    time.sleep(0.01)  # delivered at once, unless held: then its handler runs when it is let through


@pytest.fixture
def ctrl_c():
    """Python's own SIGINT handler (KeyboardInterrupt) for the test: pytest-xdist's workers ignore SIGINT."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def test_second_interrupt_during_clean_up_leaves_no_temporary_file(tmp_path, monkeypatch, ctrl_c):
    """Ctrl-C pressed twice: the second arrives while the first one's clean-up closes the temporary file;
    its KeyboardInterrupt skipped the removal, a ``.tmp-*`` file was left behind. Signals are held for the
    clean-up (pref_eval.output.atomic.signals_held) and handled after it."""
    from pref_eval.output import atomic

    out = tmp_path / "out.txt"
    out.write_text("earlier\n")
    real_discard = atomic._Target.discard

    def discard(self):
        if self.tmp is not None:
            _signal_self()
        real_discard(self)

    monkeypatch.setattr(atomic._Target, "discard", discard)
    with pytest.raises(KeyboardInterrupt), atomic.output_file(str(out)) as fh:
        fh.write("new\n")
        raise KeyboardInterrupt  # the first Ctrl-C
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"] and out.read_text() == "earlier\n"


def test_signal_during_commit_renames_every_output_or_none(tmp_path, monkeypatch, ctrl_c):
    """A signal between the renames of two outputs (``zelo_fit -o S --qrels Q``) replaced S but not Q. The
    renames are done with signals held: both replaced, then the signal is handled (exit 130/143)."""
    from pref_eval.output import atomic

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old a\n")
    b.write_text("old b\n")
    real_replace = os.replace
    calls = []

    def replace(src, dst):
        real_replace(src, dst)
        calls.append(dst)
        if len(calls) == 1:
            _signal_self()

    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt), atomic.output_files([str(a), str(b)]) as (fa, fb):
        fa.write("new a\n")
        fb.write("new b\n")
    assert (a.read_text(), b.read_text()) == ("new a\n", "new b\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


@pytest.mark.parametrize("delay", _p([0.2, 0.6, 1.0], {0.6}))
def test_signals_in_a_burst_no_traceback(big, tmp_path, delay):
    """Ctrl-C pressed again and again (and a SIGTERM among them) while the output is written: one
    message, exit 130 or 143 -- the later signals met the exit path's own code (the message being written,
    the handlers being restored: a KeyboardInterrupt traceback; the default SIGTERM action: killed, -15);
    the earlier output intact, no temporary file."""
    ws, before, p = _zelo_eval_writing(big, tmp_path, delay)
    for sig in (signal.SIGINT, signal.SIGINT, signal.SIGTERM, signal.SIGINT, signal.SIGTERM, signal.SIGINT):
        if p.poll() is not None:
            break
        p.send_signal(sig)
        time.sleep(0.002)
    _, err = p.communicate(timeout=120)
    err = err.decode()
    assert "Traceback" not in err and "object address" not in err, err
    assert p.returncode in (0, 130, 143), (p.returncode, err)
    assert err in ("", "zelo_eval: interrupted\n", "zelo_eval: terminated\n"), err  # one line, no blank one
    assert not list(ws.glob(".tmp-*"))
    if p.returncode != 0:
        assert digest_tree(ws) == before


@pytest.mark.parametrize("case", ["eval", "fit"])
def test_a_long_extension_is_a_legal_name(ws, case):
    """``-o x.yyy…`` (252 bytes, a legal name): the temporary file carried the extension after ``.tmp-`` and 8
    random characters, 265 bytes: "File name too long" for a name the file system takes."""
    script, argv = CASES[case]
    name = "x." + "y" * 250
    res = run_inproc(script, argv_with(argv, name), ws)
    assert res.returncode == 0, res.stderr
    assert (ws / name).stat().st_size > 0 and not list(ws.glob(".tmp-*"))


def test_dev_stderr_closed_is_an_error(ws):
    """``--output /dev/stderr 2>&-``: written silently into the /dev/null that stands in for fd 2, exit 0;
    refused as ``--output /dev/stdout >&-`` is (exit 1; the message has nowhere to go)."""
    script, argv = CASES["eval"]
    mod, func = SCRIPTS[script]
    args = " ".join(argv_with(argv, "/dev/stderr"))
    res = subprocess.run(["bash", "-c", f"{sys.executable} -c 'import {mod} as m; m.{func}()' {args} 2>&-"],
                         capture_output=True, cwd=ws, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert res.returncode == 1 and res.stdout == b"", res


@pytest.mark.parametrize("script,argv,out", [
    ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-o", "tsv", "--output", "bm25.run", "-"], None),
    ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-o", "tsv", "--output", "./bm25.run", "-"], None),
    ("zelo_fit", ["-J", "-", "--format", "clarke3", "-Q", "-o", "/dev/stdin"], None),
    ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-"], "append"),
    ("zelo_fit", ["-J", "-", "--format", "clarke3", "-Q"], "append"),
])
def test_standard_input_file_is_an_input(ws, script, argv, out):
    """``-`` (standard input) redirected from a file is that file: ``zelo_eval ... --output r.run - < r.run``
    replaced the run read, ``-o /dev/stdin`` too, and ``- < F >> F`` appended to it (the input ``-`` was also
    taken for the output option's own value, ``-``, and left out). Refused, exit 2."""
    victim = "bm25.run" if script == "zelo_eval" else "j.judge"
    before, inodes = digest_tree(ws), _inodes(ws)
    with open(ws / victim, "rb") as stdin, open(ws / victim, "ab") if out else open(os.devnull, "wb") as stdout:
        res = subprocess.run([sys.executable, "-c", "import {} as m; m.{}()".format(*SCRIPTS[script]), *argv],
                             stdin=stdin, stdout=stdout, stderr=subprocess.PIPE, cwd=ws, timeout=120,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    err = res.stderr.decode()
    assert res.returncode == 2 and err.count("\n") == 1 and "(standard input)" in err, err
    assert digest_tree(ws) == before and _inodes(ws) == inodes


def _broken_stderr_run(script: str, argv: list[str], ws: Path) -> subprocess.CompletedProcess:
    r, w = os.pipe()
    os.close(r)  # the reader of standard error has gone (``cmd 2>&1 | head -1``, a dead log pipe)
    try:
        return run_subprocess(script, argv, ws, stdout=subprocess.DEVNULL, stderr=w)
    finally:
        os.close(w)


def test_warning_to_a_broken_stderr_does_not_stop_the_command(ws, tmp_path):
    """A warning written to a standard error whose reader has gone raised BrokenPipeError, taken for the
    closed standard output of ``cmd | head``: the command stopped there with exit 0 and its work undone
    (``zelo_pairs add`` left the second batch out of the state). The state must be what the same command
    writes with stderr readable."""
    twin = tmp_path / "twin"
    shutil.copytree(ws, twin)
    argv = ["add", "--state", "rs.json", "-J", "rs-round1.jsonl", "-J", "j.jsonl"]  # the first one warns
    res = _broken_stderr_run("zelo_pairs", argv, ws)
    assert res.returncode == 0
    ref = run_subprocess("zelo_pairs", argv, twin)
    assert ref.returncode == 0 and b"warning" in ref.stderr, ref.stderr
    assert (ws / "rs.json").read_bytes() == (twin / "rs.json").read_bytes()


@pytest.mark.parametrize("script,argv,code", [
    ("zelo_eval", ["-R", "q.qrels", "-m", "map", "nosuch.run"], 2),
    ("zelo_eval", ["-R", "q.qrels", "--bogus"], 2),
    ("zelo_eval", ["-R", "q.qrels", "-m", "map", "-o", "tsv", "--output", "nodir/x", "bm25.run"], 1),
])
def test_error_to_a_broken_stderr_keeps_its_exit_status(ws, script, argv, code):
    """The message cannot be written; the exit status is still the documented one (was 1 for every error:
    the BrokenPipeError of the message itself)."""
    assert _broken_stderr_run(script, argv, ws).returncode == code


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_existing_output_keeps_its_owner(ws):
    """Root rewriting a user's output made it root's (the new file is root's; the mode alone was copied):
    the user could no longer write to it in place. The owner and group are copied as far as allowed."""
    out = ws / "own.tsv"
    out.write_text("old\n")
    os.chown(out, 65534, 65534)
    out.chmod(0o640)
    script, argv = CASES["eval"]
    res = run_inproc(script, argv_with(argv, out.name), ws)
    assert res.returncode == 0, res.stderr
    st = out.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (65534, 65534, 0o640)
    assert out.read_text() != "old\n"


def _no_chown(monkeypatch) -> None:
    """The process may not give a file away (a user who is not root): ``fchown`` fails with EPERM. The mode
    and owner are set on the open file, never through its name (``chown``/``chmod`` here fail the test)."""
    import errno

    def refused(*args):
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    def by_name(*args, **kwargs):
        raise AssertionError("set through the file's name, not its descriptor")

    monkeypatch.setattr(os, "fchown", refused)
    monkeypatch.setattr(os, "chown", by_name)
    monkeypatch.setattr(os, "chmod", by_name)


def test_owner_not_kept_is_said(ws, monkeypatch):
    """An owner or group of a replaced output that could not be kept (a user who is not root replacing
    another user's file; tests/test_permission_faults.py runs it so) is one ``warning:`` line naming the file,
    after the rename, exit 0; ``-Q`` silences it; the Python API gives a PrefEvalWarning. A file that keeps
    its owner, or a new file, gives none. Was silent."""
    from pref_eval.errors import PrefEvalWarning

    give = os.chown
    out = ws / "theirs.tsv"
    out.write_text("old\n")
    give(out, 65533, 65533)  # the suite's user cannot, when it is not root: then the file is its own
    out.chmod(0o664)
    before = out.stat()
    _no_chown(monkeypatch)
    script, argv = CASES["eval"]
    res = run_inproc(script, argv_with(argv, out.name), ws)
    st = out.stat()
    assert res.returncode == 0 and out.read_text() != "old\n" and stat.S_IMODE(st.st_mode) == 0o664
    changed = (st.st_uid, st.st_gid) != (before.st_uid, before.st_gid)
    lines = res.stderr.splitlines()
    if changed:
        assert len(lines) == 1 and lines[0].startswith("zelo_eval: warning: theirs.tsv: was owned by "), lines
        assert lines[0].endswith(", or to a group its owner is not in)"), lines
    else:
        assert lines == []
    res = run_inproc(script, [*argv_with(argv, out.name), "-Q"], ws)  # now the process's own file
    assert res.returncode == 0 and res.stderr == ""
    res = run_inproc(script, argv_with(argv, "new.tsv"), ws)
    assert res.returncode == 0 and res.stderr == ""
    if os.geteuid() != 0:
        return
    give(out, 65533, 65533)
    res = run_inproc(script, [*argv_with(argv, out.name), "-Q"], ws)
    assert res.returncode == 0 and res.stderr == "" and out.stat().st_uid == 0
    import pref_eval.api

    give(out, 65533, 65533)
    with pytest.warns(PrefEvalWarning, match=r"theirs\.tsv: was owned by .*, now by root:"):
        pref_eval.api.fit(str(ws / "j.judge"), output=str(out))


@pytest.mark.parametrize("argv", [["-J", "j.judge", "-Q", "--qrels", "q-out.qrels"],
                                  ["-J", "j.judge", "-Q", "--qrels", "./q-out.qrels", "-o", "-"]])
def test_stdout_redirected_to_another_output_refused(ws, argv):
    """``zelo_fit -J J --qrels Q > Q``: Q was renamed over the file standard output wrote into, and the
    scores were lost (exit 0). Refused (exit 2), nothing written."""
    with open(ws / "q-out.qrels", "wb") as out:
        res = run_subprocess("zelo_fit", argv, ws, stdout=out, stderr=subprocess.PIPE)
    err = res.stderr.decode()
    assert res.returncode == 2 and err.count("\n") == 1 and "q-out.qrels" in err, err
    assert (ws / "q-out.qrels").stat().st_size == 0 and not list(ws.glob(".tmp-*"))


def test_writable_file_in_an_unwritable_directory(ws):
    """The file is writable, its directory takes no new file (``chattr +i``, or no write permission): the
    output is refused (exit 1, the file as it was) -- written in place it would not be atomic -- and the
    message says it is the directory ("Operation not permitted" alone named a writable file)."""
    d = ws / "imm"
    d.mkdir()
    (d / "f.txt").write_text("old\n")
    if subprocess.run(["chattr", "+i", str(d)], capture_output=True).returncode != 0:  # noqa: S607
        pytest.skip("chattr +i not available here")
    try:
        script, argv = CASES["eval"]
        res = run_inproc(script, argv_with(argv, "imm/f.txt"), ws)
        assert check_contract(res, script=script, expect={1}, names=("imm/f.txt",)) == []
        assert "directory imm" in res.stderr, res.stderr
        assert (d / "f.txt").read_text() == "old\n" and [p.name for p in d.iterdir()] == ["f.txt"]
    finally:
        subprocess.run(["chattr", "-i", str(d)], check=True)  # noqa: S607


@pytest.mark.parametrize("case", ["eval", "fit", "pairs-next", "agree"])
@pytest.mark.parametrize("name", ["nodir/x\ny.txt", "nodir/\x1b[2Jx.txt"])
def test_control_characters_in_a_name_stay_one_line(ws, case, name):
    """``-o $'nodir/x\\ny'``: the message split into two lines at the name's newline (and a name's escape
    sequence reached the terminal). Written as escapes: one line, exit 1."""
    script, argv = CASES[case]
    res = run_inproc(script, argv_with(argv, name), ws)
    assert check_contract(res, script=script, expect={1}) == []
    assert len(res.stderr.splitlines()) == 1 and "\x1b" not in res.stderr, res.stderr
    assert name.replace("\n", "\\n").replace("\x1b", "\\x1b") in res.stderr, res.stderr


def test_control_characters_in_an_input_name_stay_one_line(ws):
    res = run_inproc("zelo_eval", ["-R", "q.qrels", "-m", "map", "no\nsuch.run"], ws)
    assert res.returncode == 2 and res.stderr == "zelo_eval: no\\nsuch.run: no such file (expected a run file)\n"


def test_output_in_a_removed_current_directory(ws):
    """The current directory was removed under the command (``cd d; rmdir ../d``): "PROG: No such file or
    directory" named no file. The output is named; exit 1."""
    mod, func = SCRIPTS["zelo_eval"]
    cmd = (f"mkdir gone && cd gone && rmdir ../gone && exec {sys.executable} -c 'import {mod} as m; m.{func}()' "
           f"-R {ws}/q.qrels -m map -o tsv --output out.tsv {ws}/bm25.run")
    res = subprocess.run(["bash", "-c", cmd], capture_output=True, cwd=ws, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    err = res.stderr.decode()
    assert res.returncode == 1 and err.count("\n") == 1 and "out.tsv: cannot write" in err, err


@pytest.mark.parametrize("option", ["-o", "--store"])
def test_judge_program_is_an_input(ws, option):
    """``--judge "cmd:python3 judge.py" -o judge.py``: the judge program (named inside the spec string, not by a
    path option) was replaced by the judgments, exit 0. The files a cmd: judge names are inputs: exit 2."""
    script, argv = CASES["judge"]
    argv = argv_with(argv, "out.txt")
    i = argv.index(option)
    argv = [*argv[:i + 1], "judge.py", *argv[i + 2:]]
    before = digest_tree(ws)
    res = run_inproc(script, argv, ws)
    assert check_contract(res, script=script, expect={2}, names=("judge.py",)) == []
    assert "same file as --judge judge.py" in res.stderr and digest_tree(ws) == before


# o30: a replaced output keeps its POSIX access ACL and user.* extended attributes
ACL_XATTR = "system.posix_acl_access"


def _acl(*entries: tuple[int, int, int]) -> bytes:
    """A POSIX ACL as the kernel stores it in ``system.posix_acl_access`` (linux/posix_acl_xattr.h: version 2,
    then per entry le16 tag, le16 permissions, le32 id; tags USER_OBJ 1, USER 2, GROUP_OBJ 4, MASK 0x10,
    OTHER 0x20), what ``setfacl -m u:12345:rw`` writes (getfacl/setfacl are not installed here)."""
    import struct

    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", tag, perm, ident) for tag, perm, ident in entries)


NOBODY = 0xFFFFFFFF  # the id field of the entries without one
# user::rw- user:12345:rw- group::r-- mask::rw- other::---  (mode 0660 in ls: the mask is the group bits)
ACL_RW = _acl((0x01, 6, NOBODY), (0x02, 6, 12345), (0x04, 4, NOBODY), (0x10, 6, NOBODY), (0x20, 0, NOBODY))
# default: user::rw- user:12345:r-- group::r-- mask::r-- other::r--
ACL_DEFAULT = _acl((0x01, 6, NOBODY), (0x02, 4, 12345), (0x04, 4, NOBODY), (0x10, 4, NOBODY), (0x20, 4, NOBODY))


def _set_or_skip(path: Path, name: str, value: bytes) -> None:
    if not hasattr(os, "setxattr"):
        pytest.skip("no extended attributes on this system (os.setxattr: Linux only)")
    try:
        os.setxattr(path, name, value)
    except OSError as err:
        pytest.skip(f"the filesystem of {path} does not take {name}: {err.strerror}")


def test_replaced_output_keeps_its_acl_and_user_xattrs(ws):
    """``setfacl -m u:12345:rw out`` then a command writing out: the new file renamed over it had no ACL (the
    user lost access; ``cp -a`` and ``sed -i`` keep it). The kernel's ACL bytes and the user.* attribute are
    the old file's, the mode's group bits the ACL mask; a new output gets none."""
    out = ws / "acl.tsv"
    out.write_text("old\n")
    _set_or_skip(out, ACL_XATTR, ACL_RW)
    _set_or_skip(out, "user.origin", b"o30")
    before = stat.S_IMODE(out.stat().st_mode)
    assert before == 0o660  # the kernel derived the mode from the ACL
    script, argv = CASES["eval"]
    res = run_inproc(script, argv_with(argv, out.name), ws)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert out.read_text() != "old\n"
    assert os.getxattr(out, ACL_XATTR) == ACL_RW and os.getxattr(out, "user.origin") == b"o30"
    assert stat.S_IMODE(out.stat().st_mode) == before
    assert not [n for n in os.listxattr(out) if n.startswith(".tmp")]
    res = run_inproc(script, argv_with(argv, "fresh.tsv"), ws)
    assert res.returncode == 0 and ACL_XATTR not in os.listxattr(ws / "fresh.tsv")


def test_replaced_output_does_not_take_the_directorys_default_acl(ws):
    """In a directory with a default ACL, the temporary file inherits an access ACL; the old file had none (it
    was removed): the new file has none either, and the old mode."""
    sub = ws / "shared"
    sub.mkdir()
    _set_or_skip(sub, "system.posix_acl_default", ACL_DEFAULT)
    out = sub / "out.tsv"
    out.write_text("old\n")
    assert os.getxattr(out, ACL_XATTR)  # inherited
    os.removexattr(out, ACL_XATTR)
    out.chmod(0o640)
    script, argv = CASES["eval"]
    res = run_inproc(script, argv_with(argv, "shared/out.tsv"), ws)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert ACL_XATTR not in os.listxattr(out) and stat.S_IMODE(out.stat().st_mode) == 0o640
    # an old file with the ACL it inherited keeps it
    os.setxattr(out, ACL_XATTR, ACL_RW)
    res = run_inproc(script, argv_with(argv, "shared/out.tsv"), ws)
    assert res.returncode == 0 and os.getxattr(out, ACL_XATTR) == ACL_RW


def test_acl_refused_on_the_new_file_is_said(ws, monkeypatch):
    """A filesystem that refuses the attribute on the new file (ENOTSUP, EPERM): one ``warning:`` line naming
    the file and the attribute, exit 0, the output replaced; the Python API gives a PrefEvalWarning."""
    import errno

    from pref_eval.errors import PrefEvalWarning

    out = ws / "acl.tsv"
    out.write_text("old\n")
    _set_or_skip(out, ACL_XATTR, ACL_RW)

    def refused(path, name, *args, **kwargs):
        if isinstance(path, int):  # on the new file's descriptor
            raise OSError(errno.ENOTSUP, os.strerror(errno.ENOTSUP))
        raise AssertionError("set through a name, not the descriptor")

    monkeypatch.setattr(os, "setxattr", refused)
    script, argv = CASES["eval"]
    res = run_inproc(script, argv_with(argv, out.name), ws)
    assert res.returncode == 0 and out.read_text() != "old\n"
    assert res.stderr.splitlines() == ["zelo_eval: warning: acl.tsv: its extended attribute(s) "
                                       "system.posix_acl_access could not be kept on the new file (the output is "
                                       "a new file renamed over the old one)"], res.stderr
    import pref_eval.api

    monkeypatch.undo()
    os.setxattr(out, ACL_XATTR, ACL_RW)
    monkeypatch.setattr(os, "setxattr", refused)
    with pytest.warns(PrefEvalWarning, match=r"acl\.tsv: its extended attribute\(s\) system\.posix_acl_access"):
        pref_eval.api.fit(str(ws / "j.judge"), output=str(out))
