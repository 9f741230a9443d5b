"""Shared test setup: one ``ROOT``, the data folders, and the ``../shared`` rule.

Everything the core tests need is committed under ``tests/data/`` (with its
licence notice) or in the repository's ``qrels/``, ``runs/``, ``judgments/``.
A few tests also use the larger real data of the development checkout's
sibling folder ``../shared`` (not part of the repository). They ask for it
with :func:`need_shared` (or the ``shared`` marker); when it is missing the
test is skipped with a reason that names the folder -- except under CI
(environment ``CI=true``), where a missing ``../shared`` is an error, so CI
cannot pass by silently skipping.

Import from tests as ``from conftest import ROOT, DATA, need_shared``.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SHARED = ROOT.parent / "shared"

# ranx (a test-only oracle, tests/test_ranx_names.py) is numba code compiled on first use: ~60 s CPU in a fresh
# venv at numba's default LLVM level 3, ~20 % less at level 1 (NOTES.md, session 10, t19), another ~20 % less
# at level 0 (the whole of test_ranx_names.py with an empty numba cache: 60 -> 47 s user CPU; session 12, t21;
# the test data are small, so the slower compiled code costs less than the optimiser). The level changes
# no result: numba emits no fast-math flags unless asked, so LLVM may not reorder or contract floating-point
# operations at any level. Set before anything imports numba (ranx is imported inside the tests).
os.environ.setdefault("NUMBA_OPT", "0")


@pytest.fixture(autouse=True)
def _dev_null_intact():
    """After every test, ``/dev/null`` must still be the character device: the suite runs as root on some
    machines, where a wrong rename or link over an output named ``/dev/null`` (the fault suite writes there)
    would replace the device for every process of the machine. In session 25 a helper's mistyped shell command
    (not a test) replaced it with a link for a minute (NOTES.md); were a test ever to do it, this names the
    test after which it happened (with ``-n 2``, that test or one running beside it on the other worker)."""
    yield
    st = os.lstat(os.devnull)
    if not stat.S_ISCHR(st.st_mode):
        what = f"a link to {os.readlink(os.devnull)!r}" if stat.S_ISLNK(st.st_mode) else oct(st.st_mode)
        pytest.fail(f"{os.devnull} is no longer a character device after this test: {what}", pytrace=False)


@pytest.fixture(autouse=True)
def _trace_function_kept():
    """After every test, the trace function is the one before it: a test that counts line events with
    ``sys.settrace`` and ends with ``sys.settrace(None)`` turns a coverage run's tracing off for every later test
    of its worker (session 26: a default-suite coverage run read 93.5 % instead of ~96; v36). Use
    :func:`line_events`."""
    before = sys.gettrace()
    yield
    if sys.gettrace() is not before:
        sys.settrace(before)
        pytest.fail("this test changed the trace function (sys.settrace) and did not set it back; "
                    "use conftest.line_events", pytrace=False)


def line_events(path: str, fn: Callable[..., object], *args: object, **kw: object) -> int:
    """Python line events inside the file ``path`` while ``fn(*args, **kw)`` runs (a loop test's count: a Python
    step per row shows as events in proportion to the rows); the trace function in place before (a coverage
    run's) is set back after."""
    count = 0

    def trace(frame, event, arg):  # type: ignore[no-untyped-def]
        nonlocal count
        if frame.f_code.co_filename == path:
            if event == "line":
                count += 1
            return trace
        return None

    before = sys.gettrace()
    sys.settrace(trace)
    try:
        fn(*args, **kw)
    finally:
        sys.settrace(before)
    return count


def import_tool(name: str) -> types.ModuleType:
    """The module ``tools/<name>.py`` (the tools are scripts, not a package: their folder is on sys.path only for
    the import)."""
    import importlib

    sys.path.insert(0, str(ROOT / "tools"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "tools"))


def c_compiler_works(tmp: Path) -> bool:
    """Whether the C compiler ``pip install .`` would call (``$CC``, else Python's own ``CC``, as setuptools
    takes it) compiles a one-line C file here: where it does, the optional extensions must have been built; a
    machine without one (or ``CC=/bin/false``, a compiler that fails) installs without them (session 30)."""
    import shlex
    import sysconfig

    cc = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    (tmp / "probe.c").write_text("int probe(void) { return 0; }\n")
    try:
        done = subprocess.run([*cc, "-c", str(tmp / "probe.c"), "-o", str(tmp / "probe.o")], capture_output=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired, IndexError):
        return False
    return done.returncode == 0 and (tmp / "probe.o").exists()


def in_ci() -> bool:
    """True when the environment says this is a CI run (``CI=true``, as GitHub Actions and .ci/run set)."""
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def need_shared(*relative: str) -> Path:
    """Path of ``../shared/<relative>``; skip the test (fail under CI) when it is absent."""
    path = SHARED.joinpath(*relative)
    if not path.exists():
        msg = f"needs ../shared/{'/'.join(relative)} (the development data folder, not in the repository)"
        if in_ci():
            pytest.fail(f"CI=true: {msg}", pytrace=False)
        pytest.skip(msg)
    return path


def kill_when_stored(proc: subprocess.Popen, store: Path, answers: int, timeout: float = 120.0,
                     also: Callable[[], bool] | None = None) -> None:
    """SIGKILL ``proc`` (a zelo_judge) once its SQLite store holds ``answers`` answers (and ``also()`` holds, when
    given: e.g. a request is waiting at the test server's gate, which a loaded machine may not have sent yet), or
    when it ended, or after ``timeout`` seconds; the store is only opened once the command has made it (never
    created here)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if store.exists() and (also is None or also()):
            try:
                with sqlite3.connect(store) as db:
                    if db.execute("SELECT count(*) FROM answers").fetchone()[0] >= answers:
                        break
            except sqlite3.OperationalError:
                pass
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "shared(*paths): the test reads ../shared/<path> (see tests/conftest.py)")


# -- scheduling on several processes (``pytest -n 2``, the CI command): the longest tests start first
# Rebuilt in session 22 (s31) from each test's CPU seconds (getrusage of the worker and its children around
# each test, under ``pytest -n 2``; NOTES.md, session 22), longest first, without the tests that moved to the
# slow part. Only the order changes, never what runs: a name that no longer matches is simply not moved. With
# pytest-xdist the wall time is at least the longest test, and a long test collected last runs alone while the
# other process idles; started first, it overlaps the rest.
LONG_FIRST = (
    "test_seeds.py::test_hash_seed_and_blas_threads_change_no_byte",
    "test_agree_oracles.py::test_values_and_intervals_equal_the_oracles",
    "test_zelo_pairs_ranking.py::test_two_adds_at_once_lose_nothing",
    "test_pairs_resume.py::test_stored_path_equals_memory_and_replay[ranking-1-9-0.3]",
    "test_parallel.py::test_zelo_compare_jobs_identical",
    "test_stats_compare.py::test_records_equal_scipy_and_statsmodels",
    "test_docs.py::test_shell_examples_run[zelo_pairs.md]",
    "test_zelo_tau_consistency.py::test_lp_is_at_least_every_fixed_gaussian_design",
    "test_judge_adversarial.py::test_signal_mid_run_keeps_every_answer_in_flight_and_resumes_exactly",
    "test_zelo_ranking_bound.py::test_bench_table_reduced",
    "test_startup_imports.py::test_plot_draws_without_pyplot",
    "test_plot_canvas.py::test_pdf_missing_glyphs_one_warning_or_none",
    "test_zelo_bandits.py::test_condorcet_winner_found_with_generous_budget",
    "test_zelo_judge.py::test_sigkill_then_resume_asks_nothing_twice",
    "test_pairs_trial.py::test_tournament_same_seed_same_pairs_whatever_the_hash_seed",
    "test_fit_threads.py::test_api_fit_on_threads_has_the_bits_of_one_blas_thread",
    "test_recovery_variants_bench.py::test_variants_bench_runs_and_refuses_unknown_variants",
    "test_zelo_bandits.py::test_tied_winners_one_of_them_returned",
    "test_zelo_tau_consistency.py::test_lp_without_information_is_zero_and_grows_with_the_budget",
    "test_judge_adversarial.py::test_an_ignored_sigint_stays_ignored",
    "test_stats_cli.py::test_console_entry_point_subprocess",
    "test_zelo_adaptive_ranking.py::test_recovery_cli_adaptive_options_seeded_and_refused_for_cycles",
    "test_stats_exact.py::test_wilcoxon_equals_one_row_scipy_calls[auto-wilcox]",
    "test_zelo_tau_documents.py::test_grid_laws_lie_between_independent_documents_and_the_bound",
    "test_agree_dl2021.py::test_docs_show_the_scripts_table",
    "test_judge_adversarial.py::test_second_signal_stops_at_once",
    "test_zelo_simulate.py::test_recovery_top_overlap_is_the_same_on_every_cpu",
    "test_zelo_judge.py::test_cmd_judges_crash_garbage_hang",  # seconds of waiting for a hung judge, little CPU
    "test_zelo_judge.py::test_faults_end_judged_or_failed_with_reason",  # likewise
    "test_docs.py::test_shell_examples_run[shell-completion.md]",
)


def _long_rank(nodeid: str) -> int:
    name = nodeid.rsplit("/", 1)[-1]
    return next((i for i, p in enumerate(LONG_FIRST) if name.startswith(p)), len(LONG_FIRST))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On a pytest-xdist worker only: known long tests first (in ``LONG_FIRST`` order), then the rest in
    collection order (a stable sort). Every worker sorts the same way, so their collections still agree;
    a single-process run keeps the plain collection order."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda it: _long_rank(it.nodeid))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """``-n N`` (``--dist load``, the default): pytest-xdist's work-stealing scheduler instead. It gives each
    process half of the tests and moves pending ones from a busy process to an idle one, so the processes
    end together; "load" hands out fixed chunks and can leave one process running the tail alone."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import WorkStealingScheduling

    return WorkStealingScheduling(config, log)


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers(name="shared"):
        for rel in mark.args:
            need_shared(*Path(rel).parts)


def file_topics(path) -> set[str]:
    """The topics (first fields) of a qrels or run file."""
    with open(path, encoding="utf-8") as fh:
        return {line.split()[0] for line in fh if line.strip()}


@contextlib.contextmanager
def warns_missing_topics(qrels_topics, runs: dict):
    """The block must warn exactly pref_eval's missing-topics warning (``pref_eval.errors.PrefEvalWarning``), once
    for each run of ``runs`` ({name: its topics}) that lacks some of ``qrels_topics``: ``NAME: run lacks N of M
    qrels topics`` with N and M counted here; nothing for a run that has them all. Other warnings pass through."""
    import warnings

    from pref_eval.errors import PrefEvalWarning

    qt = {str(q) for q in qrels_topics}
    want = sorted(f"{name}: run lacks {len(qt - {str(q) for q in rt})} of {len(qt)} qrels topics"
                  for name, rt in runs.items() if qt - {str(q) for q in rt})
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        yield
    mine = sorted(str(w.message).split(";")[0] for w in got if issubclass(w.category, PrefEvalWarning))
    assert mine == want, (mine, want)
    for w in got:
        if not issubclass(w.category, PrefEvalWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


# The simulation tables of docs/zelo_simulate.md, rerun, against the docs: the adaptive strategies choose pairs
# by comparing posterior quantities, so a near-tie can go the other way when the last bits of a fit change, and
# they do between kinds of CPU (numpy's float64 exp/log take numpy's AVX-512 code or glibc's, glibc's differ with
# and without FMA; OpenBLAS picks kernels per CPU). A few of the 100 trials then follow another path: the tables,
# made on an AVX-512 machine, moved by up to 0.004 on an AVX2 one (AMD EPYC, session 13), and by 0.005 (one cell,
# 0.737 -> 0.732) with OpenBLAS's Sandybridge kernels or computed as on a CPU older than Haswell (conftest
# cpu_kinds "pre-haswell"; c22, session 13). On the machine kind that made them they are equal; since session 23
# the simulations take the C library's exp on every CPU (pref_eval/libm.py) and the tables were rewritten with
# it, so only glibc (FMA or not) and OpenBLAS's kernels still move cells (docs/zelo_simulate.md). 5 in the third
# decimal passes (+1e-9: 0.737 - 0.732 is a little more than 0.005 in binary).
CROSS_CPU_TOL = 5e-3 + 1e-9
# the by-distance table's counts (1 decimal): 0.2 on the AVX2 machine, 0.3 as on a CPU older than Haswell
CROSS_CPU_TOL_COUNTS = 0.3 + 1e-9


def cpu_kinds() -> dict[str, dict[str, str]]:
    """Environment settings that make a subprocess compute as another kind of x86-64 CPU would, for the checks
    whose peer's output depends on the CPU (the README of tests/data/zelo/zbench): ``this`` (no change);
    ``no-avx512``: numpy without its AVX-512 code (float64 ``exp``/``log`` then call glibc's, as on an AVX2 CPU)
    and OpenBLAS's oldest kernels; ``numpy-baseline``: numpy's baseline code only (no AVX2: another sort, so
    another order of ties in ``np.argsort``); ``pre-haswell``: that, glibc's ``exp``/``log`` without FMA
    (glibc >= 2.33 reads these names, older ones ignore them) and OpenBLAS's oldest kernels, as on an x86-64
    CPU older than Haswell. Features the CPU does not have are ignored, so on an AVX2 machine ``no-avx512``
    only changes OpenBLAS's kernels (``tools/cpu_kinds.py`` runs the shipped commands under such settings)."""
    import numpy as np

    core = getattr(np, "_core", None) or np.core  # numpy 1.x: np.core
    names = [f for f in core._multiarray_umath.__cpu_features__ if f.startswith("AVX512") or f == "X86_V4"]
    no512 = {"NPY_DISABLE_CPU_FEATURES": " ".join(names), "OPENBLAS_CORETYPE": "Prescott"}
    base = " ".join(dict.fromkeys([*core._multiarray_umath.__cpu_dispatch__, *names]))
    return {"this": {}, "no-avx512": no512, "numpy-baseline": {"NPY_DISABLE_CPU_FEATURES": base},
            "pre-haswell": {"NPY_DISABLE_CPU_FEATURES": base, "OPENBLAS_CORETYPE": "Prescott",
                            "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-FMA4,-AVX2_Usable,-FMA_Usable"}}


def cpu_kind_code(kind: str) -> dict[str, bool] | None:
    """Which code numpy and glibc run in a subprocess started with ``cpu_kinds()[kind]`` on this machine:
    ``avx512``: numpy's AVX-512 float64 ``exp``/``log``; ``avx2``: numpy's AVX2 (or AVX-512) sorts, else its
    baseline introsort (another order of ties in ``np.argsort``); ``fma``: glibc's ``exp``/``log`` with FMA (glibc
    takes it where the CPU has FMA and AVX2). None off x86-64 or glibc >= 2.33 (the settings' effect unknown)."""
    import platform

    import numpy as np

    if platform.machine().lower() not in ("x86_64", "amd64"):
        return None
    lib, ver = platform.libc_ver()
    try:
        if lib != "glibc" or tuple(int(x) for x in ver.split(".")[:2]) < (2, 33):
            return None
    except ValueError:
        return None
    core = getattr(np, "_core", None) or np.core  # numpy 1.x: np.core
    f = core._multiarray_umath.__cpu_features__
    avx2 = bool(f.get("AVX2") and f.get("FMA3"))
    code = {"avx512": bool(f.get("X86_V4") or f.get("AVX512_SKX")), "avx2": avx2, "fma": avx2}
    if kind == "no-avx512":
        code["avx512"] = False
    elif kind == "numpy-baseline":
        code.update(avx512=False, avx2=False)
    elif kind == "pre-haswell":
        code = dict.fromkeys(code, False)
    elif kind != "this":
        raise KeyError(kind)
    return code


def assert_rows_close(old: list[str], new: list[str], sep: str, abs_tol: float = CROSS_CPU_TOL) -> None:
    """The docs' table rows ``old`` against the bench's ``new``: cell by cell (cells split by the regular
    expression ``sep``), numbers within ``abs_tol`` (the docs print 3 decimals; ``CROSS_CPU_TOL``), other text
    equal."""
    import re

    assert len(old) == len(new)
    for a, b in zip(old, new, strict=True):
        ca, cb = re.split(sep, a.strip(" |")), re.split(sep, b.strip(" |"))
        assert len(ca) == len(cb), (a, b)
        for x, y in zip(ca, cb, strict=True):
            try:
                assert float(x) == pytest.approx(float(y), abs=abs_tol), (a, b)
            except ValueError:
                assert x == y, (a, b)


@pytest.fixture(scope="session")
def recovery_bench():
    """``run(*args) -> stdout`` of ``bench/recovery_adaptive.py ARGS``, in this process, with its simulations
    shared over the session. The docs' recovery tables (main, ``--oracle``, ``--by-distance``, ``--tau-bound``,
    ``--tau-lp``; tests/test_zelo_ranking_bound.py, test_zelo_tau_bound.py, test_zelo_tau_consistency.py) rerun the
    same simulations (same K, σ, cycles, trials, seed, strategy): :func:`pref_eval.zelo.simulate.recovery`'s
    ``design`` and ``distance_bins`` only add columns computed after the fits, so each simulation runs once here,
    with both.
    The bench's own process is still tested (test_zelo_ranking_bound.py, test_bench_table_reduced)."""
    import contextlib
    import importlib.util
    import io

    spec = importlib.util.spec_from_file_location("recovery_adaptive_bench", ROOT / "bench" / "recovery_adaptive.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    real, memo = bench.recovery, {}

    def recovery(K, sigma, cycles, trials, **kw):
        kw.pop("design", None)
        kw.pop("distance_bins", None)
        key = (K, sigma, cycles, trials, tuple(sorted(kw.items())))
        if key not in memo:
            edges = [*(e for e in bench.DIST_EDGES if e < K), K]  # distance_row's bins
            memo[key] = real(K, sigma, cycles, trials, design=True, distance_bins=edges, **kw)
        return memo[key]

    bench.recovery = recovery

    def run(*args: str) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            bench.main(list(args))
        return out.getvalue()

    return run


@pytest.fixture
def root() -> Path:
    """The repository root."""
    return ROOT


@pytest.fixture
def data_dir() -> Path:
    """``tests/data``."""
    return DATA


# -- the fault suite's workspace (tests/fault_workspace.py): built once per module, copied per test
@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    from fault_workspace import build

    return build(tmp_path_factory.mktemp("pristine"))


@pytest.fixture()
def ws(pristine, tmp_path) -> Path:
    import shutil

    dst = tmp_path / "ws"
    shutil.copytree(pristine, dst, symlinks=True)
    return dst


def server_factory(cls):
    """A fixture's body: yields ``make(**kw) -> (server, url)`` for a server class with ``start() -> url`` and
    ``stop()``; every server made is stopped after the test."""
    made = []

    def make(**kw):
        s = cls(**kw)
        url = s.start()
        made.append(s)
        return s, url

    yield make
    for s in made:
        s.stop()


@pytest.fixture
def server():
    """``make(**kw) -> (FakeOpenAI, url)``: local OpenAI-compatible servers (tests/fake_openai.py),
    stopped after the test."""
    from fake_openai import FakeOpenAI

    yield from server_factory(FakeOpenAI)


def bayes_tau_k3(sigma: float, c: int) -> tuple[float, float]:
    """Bayes-optimal E[tau against the truth] for K = 3 documents with N(0, sigma^2) scores, judgments of c votes
    (Binomial(c, sigma(x_i - x_j))), by enumeration on a 61^3 grid over x (within 1e-3 of 81 points): the mean over
    the three pairs of E|P+ - P-|. Returns (adaptive, full): the adaptive design "read (0, 1); if 0 won at least 2
    votes read (0, 2), else (1, 2)", and the non-adaptive reading of all three pairs. Shared by the tau-bound tests
    (tests/test_zelo_tau_consistency.py, test_zelo_tau_documents.py)."""
    import itertools

    import numpy as np
    from scipy import stats
    from scipy.special import expit

    g = np.linspace(-5 * sigma, 5 * sigma, 61)
    X = np.stack(np.meshgrid(g, g, g, indexing="ij"), axis=-1).reshape(-1, 3)
    prior = stats.norm.pdf(X, 0, sigma).prod(axis=1)
    prior /= prior.sum()
    pairs = ((0, 1), (0, 2), (1, 2))
    sign = {p: np.sign(X[:, p[0]] - X[:, p[1]]) for p in pairs}
    lik = {(p, s): stats.binom.pmf(s, c, expit(X[:, p[0]] - X[:, p[1]])) for p in pairs for s in range(c + 1)}

    def value(w):
        return sum(abs(np.sum(w * sign[p])) for p in pairs) / 3

    adaptive = sum(value(prior * lik[(0, 1), s1] * lik[(0, 2) if s1 >= 2 else (1, 2), s2])
                   for s1 in range(c + 1) for s2 in range(c + 1))
    full = sum(value(prior * lik[(0, 1), a] * lik[(0, 2), b] * lik[(1, 2), d])
               for a, b, d in itertools.product(range(c + 1), repeat=3))
    return float(adaptive), float(full)
