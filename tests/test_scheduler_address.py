"""``--scheduler`` at an address that is no scheduler: one stderr line, exit 2, at once (not the client's 20 s of
retries, nor a traceback and 40 s more in ``Client.__del__`` at exit)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))


def zelo_fit(address: str) -> tuple[subprocess.CompletedProcess, float]:
    t = time.monotonic()
    judge = str(ROOT / "judgments" / "dl19-sample.judge")
    proc = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", judge, "--scheduler", address],
                          capture_output=True, timeout=120, env=ENV)
    return proc, time.monotonic() - t


def at_once(took: float) -> None:
    """``took`` (a refusal's wall time) is not the client's wait (20 s of retries, or 40 s more in
    ``Client.__del__``): under 10 s more than a command refused before any connection (an unknown scheme: the same
    imports), timed now, under the same load (a fixed bound of 10 s was 2.9-5.0 s at load 22 and 19.7 s with
    nothing compiled; session 24, fl34)."""
    _, base = zelo_fit("htp://127.0.0.1:8786")
    assert took < base + 10, (took, base)


def one_line(proc: subprocess.CompletedProcess, *parts: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b"", err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for p in parts:
        assert p in err, err


def test_refused_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now: refused
    proc, took = zelo_fit(f"tcp://127.0.0.1:{port}")
    one_line(proc, f"--scheduler tcp://127.0.0.1:{port}: cannot connect", "refused")
    at_once(took)


def test_unknown_scheme():
    proc, took = zelo_fit("htp://127.0.0.1:8786")
    one_line(proc, "--scheduler htp://127.0.0.1:8786: not a scheduler address", "expected tcp://HOST:PORT",
             "or tls://, ws://, wss://")


def _dead_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


@pytest.mark.parametrize("scheme, says", [
    ("ws://", "cannot connect (Connection refused)"),  # was the client's 20 s of retries
    ("wss://", "cannot connect (Connection refused)"),  # likewise
    ("", "cannot connect (Connection refused)"),  # HOST:PORT alone: tcp://
    ("tls://", "tls:// needs dask's TLS configuration"),  # was "the address answered, but not as a dask
    # scheduler (TypeError)": distributed's missing ssl_context
    ("ucx://", "this installation cannot make ucx:// connections"),  # was the same wrong "answered" line
    # (distributed's ucx backend is an abstract stub without distributed-ucxx)
])
def test_every_scheme_probed_or_refused(scheme, says):
    """The probe covered tcp:// only; each kind of dead address is now one line, exit 2, at once."""
    import importlib.util

    if scheme == "ucx://" and importlib.util.find_spec("distributed_ucxx"):
        pytest.skip("UCX support installed: a ucx:// address is left to the client")
    address = f"{scheme}127.0.0.1:{_dead_port()}"
    proc, took = zelo_fit(address)
    one_line(proc, f"zelo_fit: --scheduler {address}: {says}")
    at_once(took)


@pytest.mark.parametrize("address, says", [
    ("inproc://nothing", "an inproc:// address reaches only a scheduler inside the same Python process"),
    ("tcp://", "not a scheduler address (no host)"),
    ("ws://:8786", "not a scheduler address (no host)"),
    ("ws://nosuchhost.invalid:8786", "cannot connect ("),
    # j32: getaddrinfo takes port 99999 and connects to 99999 - 65536 (a scheduler there would have been joined)
    ("tcp://127.0.0.1:99999", "not a scheduler address (port 99999 is not 1-65535)"),
    ("127.0.0.1:0", "not a scheduler address (port 0 is not 1-65535)"),
])
def test_addresses_refused_in_process(address, says):
    """The same probe in process (no command started: fast), for the addresses that need no port."""
    from pref_eval.errors import UsageError
    from pref_eval.parallel import _probe_scheduler

    t = time.monotonic()
    with pytest.raises(UsageError) as e:
        _probe_scheduler(address)
    assert str(e.value).startswith(f"scheduler={address!r}: {says}"), str(e.value)  # a Python caller's keyword
    assert time.monotonic() - t < 10


@pytest.mark.slow
def test_a_live_ws_scheduler_passes_the_probe():
    """The probe's TCP connection does not disturb a websocket scheduler: zelo_fit through it = serial."""
    import distributed

    judge = str(ROOT / "judgments" / "dl19-sample.judge")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="ws://",
                                  host="127.0.0.1", dashboard_address=None, silence_logs=40) as c:
        assert c.scheduler_address.startswith("ws://")
        proc, _ = zelo_fit(c.scheduler_address)
    serial = subprocess.run([sys.executable, "-m", "pref_eval.cli.fit", "-J", judge], capture_output=True,
                            timeout=120, env=ENV)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    assert proc.stdout == serial.stdout and proc.stdout


