"""Adaptive ``zelo_pairs`` states (format 2) resume from what they store, and give what a full replay gives.

The reference definition of a state is the replay of its judgments through the strategy, round by round
(``AdaptiveSession.replay`` / ``RankingSession.replay``: what every call did before format 2). Random
sessions -- several seeds, pool sizes, both goals, tie rates, batches split in two, repeated ``next``
without ``add``, duplicate and unrequested judgments -- are driven two ways: in one process (the
strategy objects kept in memory, as ``zelo_judge --state`` runs) and through the state text, parsed
again before every call (as a shell loop, or a driver restarted after ``kill -9`` between writes, runs).
Every batch, status, result and state text must be byte-identical between the two, and every state text
must be exactly what the replay of its judgments writes. Then: format-1 states migrate by one replay, a
newer format is refused with one line, an edited snapshot or random stream is refused by ``--verify``.
"""
from __future__ import annotations

import json
import random

import numpy as np
import pytest

from pref_eval.errors import InputError
from pref_eval.zelo.adaptive import AdaptiveBest
from pref_eval.zelo.adaptive_session import AdaptiveSession
from pref_eval.zelo.pair_state import next_batch, parse_state
from pref_eval.zelo.ranking_session import RankingSession


def _new(goal: str, seed: int, K: int, topics: int) -> AdaptiveSession | RankingSession:
    if goal == "best":
        s: AdaptiveSession | RankingSession = AdaptiveSession(seed, {"batch": 1 + seed % 2})
    else:
        s = RankingSession(seed, {"cycles": 3, "batch": 0 if seed % 2 else 2, "window": 3,
                                  "start": ("matching", "cycle")[seed % 2], "criterion": "discordance"})
    for t in range(topics):
        size = K + t  # topics of different sizes (and one of a single document: nothing to ask)
        s.add_topic(f"t{t}", {f"d{i}": 1 + (i % 3) for i in range(size if t < topics - 1 else 1)})
    return s


def _answers(req: list[tuple[str, str, str]], r: random.Random, ties: float) -> list[tuple[str, str, str, float]]:
    """A noisy judge (the smaller docno number wins 80 %), ties at rate ``ties``, some pairs in the other order,
    now and then a duplicate and an unrequested judgment."""
    rows = []
    for t, a, b in req:
        if r.random() < 0.3:
            a, b = b, a
        s = 0.5 if r.random() < ties else float((int(a[1:]) > int(b[1:])) == (r.random() < 0.8))
        rows.append((t, a, b, s))
    if rows and r.random() < 0.3:
        rows.append(rows[0])
    if rows and r.random() < 0.2:
        rows.append((rows[0][0], "d0", "nosuch", 1.0))
    return rows


def _drive(goal: str, seed: int, K: int, ties: float, stored: bool) -> list[str]:
    """Everything the session shows, call by call: batches, status, result, the state text."""
    s = _new(goal, seed, K, 3)
    r = random.Random(f"{goal}/{seed}/{K}/{ties}")
    seen = []

    def reload(x):
        return parse_state(x.to_json()) if stored else x

    for _ in range(2000):
        s = reload(s)
        req = next_batch(s)
        if r.random() < 0.2:  # next asked again before any judgment: the same pairs, a new batch number
            s = reload(s)
            assert next_batch(s) == req
        seen.append(repr(req))
        if not req:
            break
        rows = _answers(req, r, ties)
        cut = r.randrange(len(rows) + 1)
        for part in (rows[:cut], rows[cut:]):  # a batch added in two files
            s = reload(s)
            seen.append(repr(s.add(part)))
            seen.append(repr(s.status()))
            seen.append(s.to_json())
    else:
        pytest.fail("the session did not finish")
    seen.append(repr(s.topics))
    return seen


CASES = [("best", seed, K, ties) for seed, K, ties in ((0, 7, 0.0), (1, 12, 0.3), (2, 9, 0.8), (3, 16, 0.1))] + \
        [("ranking", seed, K, ties) for seed, K, ties in ((0, 6, 0.0), (1, 9, 0.3), (2, 7, 0.6), (3, 12, 0.1))]


# the "ranking" sessions cost seconds each: one in the suite (seed 1, ties 0.3), seeds 2 and 3 with the slow
# tests (session 21, s30), seed 0 (no ties, 1.7 s CPU) too (session 22, s31); the "best" ones are quick, all
# in the suite
@pytest.mark.parametrize("goal,seed,K,ties", [pytest.param(*c, marks=pytest.mark.slow)
                                              if c[0] == "ranking" and c[1] != 1 else c for c in CASES])
