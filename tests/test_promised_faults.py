"""Error paths docs/exit-codes.md promises that no test drove (v36, session 26: found by tools/coverage_run.py).

Each case drives what the page (or the module's docstring) says a user meets -- a group without its
subcommand, Ctrl-C with standard error on a terminal, a pipe whose reader has gone while click writes, an
output that is a socket, standard output closed under the Python API, a target swapped for a directory
before the commit, a signal held during the commit, a judge without the openai package -- and asserts the
documented behaviour: the exit status, one line naming the file and the reason, nothing left behind.
"""
from __future__ import annotations

import errno
import io
import os
import signal
import socket
import subprocess
import sys
import textwrap

import click
import pytest

from conftest import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
BUFFERED = {k: v for k, v in ENV.items() if k != "PYTHONUNBUFFERED"}  # stdout into a pipe holds its text


# --- cli/common.py: the command's frame ---

def test_group_without_subcommand_prints_its_help_on_stderr_exit_2(capsys):
    """docs/exit-codes.md: "A group given no subcommand (``zelo_pairs``) prints its help on stderr, exit code 2"
    -- click's help block, not the one-line usage error of a refused option."""
    from pref_eval.cli.common import _invoke
    from pref_eval.cli.pairs import command

    code = _invoke(command, "zelo_pairs", [], click)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("Usage: zelo_pairs [OPTIONS] COMMAND [ARGS]...\n") and "Commands:" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [True, False])
def test_ctrl_c_line_break_only_when_stderr_is_a_terminal(monkeypatch, terminal):
    """docs/exit-codes.md: interrupted, the command writes ``PROG: interrupted``, "preceded by a line break only
    when standard error is a terminal, after its ``^C`` echo"; status 130."""
    from pref_eval.cli.common import _invoke

    @click.command()
    def cmd() -> None:
        raise KeyboardInterrupt

    err = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    assert _invoke(cmd, "zelo_x", [], click) == 130
    assert err.getvalue() == ("\n" if terminal else "") + "zelo_x: interrupted\n"


def _python(code: str, env: dict[str, str] = ENV) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)


def test_fast_exit_waits_for_a_running_thread_and_runs_atexit():
    """cli/common._exit_now (a command started as a process ends without the interpreter's finalization): the
    ``atexit`` handlers run and the standard streams are flushed -- text still in stdout's buffer (a pipe: block
    buffered) is not lost -- and "with another thread still running, the normal exit is taken (it waits for
    non-daemon threads)": os._exit would cut the thread's work off."""
    alone = _python("""
        import atexit, sys
        from pref_eval.cli.common import _exit_now
        atexit.register(lambda: sys.stderr.write("atexit ran\\n"))
        sys.stdout.write("held in the buffer\\n")
        _exit_now(3)
        """, BUFFERED)
    assert (alone.returncode, alone.stdout, alone.stderr) == (3, "held in the buffer\n", "atexit ran\n")
    threaded = _python("""
        import threading, time
        from pref_eval.cli.common import _exit_now
        def late():
            time.sleep(0.3)
            print("the thread finished", flush=True)
        threading.Thread(target=late).start()
        _exit_now(5)
        """)
    assert (threaded.returncode, threaded.stdout) == (5, "the thread finished\n"), threaded.stderr


