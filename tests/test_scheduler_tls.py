"""``--scheduler tls://``: a real TLS scheduler with a self-signed CA (made here with the ``openssl`` command).

* slow: a ``dask.distributed`` scheduler and worker with TLS security (in this process), ``zelo_fit`` and
  ``zelo_eval`` run through it: the same bytes as the single-process commands; a client certificate the
  scheduler does not accept, a scheduler certificate the client's CA did not sign, and ``tls://`` in front of
  a plain ``tcp://`` scheduler: one stderr line, exit 2, no traceback, at once.
* fast, the probe in process against small servers: a TLS server with the right and with a foreign CA, an
  HTTP server and a silent TCP server behind ``tls://``, and a TLS configuration whose files cannot be used.

Before: the probe opened a TCP connection only, so a silent server behind ``tls://`` held the command 20 s
(the client's retries), an HTTP server gave "IOStream is not idle; cannot convert to SSL", a missing CA file
"zelo_fit: No such file or directory" (exit 1) and a key that is not the certificate's "zelo_fit: Stale file
handle" (the ssl error's library code read as an errno).
"""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from pref_eval.errors import UsageError  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
JUDGE = str(ROOT / "judgments" / "dl19-sample.judge")


def _make_ca_and_cert(folder: Path) -> dict[str, str]:
    """A CA (EC P-256, self-signed) and a certificate it signs for 127.0.0.1, with the ``openssl`` command."""
    folder.mkdir()

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=pref_eval test CA")
    openssl("req", *ec, "-keyout", "key.pem", "-out", "req.csr", "-subj", "/CN=127.0.0.1")
    (folder / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    openssl("x509", "-req", "-in", "req.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
            "cert.pem", "-days", "2", "-extfile", "ext.cnf")
    return {k: str(folder / f) for k, f in (("ca", "ca.pem"), ("cert", "cert.pem"), ("key", "key.pem"))}


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """{"good": ..., "other": ...}: two CAs, each with a certificate (used by scheduler, worker and client)."""
    if not shutil.which("openssl"):
        pytest.skip("no openssl command to make a test certificate")
    base = tmp_path_factory.mktemp("tls")
    return {name: _make_ca_and_cert(base / name) for name in ("good", "other")}


def _config(ca: str, cert: str, key: str) -> dict[str, str]:
    return {"distributed.comm.tls.ca-file": ca, "distributed.comm.tls.client.cert": cert,
            "distributed.comm.tls.client.key": key}


def _env(ca: str, cert: str, key: str) -> dict[str, str]:
    return dict(ENV, DASK_DISTRIBUTED__COMM__TLS__CA_FILE=ca, DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=cert,
                DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=key)


@contextlib.contextmanager
def _server(handle):
    """A TCP server on 127.0.0.1 calling ``handle(conn)`` per connection in a thread; yields its port."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn, contextlib.suppress(OSError):
                conn.settimeout(10)
                handle(conn, stop)

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    try:
        yield srv.getsockname()[1]
    finally:
        stop.set()
        th.join()
        srv.close()


def _probe(address: str, config: dict[str, str]) -> str | None:
    """The probe's UsageError message for ``address`` under the TLS ``config``, or None if it passes."""
    import dask

    from pref_eval.parallel import _probe_scheduler

    with dask.config.set(config):
        try:
            _probe_scheduler(address)
        except UsageError as e:
            return str(e)
    return None


def test_probe_tls_handshake(certs):
    """A TLS server whose certificate the client's CA signed passes; a foreign CA is one clear line."""
    good, other = certs["good"], certs["other"]
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=good["ca"])
    context.load_cert_chain(good["cert"], good["key"])
    context.verify_mode = ssl.CERT_REQUIRED

    def tls(conn, stop):
        with context.wrap_socket(conn, server_side=True) as s:
            s.recv(1)

    with _server(tls) as port:
        address = f"tls://127.0.0.1:{port}"
        assert _probe(address, _config(good["ca"], good["cert"], good["key"])) is None
        msg = _probe(address, _config(other["ca"], other["cert"], other["key"]))
    assert msg is not None and msg.startswith(f"--scheduler {address}: the scheduler's TLS certificate is not "
                                              "accepted ("), msg
    assert msg.endswith("distributed.comm.tls.ca-file must be the CA that signed it"), msg


def test_probe_plain_servers_behind_tls(certs, monkeypatch):
    """An HTTP server, and a TCP server that says nothing (as a tcp:// scheduler waits for the client), at a
    tls:// address: one line, at once (the silent one after the probe's wait, shortened here)."""
    import pref_eval.parallel

    good = certs["good"]
    config = _config(good["ca"], good["cert"], good["key"])

    def http(conn, stop):
        conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4)

    def silent(conn, stop):
        stop.wait(10)

    with _server(http) as port:
        msg = _probe(f"tls://127.0.0.1:{port}", config)
    assert msg is not None and msg.startswith(f"--scheduler tls://127.0.0.1:{port}: the address answered, but "
                                              "not in TLS ("), msg
    monkeypatch.setattr(pref_eval.parallel, "PROBE_SECONDS", 0.5)
    t = time.monotonic()
    with _server(silent) as port:
        msg = _probe(f"tls://127.0.0.1:{port}", config)
    assert msg == f"--scheduler tls://127.0.0.1:{port}: no TLS answer within 0.5 s (not a TLS server: a tcp:// " \
                  "scheduler?)"
    assert time.monotonic() - t < 5


