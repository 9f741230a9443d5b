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

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
SHARED = ROOT.parent / "shared"


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


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "shared(*paths): the test reads ../shared/<path> (see tests/conftest.py)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    for mark in item.iter_markers(name="shared"):
        for rel in mark.args:
            need_shared(*Path(rel).parts)


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


@pytest.fixture
def server():
    """``make(**kw) -> (FakeOpenAI, url)``: local OpenAI-compatible servers (tests/fake_openai.py),
    stopped after the test."""
    from fake_openai import FakeOpenAI

    servers = []

    def make(**kw):
        s = FakeOpenAI(**kw)
        url = s.start()
        servers.append(s)
        return s, url

    yield make
    for s in servers:
        s.stop()