def test_list_measures_into_a_pipe_whose_reader_has_gone_is_status_0():
    """docs/exit-codes.md: status 0 "also when the output pipe is closed early". ``--list-measures`` writes with
    click.echo, inside click's own frame: click turns EPIPE into ``sys.exit(1)`` after wrapping standard output
    (PacifyFlushWrapper); the command's frame makes that the quiet 0."""
    proc = subprocess.Popen([sys.executable, "-m", "pref_eval.cli.eval", "--list-measures"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV, cwd=ROOT)
    proc.stdout.close()  # the reader has gone before the command writes anything: EPIPE on its first write
    err = proc.stderr.read()
    proc.stderr.close()
    assert (proc.wait(timeout=120), err) == (0, b"")


def test_bad_input_after_output_to_a_full_disk_is_one_line_exit_2(monkeypatch, capsys):
    """A bad input found after results went to standard output on a full disk (``> /dev/full``): the message
    is written after standard output is flushed; the flush's ENOSPC must not turn the bad input's one line
    and status 2 into a traceback (docs/exit-codes.md: "never a traceback")."""
    from pref_eval.cli.common import _invoke
    from pref_eval.errors import InputError

    full = open("/dev/full", "w")  # noqa: SIM115 - closed below
    try:
        monkeypatch.setattr(sys, "stdout", full)

        @click.command()
        def cmd() -> None:
            sys.stdout.write("a result line\n")  # held in the stream's buffer
            raise InputError("runs/r.run", 7, "expected 6 fields")

        code = _invoke(cmd, "zelo_x", [], click)
    finally:
        monkeypatch.undo()
        full.close()
    assert (code, capsys.readouterr().err) == (2, "zelo_x: runs/r.run:7: expected 6 fields\n")


# --- output/atomic.py (docs/exit-codes.md, "Output files") ---

def test_output_that_is_a_socket_is_one_line_exit_1(tmp_path):
    """"A device or a pipe ... a FIFO) is written directly, never replaced": a Unix socket's name cannot be
    opened (ENXIO) -- status 1, one line naming the output and the reason; the socket stays."""
    (tmp_path / "q").write_text("1 0 d1 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 1.0 tag\n")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(tmp_path / "s"))
        p = subprocess.run([sys.executable, "-m", "pref_eval.cli.eval", "-R", "q", "-m", "map", "--output", "s", "r"],
                           capture_output=True, text=True, env=ENV, cwd=tmp_path, timeout=120)
    finally:
        sock.close()
    assert (p.returncode, p.stdout, p.stderr) == (1, "", f"zelo_eval: s: cannot write: {os.strerror(errno.ENXIO)}\n")
    assert sorted(x.name for x in tmp_path.iterdir()) == ["q", "r", "s"]  # no .tmp-* file


def test_closed_standard_output_under_the_api_commits_no_file(tmp_path, monkeypatch):
    """Several outputs are written all or none: with standard output one of them and closed (``sys.stdout`` is
    None in a process started without it, pythonw), the error comes before any file is renamed -- the file
    output is not created and no temporary file is left. One output alone is refused the same way."""
    from pref_eval.errors import OutputError
    from pref_eval.output.atomic import output_file, output_files

    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(OutputError) as info, output_files([str(tmp_path / "f.tsv"), "-"]) as (fh, out):
        fh.write("file\n")
        out.write("stdout\n")
    assert str(info.value) == "standard output: cannot write: standard output is closed"
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(OutputError) as info, output_file("-"):
        pass
    assert str(info.value) == "standard output: cannot write: standard output is closed"


def test_target_made_a_directory_before_the_commit(tmp_path):
    """The rename over the target fails (another process put a directory there while the output was
    written): an OutputError naming the output and the system's reason, the directory as it was, the
    temporary file removed."""
    from pref_eval.errors import OutputError
    from pref_eval.output.atomic import output_file

    path = tmp_path / "out.tsv"
    with pytest.raises(OutputError) as info, output_file(str(path)) as fh:
        fh.write("results\n")
        path.mkdir()
        (path / "kept").write_text("k\n")
    assert str(info.value).startswith(f"{path}: cannot write: ")
    assert str(info.value).endswith((os.strerror(errno.EISDIR), os.strerror(errno.ENOTEMPTY)))
    assert [p.name for p in tmp_path.iterdir()] == ["out.tsv"] and (path / "kept").read_text() == "k\n"


