"""Record classes: dataclasses whose methods are not compiled at import (issue #13, start-up).

``@dataclass`` writes the source of ``__init__``, ``__repr__``, ``__eq__`` and, when frozen,
``__hash__``, ``__setattr__`` and ``__delattr__`` for every class and compiles it with ``exec``
while the module is imported: about 4.8 million instructions for a frozen class of eight fields
under CPython 3.11, 1.3 % of ``import numpy``; the everyday commands loaded 4 to 13 such classes
(``bench/bench_startup.py --instructions`` measures the commands).

:func:`record` is ``@dataclass`` without that compilation. It still lets
:func:`dataclasses.dataclass` build the field table (``__dataclass_fields__``, so
``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` work; ``field(default=...,
default_factory=..., repr=..., compare=..., hash=...)`` declares fields as usual), and gives the
class shared methods that read the table, with dataclass behaviour:

* ``__init__`` takes the ``init`` fields positionally in declaration order or by keyword, fills the
  others from ``default`` / ``default_factory``, and raises ``TypeError`` for a missing, unknown or
  repeated argument;
* ``__repr__`` is ``Name(field=value, ...)`` over the ``repr`` fields;
* ``__eq__`` compares the tuples of ``compare`` fields of two instances of the same class;
  a frozen record hashes that tuple (``hash=`` overrides per field), a mutable one is unhashable;
* a frozen record raises :class:`dataclasses.FrozenInstanceError` on assignment or deletion of an
  attribute.

A method the class defines itself is kept, as ``@dataclass`` does; ``__post_init__`` (without
``InitVar`` arguments) is called at the end of ``__init__``. ``__init__`` runs a short loop
over the fields (about a microsecond per field): records are made per file, run, measure or
block, never per document or judgment.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_kwargs: Any) -> Callable[[Any], Any]:
        return lambda fn: fn

_T = TypeVar("_T")
_MISSING = dataclasses.MISSING


def _fields(cls: type) -> tuple[dataclasses.Field, ...]:
    return dataclasses.fields(cls)


def _init(cls: type, frozen: bool) -> Callable[..., None]:
    """``__init__``: init fields positionally or by keyword, the rest from their defaults."""
    fields = _fields(cls)
    names = tuple(f.name for f in fields if f.init)
    known = frozenset(names)
    plan = tuple((f.name, f.init, f.default, f.default_factory) for f in fields)
    qual = cls.__qualname__
    put = object.__setattr__ if frozen else setattr
    post_init = getattr(cls, "__post_init__", None)  # called after the fields are set, as dataclasses do

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if len(args) > len(names):
            raise TypeError(f"{qual}.__init__() takes {len(names) + 1} positional arguments "
                            f"but {len(args) + 1} were given")
        values = dict(zip(names, args, strict=False))
        for key, value in kwargs.items():
            if key not in known:
                raise TypeError(f"{qual}.__init__() got an unexpected keyword argument {key!r}")
            if key in values:
                raise TypeError(f"{qual}.__init__() got multiple values for argument {key!r}")
            values[key] = value
        for name, init, default, factory in plan:
            if init and name in values:
                put(self, name, values[name])
            elif default is not _MISSING:
                put(self, name, default)
            elif factory is not _MISSING:
                put(self, name, factory())
            elif init:
                raise TypeError(f"{qual}.__init__() missing required argument: {name!r}")
        if post_init is not None:
            post_init(self)

    return __init__


def _compare(cls: type, frozen: bool) -> dict[str, Any]:
    """``__repr__``, ``__eq__`` and ``__hash__`` (None: unhashable, for a mutable record)."""
    fields = _fields(cls)
    shown = tuple(f.name for f in fields if f.repr)
    compared = tuple(f.name for f in fields if f.compare)
    hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))

    def __repr__(self) -> str:
        body = ", ".join(f"{n}={getattr(self, n)!r}" for n in shown)
        return f"{type(self).__qualname__}({body})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return tuple(getattr(self, n) for n in compared) == tuple(getattr(other, n) for n in compared)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in hashed))

    return {"__repr__": __repr__, "__eq__": __eq__, "__hash__": __hash__ if frozen else None}


def _frozen(cls: type) -> dict[str, Any]:
    """``__setattr__`` and ``__delattr__`` of a frozen record (FrozenInstanceError, as dataclasses)."""
    names = frozenset(f.name for f in _fields(cls))

    def __setattr__(self, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    return {"__setattr__": __setattr__, "__delattr__": __delattr__}


def _methods(cls: type, frozen: bool) -> dict[str, Any]:
    """The dataclass methods of ``cls`` (its field table already built)."""
    return {"__init__": _init(cls, frozen), **_compare(cls, frozen), **(_frozen(cls) if frozen else {})}


def _explicit(cls: type, name: str) -> bool:
    """``cls`` defines ``name`` itself (a ``__hash__`` set to None by defining ``__eq__`` does not count)."""
    if name not in cls.__dict__:
        return False
    return not (name == "__hash__" and cls.__dict__[name] is None and "__eq__" in cls.__dict__)


def _make(cls: type[_T], frozen: bool) -> type[_T]:
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)  # the field table, nothing compiled
    for name, fn in _methods(cls, frozen).items():
        if not _explicit(cls, name):
            if fn is not None:
                fn.__qualname__ = f"{cls.__qualname__}.{name}"
            setattr(cls, name, fn)
    return cls


@overload
def record(cls: type[_T], /) -> type[_T]: ...


@overload
def record(*, frozen: bool = False) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(dataclasses.field,))
def record(cls: type[_T] | None = None, /, *, frozen: bool = False) -> Any:
    """``@record`` / ``@record(frozen=True)``: a dataclass with shared, uncompiled methods (module doc)."""
    if cls is None:
        return lambda c: _make(c, frozen)
    return _make(cls, frozen)
