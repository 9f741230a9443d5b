"""pref_eval.records.record behaves as dataclasses.dataclass (the oracle): the same class body under
both decorators gives the same construction, errors, repr, equality, hashing, frozen-ness,
``dataclasses.replace`` / ``fields`` / ``asdict`` and pickling."""
from __future__ import annotations

import dataclasses
import pickle

import pytest

from pref_eval.records import record


def _body():
    class Rec:
        """A record."""

        a: int
        b: str = "x"
        c: list = dataclasses.field(default_factory=list)
        d: object = dataclasses.field(default=None, repr=False, compare=False)
        e: tuple = dataclasses.field(default=(), hash=False)

        def total(self) -> int:
            return self.a + len(self.c)

    return Rec


def _pair(frozen: bool):
    ours = record(frozen=True)(_body()) if frozen else record(_body())
    return ours, dataclasses.dataclass(frozen=frozen)(_body())


def _outcome(fn):
    try:
        v = fn()
    except Exception as err:  # noqa: BLE001 - the exception type is what is compared
        return ("raises", type(err))
    return ("value", v)


CALLS = [((1,), {}), ((1, "y"), {}), ((), {"a": 2, "c": [1]}), ((1, "y", [3], 4, (5,)), {}), ((), {}),
         ((1,), {"a": 2}), ((1,), {"z": 2}), ((1, "y", [3], 4, (5,), 6), {})]


@pytest.mark.parametrize("frozen", [False, True])
def test_same_behaviour_as_dataclass(frozen):
    ours, ref = _pair(frozen)
    for args, kwargs in CALLS:
        got, want = _outcome(lambda cls=ours, a=args, k=kwargs: cls(*a, **k)), _outcome(
            lambda cls=ref, a=args, k=kwargs: cls(*a, **k))
        assert got[0] == want[0], (args, kwargs)
        if got[0] == "raises":
            assert got[1] is want[1]
            continue
        x, y = got[1], want[1]
        assert repr(x).replace("_body.<locals>.", "") == repr(y).replace("_body.<locals>.", "")
        assert vars(x) == vars(y)
        assert x.total() == y.total()
        assert dataclasses.asdict(x) == dataclasses.asdict(y)
        assert [f.name for f in dataclasses.fields(x)] == [f.name for f in dataclasses.fields(y)]
        assert vars(dataclasses.replace(x, b="z")) == vars(dataclasses.replace(y, b="z"))
        # equality: compare=False fields ignored, other classes not equal
        x2 = dataclasses.replace(x, d="other")
        y2 = dataclasses.replace(y, d="other")
        assert (x == x2) == (y == y2) and (x == y) is False
        assert (x == dataclasses.replace(x, a=x.a + 1)) == (y == dataclasses.replace(y, a=y.a + 1))
        # hashing: frozen hashes the compare fields (hash=False excluded); mutable is unhashable
        if frozen:
            if isinstance(x.c, list):
                assert _outcome(lambda v=x: hash(v))[1] is _outcome(lambda v=y: hash(v))[1] is TypeError
            xh = dataclasses.replace(x, c=(1,))
            yh = dataclasses.replace(y, c=(1,))
            assert hash(xh) == hash(yh)
            assert hash(xh) == hash(dataclasses.replace(xh, e=(9,)))
            assert _outcome(lambda v=x: setattr(v, "a", 5)) == _outcome(lambda v=y: setattr(v, "a", 5))
            assert _outcome(lambda v=x: setattr(v, "new", 5)) == _outcome(lambda v=y: setattr(v, "new", 5))
            assert _outcome(lambda v=x: delattr(v, "a")) == _outcome(lambda v=y: delattr(v, "a"))
        else:
            assert ours.__hash__ is None and ref.__hash__ is None
            x.a = 7
            assert x.a == 7


def test_factory_called_per_instance_and_own_methods_kept():
    @record
    class R:
        items: list = dataclasses.field(default_factory=list)

        def __repr__(self) -> str:
            return "mine"

    a, b = R(), R()
    a.items.append(1)
    assert b.items == [] and repr(a) == "mine"
    assert dataclasses.is_dataclass(a)


def test_no_code_compiled(monkeypatch):
    """The point of the module: no ``exec`` of generated source (what makes @dataclass slow to import)."""
    import builtins

    calls = []
    real_exec = builtins.exec
    monkeypatch.setattr(builtins, "exec", lambda *a, **k: calls.append(a) or real_exec(*a, **k))
    record(frozen=True)(_body())
    record(_body())
    assert calls == []
    dataclasses.dataclass(frozen=True)(_body())
    assert calls  # the oracle does compile: the probe sees exec


def test_pickle_round_trip():
    """Frozen records cross process boundaries (--jobs) as dataclasses do."""
    from pref_eval.collection import Collection

    c = Collection(qrels="q", runs=("r",))
    back = pickle.loads(pickle.dumps(c))
    assert back == c and back.missing == () and type(back) is Collection
    with pytest.raises(dataclasses.FrozenInstanceError):
        back.runs = ()


@pytest.mark.parametrize("frozen", [False, True])
def test_post_init_called_as_dataclass(frozen):
    def body():
        class P:
            a: int
            b: int = 0

            def __post_init__(self) -> None:
                object.__setattr__(self, "b", self.a * 2)

        return P

    ours = record(frozen=True)(body()) if frozen else record(body())
    oracle = dataclasses.dataclass(frozen=frozen)(body())
    assert ours(3).b == oracle(3).b == 6
