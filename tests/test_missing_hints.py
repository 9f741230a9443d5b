"""Type hints on the public functions of ``pref_eval/`` (tools/missing_hints.py), and that the hints say what
happens: click callbacks are annotated with what click passes them, the package's forwarding wrappers
(``pref_eval.evaluate`` ...) carry the signatures of the api functions they call."""
from __future__ import annotations

import importlib
import inspect
import sys
import textwrap

import click
import pytest

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import missing_hints  # noqa: E402


def test_no_public_function_lacks_hints():
    """Public module-level functions and public methods of public classes, every module of the package.
    No allow-list: none is left without hints."""
    assert missing_hints.findings(str(ROOT / "pref_eval")) == []


def test_the_check_finds_each_missing_hint(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "m.py").write_text(textwrap.dedent('''
        from typing import TYPE_CHECKING

        def ok(a: int, *b: str, c: int = 1, **d: float) -> None: ...
        def no_return(a: int): ...
        def no_param(a, b: int) -> int: ...
        def no_star(*args, **kwargs) -> None: ...
        async def no_kwonly(*, key) -> None: ...
        def _private(a): ...
        def outer() -> None:
            def closure(x): ...  # not public
        if TYPE_CHECKING:
            pass
        else:
            def fallback(x) -> None: ...
        class Public:
            def method(self, x) -> None: ...
            def typed(self, x: int) -> int: ...
            @staticmethod
            def static(x) -> None: ...
            @classmethod
            def cm(cls) -> None: ...
            def _hidden(self, x): ...
            class Inner:
                def deep(self): ...
        class _Private:
            def method(self, x): ...
    '''))
    assert missing_hints.findings(str(pkg)) == [
        "pkg/m.py:5: no_return: missing return",
        "pkg/m.py:6: no_param: missing a",
        "pkg/m.py:7: no_star: missing *args, **kwargs",
        "pkg/m.py:8: no_kwonly: missing key",
        "pkg/m.py:15: fallback: missing x",
        "pkg/m.py:17: Public.method: missing x",
        "pkg/m.py:20: Public.static: missing x",
        "pkg/m.py:25: Public.Inner.deep: missing return",
    ]
    assert missing_hints.main([str(pkg), "--count"]) == 1


# ------------------------------------------------------------------ click callbacks
def _click_type(p: click.Parameter) -> str:
    """The type of the value click passes for ``p`` (click's declaration: count, flag, multiple, nargs, type,
    default None or not)."""
    from pref_eval.cli.param_types import Finite, NumberList

    def base(t: click.ParamType) -> str:
        if isinstance(t, NumberList):
            return f"tuple[{base(t.item)}, ...]"
        if isinstance(t, (Finite, click.FloatRange, click.types.FloatParamType)):
            return "float"
        if isinstance(t, (click.IntRange, click.types.IntParamType)):
            return "int"
        if isinstance(t, click.types.BoolParamType):
            return "bool"
        if isinstance(t, (click.Choice, click.types.StringParamType, click.Path)):
            return "str"
        raise AssertionError(f"a click type this test does not know: {t!r} ({p.name})")

    if isinstance(p, click.Option) and p.count:
        return "int"
    t = base(p.type)
    if p.multiple or p.nargs == -1:
        return f"tuple[{t}, ...]"
    if p.nargs > 1:
        t = f"tuple[{', '.join([t] * p.nargs)}]"
    if isinstance(p, click.Option) and p.is_flag:
        return "bool | None" if p.default is None else "bool"
    optional = not p.required and (p.default is None or (isinstance(p, click.Argument) and p.default is not None
                                                         and not isinstance(p.default, (str, int, float, tuple))))
    return f"{t} | None" if optional else t


def _holds(value: object, annotation: str) -> bool:
    """``value`` is of the (simple) annotation: unions of str/int/float/bool/None and ``tuple[X, ...]``."""
    for alt in annotation.split(" | "):
        if alt == "None" and value is None:
            return True
        if alt.startswith("tuple["):
            inner = alt[6:-1]
            if isinstance(value, tuple) and (inner.endswith(", ...") and all(_holds(v, inner[:-5]) for v in value)
                                             or len(inner.split(", ")) == len(value)):
                return True
        elif alt in ("str", "int", "float", "bool") and type(value).__name__ == alt:  # exactly: no int for float
            return True
    return False


def _commands():
    from pref_eval.cli.options import COMMANDS

    def walk(cmd: click.Command, path: str):
        yield path, cmd
        if isinstance(cmd, click.Group):
            for name, sub in cmd.commands.items():
                yield from walk(sub, f"{path} {name}")

    for c in COMMANDS:
        yield from walk(importlib.import_module(c.module).command, c.module.rsplit(".", 1)[1])


COMMANDS = list(_commands())


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=[p for p, _ in COMMANDS])
def test_click_callbacks_are_annotated_with_what_click_passes(path, cmd):
    fn = inspect.unwrap(cmd.callback)
    sig = inspect.signature(fn)
    want = {p.name: _click_type(p) for p in cmd.params}
    assert {n: p.annotation for n, p in sig.parameters.items()} == want
    assert sig.return_annotation in ("None", "int")
    # click's defaults (what it passes for an option not given) hold the annotations
    ctx = cmd.make_context(path, [], resilient_parsing=True)
    for p in cmd.params:
        if not p.required:
            assert _holds(ctx.params[p.name], want[p.name]), (p.name, ctx.params[p.name], want[p.name])


# ------------------------------------------------------------------ pref_eval.evaluate ... -> pref_eval.api
WRAPPERS = {"evaluate": "measures.evaluate", "iter_calc": "measures.iter_calc",
            "calc_aggregate": "measures.calc_aggregate", "evaluator": "measures.evaluator",
            "agreement": "agreement.agree", "preferences": "run_evaluation.preferences",
            "aggregate": "aggregation.aggregate", "compare": "comparison.compare", "fit": "fitting.fit",
            "pairs": "pairing.pairs", "simulate": "simulation.simulate"}


@pytest.mark.parametrize("name", WRAPPERS)
def test_package_wrappers_have_the_api_signatures(name, monkeypatch):
    import pref_eval

    mod, fn = WRAPPERS[name].split(".")
    target = getattr(importlib.import_module(f"pref_eval.api.{mod}"), fn)
    assert inspect.signature(getattr(pref_eval, name)) == inspect.signature(target)
    # and every argument reaches the api function (a stand-in records them)
    sig = inspect.signature(target)
    got = {}
    monkeypatch.setattr(importlib.import_module(f"pref_eval.api.{mod}"), fn,
                        lambda *a, **k: got.update(sig.bind(*a, **k).arguments) or "result")
    args = [f"<{p.name}>" for p in sig.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
    kwargs = {p.name: f"<{p.name}>" for p in sig.parameters.values() if p.kind is p.KEYWORD_ONLY}
    extra = {"some_option": 1} if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()) else {}
    assert getattr(pref_eval, name)(*args, **kwargs, **extra) == "result"
    var_kw = next((p.name for p in sig.parameters.values() if p.kind is p.VAR_KEYWORD), None)
    assert got == {**{a[1:-1]: a for a in args}, **kwargs, **({var_kw: extra} if var_kw else {})}