def test_address_answering_something_else():
    """An HTTP server (or a proxy) at the address: its bytes read as a dask frame length were a MemoryError."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    stop = threading.Event()

    def serve() -> None:
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4)
            conn.close()

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    try:
        proc, took = zelo_fit(f"tcp://127.0.0.1:{srv.getsockname()[1]}")
    finally:
        stop.set()
        th.join()
        srv.close()
    one_line(proc, "--scheduler tcp://127.0.0.1:")
    at_once(took)


def test_asyncio_all_exit_records_dropped():
    """What a gather cut short by Ctrl-C leaves: asyncio logs "Task exception was never retrieved" with a
    ``distributed.client.AllExit`` traceback per piece; those (and only those) records are dropped."""
    import logging

    from distributed.client import AllExit

    from pref_eval.parallel import _quiet_cancelled_gathers

    _quiet_cancelled_gathers()
    log = logging.getLogger("asyncio")

    def record(exc: BaseException) -> logging.LogRecord:
        return log.makeRecord("asyncio", logging.ERROR, __file__, 1, "Task exception was never retrieved", (),
                              (type(exc), exc, None))

    assert not log.filter(record(AllExit()))
    assert log.filter(record(ValueError("kept")))


@pytest.mark.slow
def test_sigint_during_scheduler_run(tmp_path):
    """Ctrl-C (SIGINT to the process group) while zelo_eval gathers from a cluster: exit 130, the one
    'interrupted' line, no output file, no process left in the group."""
    import signal

    import distributed

    lines = (ROOT / "runs" / "bm25.run").read_text().splitlines(keepends=True)
    (tmp_path / "big.run").write_text("".join(f"{i}x{ln}" for i in range(300) for ln in lines))
    qrels = (ROOT / "qrels" / "dl19-sample.qrels").read_text().splitlines(keepends=True)
    (tmp_path / "big.qrels").write_text("".join(f"{i}x{ln}" for i in range(300) for ln in qrels))
    runs = []
    for k in range(12):
        (tmp_path / f"r{k}.run").symlink_to(tmp_path / "big.run")
        runs.append(str(tmp_path / f"r{k}.run"))
    out = tmp_path / "out"
    out.mkdir()
    os.environ["PYTHONPATH"] = ENV["PYTHONPATH"]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, silence_logs=40) as c:
        keep_int = "import signal, os, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); " \
                   "os.execv(sys.executable, [sys.executable] + sys.argv[1:])"
        p = subprocess.Popen([sys.executable, "-c", keep_int, "-m", "pref_eval.cli.eval", "-R",
                              str(tmp_path / "big.qrels"), "-q", *runs, "--scheduler", c.scheduler_address,
                              "--output", str(out / "o.txt")], stderr=subprocess.PIPE, env=ENV,
                             start_new_session=True)
        time.sleep(2.5)
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err.decode()
    assert err.strip() == b"zelo_eval: interrupted", err.decode()
    assert os.listdir(out) == []
    with pytest.raises(ProcessLookupError):
        os.killpg(p.pid, 0)
