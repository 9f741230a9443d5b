"""``--jobs N`` under every multiprocessing start method (session 30): spawn is macOS's and Windows' default and
forkserver Linux's from Python 3.14 on; the suite ran only fork (Linux's default up to 3.13).

The commands run as console scripts do: a driver file named like the command (so pref_eval.cli's early handlers
take it for the command), importing the command's module at its top (as pip's console-script wrapper does, so a
spawn worker, which re-imports its parent's main file, imports pref_eval.cli too), choosing the start method
under ``if __name__ == "__main__"``. Oracles: the same command with ``--jobs 1`` (the bytes); the exit-code
contract of docs/exit-codes.md (one line, 130/143, no traceback); the worker processes' own pids (gone).
Found: under spawn, Ctrl-C (a SIGINT to the whole process group) printed ``PROG: interrupted`` once per worker
(the early handlers of the console script's import) or a KeyboardInterrupt traceback per worker still starting;
under any method a SIGINT or SIGTERM sent to the command alone waited for every running piece (14-23 s of
zelo_compare's resampling; here a piece that sleeps 600 s), and a worker killed on its own (the out-of-memory
killer) ended the command in a BrokenProcessPool traceback.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import pref_eval

ROOT = Path(__file__).resolve().parent.parent
QRELS = ROOT / "qrels" / "dl19-sample.qrels"
RUNS = [str(ROOT / "runs" / f"{r}.run") for r in ("bm25", "dense", "rerank")]
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(pref_eval.__file__)))
posix_only = pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups and signals of POSIX")

DRIVER = '''\
import multiprocessing
import os
import sys
import time

from pref_eval.cli.{module} import main


def piece(group):
    """A worker's piece that lasts: it marks its start (its pid), then sleeps (the test ends it)."""
    open(os.path.join(os.environ["I40_MARKS"], f"started.{{os.getpid()}}"), "w").close()
    time.sleep(600)


if __name__ == "__main__":
    multiprocessing.set_start_method(os.environ["I40_START_METHOD"])
    if os.environ.get("I40_SLEEPING_PIECES"):
        import pref_eval.api._metric_mode as metric_mode

        metric_mode.evaluate_run_group = piece
    sys.exit(main())
