"""The judge's prices (``zelo_judge --price MODEL=IN,OUT``, ``pref_eval.judge(prices={MODEL: (IN, OUT)})``,
prices of 1,000 input and output tokens): declared as two finite numbers >= 0 for a judge's price key, refused
otherwise in one line before any request is sent (the local stand-in server, tests/fake_openai.py, sees none),
honoured otherwise (the stored cost is tokens_in/1000 * IN + tokens_out/1000 * OUT, the server's usage).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from test_zelo_judge import collection, common, rows, zj

from pref_eval.api import judge
from pref_eval.errors import UsageError

pytest.importorskip("openai")
pytest.importorskip("aiohttp")

BAD_API = [
    {"m0": (math.nan, 1.0)}, {"m0": (1.0, math.inf)}, {"m0": (-1.0, 1.0)}, {"m0": (-math.inf, 0)},
    {"m0": (float("1e400"), 1)}, {"m0": (np.float64("nan"), 1)}, {"m0": ("1", 1)}, {"m0": (True, 1)},
    {"m0": (1,)}, {"m0": (1, 2, 3)}, {"m0": "1,2"}, {"m0": None}, {"m0": 1.0}, {"m0": (1j, 1)},
    {"": (1, 1)}, {5: (1, 1)}, {"m1": (1, 1)}, {"M0": (1, 1)},  # no judge has the key (wrong case too)
    [("m0", (1, 1))], "m0=1,2",
]


def _judge(tmp_path, url, prices, **kw):
    return judge(str(tmp_path / "pairs.jsonl"), judges=[f"openai:m0@{url}"], store=str(tmp_path / "s.db"),
                           queries=str(tmp_path / "queries.tsv"), docs=str(tmp_path / "docs.tsv"),
                           output=str(tmp_path / "o.jsonl"), prices=prices, concurrency=1, **kw)


@pytest.fixture
def fake(tmp_path, server, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    truth, pairs = collection(tmp_path, nq=1, nd=3)
    srv, url = server(truth=truth)
    return srv, url, pairs


@pytest.mark.parametrize("prices", BAD_API, ids=[repr(p)[:40] for p in BAD_API])
def test_api_refuses_bad_prices_before_any_request(tmp_path, fake, prices):
    srv, url, _ = fake
    with pytest.raises(UsageError) as err:
        _judge(tmp_path, url, prices)
    msg = str(err.value)
    assert msg.startswith("prices") and "\n" not in msg, msg  # the keyword (the command: --price, as before)
    assert srv.received == [] and not (tmp_path / "o.jsonl").exists() and not (tmp_path / "s.db").exists()


def test_api_prices_are_honoured(tmp_path, fake):
    """Numpy scalars and ints taken; each stored cost is the server's usage priced per 1,000 tokens."""
    srv, url, pairs = fake
    sess = _judge(tmp_path, url, {"m0": (np.float32(1.5), 2)})
    st = rows(tmp_path / "s.db")
    assert len(srv.received) == len(pairs) == len(st) and sess.stats.cost > 0
    for r in st.values():
        assert r["tokens_in"] > 0 and r["cost"] == pytest.approx((1.5 * r["tokens_in"] + 2 * r["tokens_out"]) / 1000,
                                                                 rel=1e-12)
    assert sess.stats.cost == pytest.approx(sum(r["cost"] for r in st.values()), rel=1e-12)


def test_api_zero_prices_accepted(tmp_path, fake):
    srv, url, pairs = fake
    sess = _judge(tmp_path, url, {"m0": (0, 0.0)}, max_cost=0.0)  # free: a zero budget is never passed
    assert len(srv.received) == len(pairs) and sess.stats.cost == 0.0


BAD_CLI = [["m0=nan,1"], ["m0=1,inf"], ["m0=1e400,1"], ["m0=-1,1"], ["m0=1_0,1"], ["m0=0x1,1"], ["m0= 1,1"],
           ["m0=1,"], ["m0=1"], ["m0=,1"], ["m0="], ["=1,1"], ["m0"], ["m0=1,2,3"], ["m0=infinity,1"],
           ["m1=1,1"], ["M0=1,1"], ["m0=1,2", "m0=1,2"], ["m0=1,2", "m0=3,4"]]


@pytest.mark.parametrize("values", BAD_CLI, ids=["+".join(v) for v in BAD_CLI])
def test_command_refuses_bad_prices_before_any_request(tmp_path, fake, values):
    srv, url, _ = fake
    args = [a for v in values for a in ("--price", v)]
    p = zj(tmp_path / "pairs.jsonl", *common(tmp_path), f"--judge=openai:m0@{url}", *args, "-o", tmp_path / "o.jsonl",
           check=False)
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2 and len(lines) == 1 and "--price" in lines[0] and p.stdout == "", p.stderr
    assert srv.received == [] and not (tmp_path / "o.jsonl").exists()


def test_command_price_honoured(tmp_path, fake):
    srv, url, pairs = fake
    zj(tmp_path / "pairs.jsonl", *common(tmp_path), f"--judge=openai:m0@{url}", "--price", "m0=.5,1e3",
       "-o", tmp_path / "o.jsonl")
    st = rows(tmp_path / "s.sqlite")
    assert len(srv.received) == len(pairs) == len(st)
    assert all(r["cost"] == pytest.approx((0.5 * r["tokens_in"] + 1000 * r["tokens_out"]) / 1000, rel=1e-12)
               for r in st.values())
