"""``--scheduler tls://``: a real TLS scheduler with a self-signed CA (made here with the ``cryptography`` package
when it is installed, else with the ``openssl`` command; skipped without either).

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


def cert_route() -> str | None:
    """How test certificates are made here: ``cryptography`` (the package, no subprocess) when it can be
    imported, else ``openssl`` (the command) when it is on the PATH, else None."""
    try:
        import cryptography.x509  # noqa: F401
    except ImportError:
        return "openssl" if shutil.which("openssl") else None
    return "cryptography"


def _make_ca_and_cert(folder: Path, route: str = "openssl") -> dict[str, str]:
    """A CA (EC P-256, self-signed) and a certificate it signs for 127.0.0.1 (also ``localhost``), valid for two
    days, made with ``route`` (:func:`cert_route`): ``ca.pem``, ``cert.pem``, ``key.pem`` in ``folder``."""
    folder.mkdir()
    if route == "cryptography":
        return _make_with_cryptography(folder)

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=pref_eval test CA",
            # the key usage Python 3.13's ssl requires of a CA (VERIFY_X509_STRICT, its default)
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", *ec, "-keyout", "key.pem", "-out", "req.csr", "-subj", "/CN=127.0.0.1")
    (folder / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\n"
                                    "subjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
    openssl("x509", "-req", "-in", "req.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out",
            "cert.pem", "-days", "2", "-extfile", "ext.cnf")
    return {k: str(folder / f) for k, f in (("ca", "ca.pem"), ("cert", "cert.pem"), ("key", "key.pem"))}


def _make_with_cryptography(folder: Path) -> dict[str, str]:
    """:func:`_make_ca_and_cert` with the ``cryptography`` package: the extensions ``openssl req -x509`` and
    ``openssl x509 -req -extfile`` give (a CA: basic constraints, key usage, key identifiers; the certificate:
    the subject alternative names, the CA's key identifier)."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "pref_eval test CA")])

    def builder(subject: x509.Name, public_key) -> x509.CertificateBuilder:
        return (x509.CertificateBuilder().subject_name(subject).issuer_name(ca_name).public_key(public_key)
                .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
                .not_valid_after(now + datetime.timedelta(days=2))
                .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()),
                               critical=False))

    ca = (builder(ca_name, ca_key.public_key())
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .sign(ca_key, hashes.SHA256()))
    cert = (builder(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]), key.public_key())
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    return {k: str(folder / f) for k, f in (("ca", "ca.pem"), ("cert", "cert.pem"), ("key", "key.pem"))}


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """{"good": ..., "other": ...}: two CAs, each with a certificate (used by scheduler, worker and client)."""
    route = cert_route()
    if route is None:
        pytest.skip("neither the cryptography package nor the openssl command to make a test certificate")
    base = tmp_path_factory.mktemp("tls")
    return {name: _make_ca_and_cert(base / name, route) for name in ("good", "other")}


def _handshake(server: dict[str, str], client_ca: str) -> str | None:
    """A TLS handshake in this process between a server with ``server``'s certificate and a client trusting
    ``client_ca`` that checks the name 127.0.0.1: None when it passes, else the client's verify message."""
    a, b = socket.socketpair()
    srv = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    srv.load_cert_chain(server["cert"], server["key"])
    cli = ssl.create_default_context(cafile=client_ca)
    cli.verify_flags |= ssl.VERIFY_X509_STRICT  # Python 3.13's default: RFC 5280's rules on the extensions
    result: list[str | None] = []

    def serve() -> None:
        with contextlib.suppress(OSError), srv.wrap_socket(a, server_side=True) as s:
            s.recv(1)

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    try:
        with cli.wrap_socket(b, server_hostname="127.0.0.1"):
            result.append(None)
    except ssl.SSLCertVerificationError as err:
        result.append(err.verify_message)
    finally:
        a.close()
        b.close()
        th.join(10)
    return result[0]


@pytest.mark.parametrize("route", ["cryptography", "openssl"])
def test_certificate_routes(tmp_path, route):
    """Both ways of making the test certificates give what Python's ssl (OpenSSL) accepts: a server
    certificate for 127.0.0.1 that verifies against its own CA, not against the other one."""
    if route == "cryptography":
        pytest.importorskip("cryptography")
    elif not shutil.which("openssl"):
        pytest.skip("no openssl command")
    good, other = (_make_ca_and_cert(tmp_path / name, route) for name in ("good", "other"))
    assert _handshake(good, good["ca"]) is None
    assert _handshake(good, other["ca"]) == "unable to get local issuer certificate"