def test_sigterm_during_the_commit_under_the_api_ends_the_process_after_it():
    """signals_held: a SIGTERM that arrives while the outputs are renamed is handled right after the renames,
    by the handler it would have met -- under the Python API (no handler of ours) the default action: the
    process ends by SIGTERM, every output renamed whole, no temporary file left."""
    proc = _python("""
        import os, signal, sys, tempfile
        from pref_eval.output import atomic
        d = tempfile.mkdtemp()
        real = os.replace
        def replace(a, b):
            if b.endswith("a.tsv"):
                os.kill(os.getpid(), signal.SIGTERM)  # arrives between the two renames
            return real(a, b)
        atomic.os.replace = replace
        print(d, flush=True)
        with atomic.output_files([os.path.join(d, "a.tsv"), os.path.join(d, "b.tsv")]) as (a, b):
            a.write("A\\n")
            b.write("B\\n")
        print("not reached", flush=True)
        """)
    where = proc.stdout.splitlines()[0]
    try:
        assert proc.returncode == -signal.SIGTERM and proc.stdout == where + "\n", (proc.returncode, proc.stderr)
        assert sorted(os.listdir(where)) == ["a.tsv", "b.tsv"]
        with open(os.path.join(where, "a.tsv")) as a, open(os.path.join(where, "b.tsv")) as b:
            assert (a.read(), b.read()) == ("A\n", "B\n")
    finally:
        for name in os.listdir(where):
            os.unlink(os.path.join(where, name))
        os.rmdir(where)


# --- judge/judges.py ---

def test_openai_judge_without_the_openai_package_is_refused_before_the_store(tmp_path, monkeypatch, capsys):
    """docs/zelo_judge.md: ``openai:`` judges need the official client (``pip install 'pref_eval[judge]'``).
    Without it: one line saying so, status 2, checked before the store is opened -- no store, no output."""
    from pref_eval.cli.common import _invoke
    from pref_eval.cli.judge import command

    monkeypatch.setitem(sys.modules, "openai", None)  # ``import openai`` raises ImportError
    (tmp_path / "q.tsv").write_text("q1\tquery\n")
    (tmp_path / "d.tsv").write_text("d1\tone\nd2\ttwo\n")
    (tmp_path / "p.jsonl").write_text('{"qid": "q1", "doc_a": "d1", "doc_b": "d2"}\n')
    code = _invoke(command, "zelo_judge", [str(tmp_path / "p.jsonl"), "--queries", str(tmp_path / "q.tsv"),
                                           "--docs", str(tmp_path / "d.tsv"), "--store", str(tmp_path / "s.sqlite"),
                                           "--judge", "openai:m@http://127.0.0.1:9/v1", "-o",
                                           str(tmp_path / "o.jsonl")], click)
    assert (code, capsys.readouterr().err) == (
        2, "zelo_judge: openai: judges need the openai package: pip install 'pref_eval[judge]'\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.tsv", "p.jsonl", "q.tsv"]


@pytest.mark.slow  # the 2 s the run waits for the program to end by itself
def test_judge_program_that_ignores_the_end_of_its_input_is_killed_at_the_end(tmp_path):
    """docs/zelo_judge.md, ``cmd:``: a program reading requests on stdin. One that keeps running after its
    stdin is closed (the end of the run) is waited for 2 s, then killed with its process group: the run ends
    with status 0 and its answers stored, no program left running."""
    from cli_harness import run_module_inproc

    (tmp_path / "q.tsv").write_text("q1\tquery\n")
    (tmp_path / "d.tsv").write_text("d1\tone\nd2\ttwo\nd3\tthree\n")
    (tmp_path / "p.jsonl").write_text("".join(f'{{"qid": "q1", "doc_a": "d{a}", "doc_b": "d{b}"}}\n'
                                              for a, b in ((1, 2), (1, 3), (2, 3))))
    (tmp_path / "judge.py").write_text(textwrap.dedent("""
        import os, sys, time
        open(sys.argv[1], "w").write(str(os.getpid()))
        for line in sys.stdin:
            print('{"score": 0.5}', flush=True)
        time.sleep(120)  # ignores the end of its input
        """))
    p = run_module_inproc("judge", ["p.jsonl", "--queries", "q.tsv", "--docs", "d.tsv", "--store", "s.sqlite",
                                    "--judge", f"cmd:{sys.executable} judge.py pid", "-o", "o.jsonl", "-Q"],
                          tmp_path, timeout=120)
    assert (p.returncode, p.stderr) == (0, "")
    assert len((tmp_path / "o.jsonl").read_text().splitlines()) == 3
    pid = int((tmp_path / "pid").read_text())
    try:
        with open(f"/proc/{pid}/stat") as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        state = "gone"
    if state not in ("gone", "Z"):
        os.kill(pid, signal.SIGKILL)  # not left behind by a failing test
    assert state in ("gone", "Z"), state  # killed (a zombie until its new parent reaps it), not sleeping
