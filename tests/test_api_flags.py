"""Every True/False option of every public API function is a bool or refused (UsageError), never
read by its truth value: ``complete="no"`` must not mean True. The functions and their flags are
found from the signatures (an annotation ``bool``), so a new function or flag is covered too."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import pref_eval.api as api
from pref_eval.errors import UsageError


def _flagged() -> list[tuple[str, str]]:
    out = []
    for name in api.__all__:
        f = getattr(api, name)
        if not inspect.isfunction(f):
            continue
        for p in inspect.signature(f).parameters.values():
            if str(p.annotation) in ("bool", "'bool'", "bool | None"):
                out.append((name, p.name))
    return out


FLAGGED = _flagged()


def test_the_flags_are_found() -> None:
    names = {f for f, _ in FLAGGED}
    assert {"evaluate", "evaluate_runs", "fit", "judge", "pairs_init", "compare_runs"} <= names
    assert ("evaluate", "complete") in FLAGGED and ("pairs_init", "final_phase") in FLAGGED


def _required(f) -> tuple[list, dict]:
    args, kwargs = [], {}
    for p in inspect.signature(f).parameters.values():
        if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append("unused-input")
        elif p.default is inspect.Parameter.empty and p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = "unused-input"
    return args, kwargs


@pytest.mark.parametrize("bad", ["yes", "no", 1, 0, None, 1.0, [True]])
@pytest.mark.parametrize(("func", "flag"), FLAGGED)
def test_a_flag_that_is_not_a_bool_is_refused(func: str, flag: str, bad: object) -> None:
    f = getattr(api, func)
    args, kwargs = _required(f)
    if bad is None and "None" in str(inspect.signature(f).parameters[flag].annotation):
        pytest.skip("None is this flag's 'not given'")
    kwargs[flag] = bad
    with pytest.raises(UsageError, match=rf"^{flag}: expected True or False, got "):
        f(*args, **kwargs)


def test_numpy_bools_are_flags() -> None:
    q, r = "qrels/dl19-sample.qrels", "runs/rerank.run"
    a = api.evaluate(q, [r], ["P@5"], complete=np.bool_(True))
    b = api.evaluate(q, [r], ["P@5"], complete=True)
    assert a.equals(b)


def test_complete_false_is_honoured_not_read_as_truthy_string(tmp_path) -> None:
    """The case a newcomer hit: complete="no" was True. Now refused; False differs from True on a
    run that lacks a qrels topic (trec_eval -c averages over the qrels topics)."""
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n2 0 b 1\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 1.0 t\n")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = api.evaluate(str(qrels), [str(run)], ["P@1"], complete=True, summary=True)
        f = api.evaluate(str(qrels), [str(run)], ["P@1"], complete=False, summary=True)
    mean = lambda df: float(df[df.qid == "all"].value.iloc[0])  # noqa: E731
    assert mean(t) == 0.5 and mean(f) == 1.0
    with pytest.raises(UsageError):
        api.evaluate(str(qrels), [str(run)], ["P@1"], complete="no")