def test_certificates_without_the_openssl_command(monkeypatch, tmp_path):
    """A machine without the openssl command makes the certificates with cryptography (the TLS tests ran
    only where openssl was installed)."""
    pytest.importorskip("cryptography")
    monkeypatch.setenv("PATH", str(tmp_path))
    assert shutil.which("openssl") is None and cert_route() == "cryptography"
    good = _make_ca_and_cert(tmp_path / "good", cert_route() or "")
    assert _handshake(good, good["ca"]) is None


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


def _tls_server(cert: dict[str, str], trusted_ca: str, *, tls12: bool = False, speaks: bool = True):
    """A handler for :func:`_server`: TLS with ``cert``, requiring a client certificate that ``trusted_ca`` signed
    (TLS 1.3, or at most 1.2: the refusal in the handshake), then (``speaks``) its first bytes at once, as a
    dask scheduler sends its handshake message."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=trusted_ca)
    context.load_cert_chain(cert["cert"], cert["key"])
    context.verify_mode = ssl.CERT_REQUIRED
    if tls12:
        context.maximum_version = ssl.TLSVersion.TLSv1_2

    def tls(conn, stop):
        with context.wrap_socket(conn, server_side=True) as s:
            if speaks:
                s.sendall(b"x")
            s.recv(1)
    return tls


def test_probe_tls_handshake(certs):
    """A TLS server whose certificate the client's CA signed passes; a foreign CA is one clear line."""
    good, other = certs["good"], certs["other"]
    with _server(_tls_server(good, good["ca"])) as port:
        address = f"tls://127.0.0.1:{port}"
        assert _probe(address, _config(good["ca"], good["cert"], good["key"])) is None
        msg = _probe(address, _config(other["ca"], other["cert"], other["key"]))
    assert msg is not None and msg.startswith(f"scheduler={address!r}: the scheduler's TLS certificate is not "
                                              "accepted ("), msg
    assert msg.endswith("distributed.comm.tls.ca-file must be the CA that signed it"), msg


@pytest.mark.parametrize("tls12", [False, True], ids=["tls1.3", "tls1.2"])
def test_probe_client_certificate_refused(certs, tls12):
    """A client certificate the server does not accept: its alert, an ssl.SSLError -- in the handshake under
    TLS 1.2, in place of the server's first bytes under TLS 1.3 -- is one line that says so (under TLS 1.3
    the probe passed, and only the client's error text told it: "SSL" in it; under 1.2 it said "not in TLS")."""
    good, other = certs["good"], certs["other"]
    with _server(_tls_server(good, good["ca"], tls12=tls12)) as port:
        address = f"tls://127.0.0.1:{port}"
        msg = _probe(address, _config(good["ca"], other["cert"], other["key"]))
    assert msg == f"scheduler={address!r}: cannot connect: the scheduler does not accept the client's TLS " \
                  "certificate (tlsv1 alert unknown ca): distributed.comm.tls.client.cert must be signed by the " \
                  "CA the scheduler trusts"


def test_probe_tls_server_that_waits(certs, monkeypatch):
    """A TLS server that accepts the certificate and sends nothing first: passes after the probe's wait for a
    first message (shortened here)."""
    import pref_eval.parallel

    monkeypatch.setattr(pref_eval.parallel, "REPLY_SECONDS", 0.2)
    good = certs["good"]
    with _server(_tls_server(good, good["ca"], speaks=False)) as port:
        t = time.monotonic()
        assert _probe(f"tls://127.0.0.1:{port}", _config(good["ca"], good["cert"], good["key"])) is None
    assert time.monotonic() - t < 5