def test_probe_tls_configuration_unusable(certs):
    """A CA file that does not exist, a key that is not the certificate's: one line naming the files (was the
    bare OSError: "No such file or directory", "Stale file handle", exit 1)."""
    good, other = certs["good"], certs["other"]
    for config, says in ((_config("/no/such/ca.pem", good["cert"], good["key"]), "No such file or directory"),
                         (_config(good["ca"], good["cert"], other["key"]), "")):
        msg = _probe("tls://127.0.0.1:1", config)
        assert msg is not None and msg.startswith("--scheduler tls://127.0.0.1:1: dask's TLS configuration cannot "
                                                  f"be used ({says}"), msg
        assert msg.endswith(f"; distributed.comm.tls: ca-file {config['distributed.comm.tls.ca-file']}, "
                            f"client.cert {good['cert']}, client.key {config['distributed.comm.tls.client.key']})")


def _command(module: str, *args: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    t = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", f"pref_eval.cli.{module}", *args], capture_output=True,
                          timeout=120, env=env)
    return proc, time.monotonic() - t


def _one_line(proc: subprocess.CompletedProcess, start: str) -> None:
    err = proc.stderr.decode()
    assert proc.returncode == 2 and proc.stdout == b"", err
    assert err.count("\n") == 1 and "Traceback" not in err and err.startswith(start), err


@pytest.fixture(scope="module")
def tls_cluster(certs):
    """A scheduler and a worker (threads of this process) that speak TLS only, with the "good" certificates."""
    import distributed
    from distributed.security import Security

    good = certs["good"]
    security = Security(tls_ca_file=good["ca"], tls_scheduler_cert=good["cert"], tls_scheduler_key=good["key"],
                        tls_worker_cert=good["cert"], tls_worker_key=good["key"], tls_client_cert=good["cert"],
                        tls_client_key=good["key"], require_encryption=True)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, protocol="tls://",
                                  host="127.0.0.1", dashboard_address=None, silence_logs=40,
                                  security=security) as cluster:
        assert cluster.scheduler_address.startswith("tls://")
        yield cluster.scheduler_address


@pytest.mark.slow
def test_commands_through_a_tls_scheduler(certs, tls_cluster):
    """zelo_fit and zelo_eval through the TLS scheduler: the single-process commands' bytes."""
    env = _env(certs["good"]["ca"], certs["good"]["cert"], certs["good"]["key"])
    runs = [str(ROOT / "runs" / r) for r in ("bm25.run", "dense.run", "rerank.run")]
    for module, args in (("fit", ["-J", JUDGE]),
                         ("eval", ["-R", str(ROOT / "qrels" / "dl19-sample.qrels"), "-o", "tsv", "-q", "-m",
                                   "official", *runs])):
        serial, _ = _command(module, *args, env=ENV)
        assert serial.returncode == 0 and serial.stdout, serial.stderr.decode()
        through, _ = _command(module, *args, "--scheduler", tls_cluster, env=env)
        assert through.returncode == 0 and through.stderr == b"", through.stderr.decode()
        assert through.stdout == serial.stdout


@pytest.mark.slow
def test_wrong_certificates_and_plain_tcp_behind_tls(certs, tls_cluster):
    """One line, exit 2, at once: the client's certificate from a CA the scheduler does not trust (the
    handshake passes the probe; the scheduler then closes the connection), the scheduler's certificate from a
    CA the client does not trust, and tls:// in front of a tcp:// scheduler (was 20 s of retries)."""
    import distributed

    good, other = certs["good"], certs["other"]
    fit = ("fit", "-J", JUDGE, "--scheduler")
    proc, took = _command(*fit, tls_cluster, env=_env(good["ca"], other["cert"], other["key"]))
    _one_line(proc, f"zelo_fit: --scheduler {tls_cluster}: cannot connect: the scheduler closed the TLS "
                    "connection, as it does when it does not accept the client's certificate")
    assert took < 15
    proc, took = _command(*fit, tls_cluster, env=_env(other["ca"], other["cert"], other["key"]))
    _one_line(proc, f"zelo_fit: --scheduler {tls_cluster}: the scheduler's TLS certificate is not accepted (")
    assert took < 15
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=":0", silence_logs=40) as plain:
        address = plain.scheduler_address.replace("tcp://", "tls://")
        proc, took = _command(*fit, address, env=_env(good["ca"], good["cert"], good["key"]))
    _one_line(proc, f"zelo_fit: --scheduler {address}: the address answered, but not in TLS (")
    assert took < 15