def test_stored_path_equals_memory_and_replay(goal, seed, K, ties):
    mem = _drive(goal, seed, K, ties, stored=False)
    sto = _drive(goal, seed, K, ties, stored=True)
    assert sto == mem
    cls = AdaptiveSession if goal == "best" else RankingSession
    texts = [x for x in sto if x.startswith("{\n")]
    for text in texts[:: max(1, len(texts) // 8)] + texts[-1:]:  # the replay of its judgments writes the state
        assert cls.replay(json.loads(text)).to_json() == text
        assert cls.from_json(text, verify=True).to_json() == text


def _finished(goal: str, seed: int = 5, K: int = 8) -> str:
    s = _new(goal, seed, K, 2)
    r = random.Random(seed)
    while req := next_batch(s):
        s.add(_answers(req, r, 0.2))
    return s.to_json()


@pytest.mark.parametrize("goal", ["best", "ranking"])
def test_format_1_migrates_by_one_replay(goal):
    cls = AdaptiveSession if goal == "best" else RankingSession
    s = _new(goal, 4, 9, 2)
    r = random.Random(4)
    for _ in range(5):
        s.add(_answers(next_batch(s), r, 0.2))
    v2 = s.to_json()
    old = json.loads(v2)
    old["version"] = 1
    del old["games" if goal == "best" else "rng"]  # format 1 had the judgments (and rounds) only
    assert cls.from_json(json.dumps(old)).to_json() == v2
    if goal == "best":  # before the per-match cap (format 1 without max_per_match): no cap
        del old["params"]["max_per_match"]
        assert json.loads(cls.from_json(json.dumps(old)).to_json())["params"]["max_per_match"] == 6


def test_no_per_match_cap_equals_cap_at_max_per_pair():
    """The migration above: a match never has more judgments than its pair, so a per-match cap equal to
    max_per_pair caps nothing."""
    for seed in range(6):
        r = random.Random(seed)
        games = [AdaptiveBest(10, max_per_pair=4, max_per_match=m, seed=seed) for m in (None, 4)]
        while not games[0].done():
            req = games[0].outstanding()
            assert games[1].outstanding() == req
            ans = [(a, b, r.choice((0.0, 0.5, 1.0))) for a, b in req]
            for g in games:
                g.add(ans)
        assert games[1].done() and games[0].best() == games[1].best()


@pytest.mark.parametrize("goal", ["best", "ranking"])
def test_newer_format_refused_in_one_line(goal):
    obj = json.loads(_finished(goal))
    obj["version"] = 7
    obj["something new"] = []
    with pytest.raises(InputError) as err:
        parse_state(json.dumps(obj), "s.json")
    assert str(err.value) == "s.json: written by a newer pref_eval (format 7; this version reads up to 2)"


def test_tournament_format_2_and_newer():
    from pref_eval.zelo.tournament import Tournament

    t = Tournament(2, 3, 4, 0, False)
    t.add_topic("q", {f"d{i}": 1 for i in range(6)})
    obj = json.loads(t.to_json())
    assert obj["version"] == 2
    obj["version"] = 1  # format 1 has the same keys: read as it was
    assert Tournament.from_json(json.dumps(obj)).to_json() == t.to_json()
    obj["version"] = 3
    with pytest.raises(InputError, match=r"^s\.json: written by a newer pref_eval \(format 3; this version reads up "
                                         r"to 2\)$"):
        parse_state(json.dumps(obj), "s.json")


def test_edited_snapshot_or_stream_refused_by_verify():
    text = _finished("best")
    obj = json.loads(text)
    obj["games"]["t0"]["losses"][0] = 1 - obj["games"]["t0"]["losses"][0]  # still in range: loads
    edited = json.dumps(obj)
    parse_state(edited, "s.json")
    with pytest.raises(InputError, match=r"s\.json: adaptive state: \$\.games\.t0: not what replaying"):
        parse_state(edited, "s.json", verify=True)
    r = json.loads(_finished("ranking"))
    r["rng"]["t0"]["uinteger"] = 12345
    with pytest.raises(InputError, match=r"\$\.rng\.t0: not the random stream"):
        parse_state(json.dumps(r), "s.json", verify=True)


@pytest.mark.parametrize("where,value,match", [
    (("games", "t0", "losses"), [0], r"\$\.games\.t0\.losses"),
    (("games", "t0", "met"), [[2, 1]], r"\$\.games\.t0\.met"),
    (("games", "t0", "final"), [3, 1], r"\$\.games\.t0\.final"),
    (("games", "t0", "matches"), [[0, 1, 5.0, 0.0, 1]], r"\$\.games\.t0\.matches\[0\]"),
    (("games", "t0", "rng", "inc"), "2", r"\$\.games\.t0\.rng: expected an odd inc"),
    (("games", "t0", "rng"), {"state": "zz"}, r"\$\.games\.t0\.rng"),
    (("games", "t0"), None, r"\$\.games\.t0: expected an object"),
    (("games",), {}, r"\$\.games: expected an object with one entry per topic"),
])
def test_bad_snapshot_refused_with_its_path(where, value, match):
    obj = json.loads(_finished("best"))
    node = obj
    for k in where[:-1]:
        node = node[k]
    node[where[-1]] = value
    with pytest.raises(InputError, match=match):
        parse_state(json.dumps(obj), "s.json")


def test_forged_judgments_refused_without_replay():
    s = _new("best", 0, 6, 2)
    obj = json.loads(s.to_json())
    obj["adds"] = [[["t0", "d0", "d1", 0.0]] * 7]  # more than max_per_pair (6) judgments of a pair
    with pytest.raises(InputError, match=r"more than max_per_pair"):
        parse_state(json.dumps(obj), "s.json")
    obj["adds"] = [[["t0", "d0", "d0", 0.0]]]
    with pytest.raises(InputError, match=r"\$\.adds\[0\]\[0\]: expected a judgment of two documents"):
        parse_state(json.dumps(obj), "s.json")


def test_resume_costs_no_fit(monkeypatch):
    """Loading a long state fits nothing (the replay fitted once per round); the next round fits once."""
    from pref_eval.zelo import adaptive

    text = _finished("best", 6, 24)
    calls = []
    real = adaptive.fit_bt
    monkeypatch.setattr(adaptive, "fit_bt", lambda *a, **k: calls.append(1) or real(*a, **k))
    AdaptiveSession.replay(json.loads(text))
    assert len(calls) >= 4
    calls.clear()
    s = parse_state(text)
    assert calls == [] and s.done()
    assert np.all(s.games["t0"].pair_n == s.games["t0"].pair_n.T)


def test_format_1_ranking_restarted_stream_kept():
    """Format 1 kept no random stream: every call started a topic's stream afresh, so a small topic filled
    at random twice or more from a shell loop drew other pairs than the replay draws (its own ``result``,
    which replayed, refused such a state). Migrating keeps the stored rounds and continues as format 1 did;
    ``--verify`` still refuses it. Format 1's load is emulated by resuming without the streams."""
    def as_v1(s: RankingSession) -> dict:
        obj = json.loads(s.to_json())
        obj["version"] = 1
        del obj["rng"]
        return obj

    params = {"cycles": 4, "batch": 2, "window": 2, "start": "matching", "criterion": "discordance"}
    s = RankingSession(0, params)
    s.set_pool("t0", [f"d{i}" for i in range(7)])
    r = random.Random(0)
    mid = None
    while True:
        s = RankingSession._resume(as_v1(s), "s.json")  # format 1's load: the stream afresh
        req = next_batch(s)
        if not req:
            break
        if s.games["t0"].rounds == 7:
            mid = as_v1(s)
        s = RankingSession._resume(as_v1(s), "s.json")
        s.add([(t, a, b, r.choice((0.0, 1.0))) for t, a, b in req])
    old = as_v1(s)
    assert RankingSession.replay(old).games["t0"].history != s.games["t0"].history  # the replay differs
    assert RankingSession.from_json(old).games["t0"].history == s.games["t0"].history
    with pytest.raises(InputError, match=r"\$\.rounds\.t0\[\d+\]: not the round the strategy chooses"):
        RankingSession.from_json(old, "s.json", verify=True)
    assert mid is not None
    # a format-1 state whose rounds the replay does choose (one random fill so far) continues the replay's
    # stream: the rounds a running process would ask
    a, b = RankingSession.replay(mid), RankingSession.from_json(mid)
    assert a.to_json() == b.to_json()
    while req := next_batch(a):
        assert next_batch(b) == req
        ans = [(t, x, y, r.choice((0.0, 1.0))) for t, x, y in req]
        a.add(ans)
        b = RankingSession.from_json(b.to_json())
        b.add(ans)
        assert b.to_json() == a.to_json()