def test_client_error_read_by_type(monkeypatch):
    """A ``Client(...)`` that fails after the probe passed (an alert later than its wait): the ssl error is
    found by type along distributed's chain (CommClosedError from SSLEOFError; tornado's StreamClosedError
    holding it as real_error), never by the words "SSL" in a message."""
    import pref_eval.parallel as parallel
    from distributed.comm.core import CommClosedError
    from tornado.iostream import StreamClosedError

    def raising(err: BaseException):
        class Client:
            def __init__(self, *args, **kwargs) -> None:
                raise err
        return Client

    def chained(outer: BaseException, inner: BaseException) -> BaseException:
        try:
            raise outer from inner
        except BaseException as e:  # noqa: BLE001 - the exception with its cause, as raised
            return e

    eof = ssl.SSLEOFError(8, "EOF occurred in violation of protocol (_ssl.c:2427)")
    closed = StreamClosedError(real_error=ssl.SSLError(1, "[SSL: TLSV1_ALERT_UNKNOWN_CA] tlsv1 alert unknown ca"))
    address = "tls://127.0.0.1:1"
    monkeypatch.setattr(parallel, "_probe_scheduler", lambda address: None)
    cases = [(chained(CommClosedError("in <TLS (closed)>: SSLEOFError: EOF"), eof), True),
             (chained(CommClosedError("in <TLS (closed)>: StreamClosedError"), closed), True),
             (OSError("Timed out trying to connect to tls://127.0.0.1:1 after 20 s: SSL handshake"), False),
             (chained(OSError("Timed out"), ConnectionRefusedError(111, "Connection refused")), False)]
    for err, refused in cases:
        monkeypatch.setattr("distributed.Client", raising(err))
        with pytest.raises(UsageError) as got:
            parallel._dask_map(str, [1], address)
        said = "closed the TLS connection, as it does when it does not accept the client's certificate"
        assert (said in str(got.value)) == refused, (err, str(got.value))
        assert str(got.value).startswith(f"scheduler={address!r}: cannot connect")


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
    assert msg is not None and msg.startswith(f"scheduler='tls://127.0.0.1:{port}': the address answered, but "
                                              "not in TLS ("), msg
    monkeypatch.setattr(pref_eval.parallel, "PROBE_SECONDS", 0.5)
    t = time.monotonic()
    with _server(silent) as port:
        msg = _probe(f"tls://127.0.0.1:{port}", config)
    assert msg == f"scheduler='tls://127.0.0.1:{port}': no TLS answer within 0.5 s (not a TLS server: a tcp:// " \
                  "scheduler?)"
    assert time.monotonic() - t < 5


def test_probe_tls_configuration_unusable(certs):
    """A CA file that does not exist, a key that is not the certificate's: one line naming the files (was the
    bare OSError: "No such file or directory", "Stale file handle", exit 1)."""
    good, other = certs["good"], certs["other"]
    for config, says in ((_config("/no/such/ca.pem", good["cert"], good["key"]), "No such file or directory"),
                         (_config(good["ca"], good["cert"], other["key"]), "")):
        msg = _probe("tls://127.0.0.1:1", config)
        assert msg is not None and msg.startswith("scheduler='tls://127.0.0.1:1': dask's TLS configuration cannot "
                                                  f"be used ({says}"), msg
        assert msg.endswith(f"; distributed.comm.tls: ca-file {config['distributed.comm.tls.ca-file']}, "
                            f"client.cert {good['cert']}, client.key {config['distributed.comm.tls.client.key']})")


def _command(module: str, *args: str, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, float]:
    t = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", f"pref_eval.cli.{module}", *args], capture_output=True,
                          timeout=120, env=env)
    return proc, time.monotonic() - t


def at_once(took: float) -> None:
    """Not the client's 20 s of retries: under 10 s more than a command refused before any connection, timed now
    under the same load (tests/test_scheduler_address.py's rule)."""
    _, base = _command("fit", "-J", JUDGE, "--scheduler", "htp://127.0.0.1:8786", env=ENV)
    assert took < base + 10, (took, base)


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
    handshake passes; the scheduler's alert comes in place of its first message), the scheduler's certificate from a
    CA the client does not trust, and tls:// in front of a tcp:// scheduler (was 20 s of retries)."""
    import distributed

    good, other = certs["good"], certs["other"]
    fit = ("fit", "-J", JUDGE, "--scheduler")
    proc, took = _command(*fit, tls_cluster, env=_env(good["ca"], other["cert"], other["key"]))
    _one_line(proc, f"zelo_fit: --scheduler {tls_cluster}: cannot connect: the scheduler does not accept the "
                    "client's TLS certificate (tlsv1 alert unknown ca)")
    at_once(took)
    proc, took = _command(*fit, tls_cluster, env=_env(other["ca"], other["cert"], other["key"]))
    _one_line(proc, f"zelo_fit: --scheduler {tls_cluster}: the scheduler's TLS certificate is not accepted (")
    at_once(took)
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=":0", silence_logs=40) as plain:
        address = plain.scheduler_address.replace("tcp://", "tls://")
        proc, took = _command(*fit, address, env=_env(good["ca"], good["cert"], good["key"]))
    _one_line(proc, f"zelo_fit: --scheduler {address}: the address answered, but not in TLS (")
    at_once(took)