'''
COMMANDS = {"zelo_eval": "eval", "zelo_compare": "compare", "zelo_fit": "fit"}


def _driver(tmp_path: Path, command: str) -> Path:
    path = tmp_path / "bin" / command
    path.parent.mkdir(exist_ok=True)
    path.write_text(DRIVER.format(module=COMMANDS[command]))
    return path


def _env(tmp_path: Path, method: str, **extra: str) -> dict[str, str]:
    marks = tmp_path / "marks"
    marks.mkdir(exist_ok=True)
    return {**os.environ, "PYTHONPATH": PACKAGE_PARENT, "PYTHONSAFEPATH": "1", "I40_START_METHOD": method,
            "I40_MARKS": str(marks), **extra}


def _run(tmp_path: Path, method: str, command: str, *args: str) -> bytes:
    p = subprocess.run([sys.executable, str(_driver(tmp_path, command)), *args], capture_output=True, timeout=300,
                       env=_env(tmp_path, method))
    assert p.returncode == 0 and p.stderr == b"", p.stderr.decode()
    return p.stdout


def _judgments(path: Path) -> None:
    import json

    from pref_eval.zelo.simulate import cycle_judgments

    _, q, a, b, s = cycle_judgments(23, 12, 2, 1.5, 5)
    path.write_text("".join(json.dumps({"qid": f"q{q[k]}", "doc_a": f"d{a[k]}", "doc_b": f"d{b[k]}",
                                        "score": float(s[k])}) + "\n" for k in range(len(q))))


CASES = {
    "eval-metric": ("zelo_eval", ["-R", str(QRELS), "-q", "-o", "tsv", "-m", "official", *RUNS]),
    "eval-preference": ("zelo_eval", ["-R", str(QRELS), "-q", *RUNS]),
    "compare": ("zelo_compare", ["-R", str(QRELS), "-m", "map", "-m", "P_10", "--tests", "t,bootstrap",
                                 "--resamples", "200", "-o", "jsonl", *RUNS]),
    "fit": ("zelo_fit", ["-J", "JUDGMENTS"]),
}


@pytest.mark.parametrize("method", ["spawn", pytest.param("forkserver", marks=pytest.mark.slow)])
@pytest.mark.parametrize("case", ["eval-metric", pytest.param("eval-preference", marks=pytest.mark.slow),
                                  pytest.param("compare", marks=pytest.mark.slow),
                                  pytest.param("fit", marks=pytest.mark.slow)])
def test_jobs_give_the_serial_bytes_under_every_start_method(tmp_path, method, case):
    if method not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    command, args = CASES[case]
    if case == "fit":
        _judgments(tmp_path / "j.jsonl")
        args = [str(tmp_path / "j.jsonl") if a == "JUDGMENTS" else a for a in args]
    one = _run(tmp_path, method, command, "--jobs", "1", *args)
    assert one.count(b"\n") >= 6
    assert _run(tmp_path, method, command, "--jobs", "3", *args) == one


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


def _default_sigint() -> None:
    """The command starts with Python's usual SIGINT (a runner started in the background of a shell ignores it,
    and an ignored signal stays ignored: tools/mutants.py's run of session 30 saw 11 such failures)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_sleeping(tmp_path: Path, method: str) -> tuple[subprocess.Popen, list[int]]:
    """zelo_eval --jobs 2 whose two workers each run a piece that sleeps 600 s: the process (a group of its own)
    and the workers' pids, once both pieces have started."""
    env = _env(tmp_path, method, I40_SLEEPING_PIECES="1")
    p = subprocess.Popen([sys.executable, str(_driver(tmp_path, "zelo_eval")), "-R", str(QRELS), "-m", "map",
                          "--jobs", "2", *RUNS], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                         start_new_session=True, preexec_fn=_default_sigint)
    marks = Path(env["I40_MARKS"])
    deadline = time.monotonic() + 120
    while len(list(marks.glob("started.*"))) < 2:
        if p.poll() is not None or time.monotonic() > deadline:
            p.kill()
            out, err = p.communicate()
            pytest.fail(f"the workers did not start (status {p.returncode}): {err.decode()}")
        time.sleep(0.05)
    return p, [int(m.suffix[1:]) for m in marks.glob("started.*")]


def _ended(p: subprocess.Popen, workers: list[int]) -> tuple[int, str]:
    try:
        _, err = p.communicate(timeout=60)  # (the pieces would sleep 600 s: the old code waited for them)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail("the command waited for its workers' pieces after the signal")
    deadline = time.monotonic() + 30
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers), "a worker outlived the command"
    return p.returncode, err.decode()


@posix_only
@pytest.mark.slow  # (a pool started per case, ~3 s each under load)
@pytest.mark.parametrize("method", ["spawn", "fork", "forkserver"])
@pytest.mark.parametrize("sig, to_group", [(signal.SIGINT, True), (signal.SIGINT, False), (signal.SIGTERM, True),
                                           (signal.SIGTERM, False)],
                         ids=["ctrl-c", "sigint-to-command", "sigterm-to-group", "sigterm-to-command"])
def test_a_signal_ends_the_command_and_its_workers_with_one_line(tmp_path, method, sig, to_group):
    """Ctrl-C (SIGINT to the whole group) or a SIGINT/SIGTERM sent to the command alone while ``--jobs``
    workers compute: one line, 130/143, and the workers ended with the command, at once."""
    if method not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    p, workers = _start_sleeping(tmp_path, method)
    (os.killpg if to_group else os.kill)(p.pid, sig)
    code, err = _ended(p, workers)
    word = "interrupted" if sig == signal.SIGINT else "terminated"
    assert (code, err) == (128 + sig, f"zelo_eval: {word}\n")


@posix_only
@pytest.mark.parametrize("method", ["spawn", pytest.param("fork", marks=pytest.mark.slow)])
def test_ctrl_c_under_spawn_is_one_line(tmp_path, method):
    """The default suite's case of the above: Ctrl-C while spawned workers compute (3 lines before: one per
    worker, from the early handlers their import of the console script installed)."""
    p, workers = _start_sleeping(tmp_path, method)
    os.killpg(p.pid, signal.SIGINT)
    assert _ended(p, workers) == (130, "zelo_eval: interrupted\n")


@posix_only
@pytest.mark.parametrize("method", ["spawn", pytest.param("fork", marks=pytest.mark.slow)])
def test_a_worker_killed_on_its_own_is_one_line(tmp_path, method):
    """A worker killed alone (SIGKILL: the out-of-memory killer) ends the command with one line and status 1,
    the other worker with it (was a BrokenProcessPool traceback)."""
    p, workers = _start_sleeping(tmp_path, method)
    os.kill(workers[0], signal.SIGKILL)
    code, err = _ended(p, workers)
    assert (code, err) == (1, "zelo_eval: --jobs 2: a worker process ended abruptly (killed by a signal, or out "
                              "of memory); run again, or with fewer jobs\n")


@posix_only
@pytest.mark.parametrize("worker", [True, False], ids=["pool-worker", "command"])
def test_early_handlers_are_silent_in_a_pool_worker(tmp_path, worker):
    """pref_eval.cli's early handlers in a process named as a command: its line and 130 for the command itself; for
    a multiprocessing child (a spawn or forkserver worker, which re-imports the console script with its parent's
    sys.argv) 130 and no line -- the parent reports the signal (where the worker's start is not masked: Windows).
    The child is made by setting multiprocessing's record of a parent, as spawn's bootstrap sets it."""
    script = tmp_path / "zelo_eval"
    script.write_text(
        "import os, signal, sys\n"
        "import multiprocessing.process as mp\n"
        f"if {worker}:\n"
        "    mp._parent_process = mp._ParentProcess('MainProcess', os.getppid(), None)\n"
        "import pref_eval.cli\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "total = sum(range(10 ** 7))  # (Python's handlers run between bytecodes)\n"
        "sys.stdout.write('not ended\\n')\n")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": PACKAGE_PARENT, "PYTHONSAFEPATH": "1"},
                       preexec_fn=_default_sigint)
    assert (p.returncode, p.stdout, p.stderr) == (130, "", "" if worker else "zelo_eval: interrupted\n")


@pytest.mark.parametrize("argv", ["sys.argv = []", "del sys.argv", "sys.argv = ['']"])
def test_pref_eval_cli_imports_without_a_program_name(argv):
    """An embedding Python may give no ``sys.argv``, or an empty one: importing pref_eval.cli installs nothing
    and raises nothing (tools/mutants.py's survivor of session 30: ``not argv or not argv[0]`` -> ``and`` raised
    IndexError / TypeError at import). Oracle: the SIGINT handler left as Python's."""
    code = (f"import signal, sys\n{argv}\nimport pref_eval.cli\n"
            "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": PACKAGE_PARENT, "PYTHONSAFEPATH": "1"},
                       preexec_fn=_default_sigint if hasattr(os, "killpg") else None)
    assert (p.returncode, p.stdout, p.stderr) == (0, "True\n", "")
