"""The ../shared rule of tests/conftest.py: skip with a reason that names the folder; an error under CI."""
from __future__ import annotations

import pytest

from conftest import ROOT, need_shared


def test_missing_shared_data_is_a_named_skip_locally(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"needs \.\./shared/no/such/file\.txt"):
        need_shared("no", "such", "file.txt")


@pytest.mark.parametrize("value", ["true", "1", "TRUE"])
def test_missing_shared_data_fails_under_ci(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    with pytest.raises(pytest.fail.Exception, match=r"CI=true: needs \.\./shared/no/such/file\.txt"):
        need_shared("no", "such", "file.txt")


def test_trec_eval_test_collection_is_in_the_repository():
    te = ROOT / "tests" / "data" / "trec_eval_test"
    assert (te / "qrels.test").is_file() and (te / "out.test").is_file()
    notice = (te / "SOURCE.md").read_text(encoding="utf-8")
    assert "NIST-developed software is provided by NIST as a public service" in notice
