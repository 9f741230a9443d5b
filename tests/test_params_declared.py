"""Every declared parameter of every registered measure, in both syntaxes: honoured or refused, never ignored.

In the style of scikit-learn's common tests (one check over every registered
estimator): the tests below walk ``pref_eval.measures.registry()`` and every
parameter each spec declares -- ``keywords`` (ir-measures syntax, ``P(rel=2)@5``)
and ``trec_params`` (trec_eval syntax, ``P.5,10``, ``set_F.0.5``,
``ndcg.1=3``, ``rbp.p=0.8``; pref_eval/measures/params.py) -- and check that

* a value outside the declared type or range (negative, zero where excluded,
  NaN, inf, 1e400, beyond 64 bits, text, a float for an integer, an integer for
  a float (as ir-measures refuses ``BPM(T=2)``: session 28), a bool, an empty
  value, a repeated parameter, an unknown name, the wrong case, too many or too
  few values) is refused with one ``UsageError`` line naming the
  measure and the parameter -- by ``parse_measure``, by ``pref_eval.evaluate(
  measures=...)`` before any input is read, and by ``zelo_eval -m`` /
  ``zelo_trec -m`` with exit 2 and no traceback;
* the ends of each declared range are accepted and give the value of the
  definition worked by hand (trec_eval syntax, below) or of ir-measures
  (``tests/test_irm_ranges.py`` computes the ir-measures ends live);
* every spec is visited: the set of visited specs equals the registry, so a
  new measure registers only with its parameters declared (``register``
  refuses a floats/raw/gains spec without ``trec_params``) and is walked here.

Test-only module: the fixture is ir-measures' own (tests/data/irm).
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest
from cli_harness import check_contract, run_inproc

import pref_eval
from pref_eval.errors import UsageError
from pref_eval.measures import parse_measure, registry
from pref_eval.measures.base import MeasureSpec
from pref_eval.measures.params import INT64_MAX, Param

DATA = Path(__file__).resolve().parent / "data" / "irm"
QRELS, RUN = DATA / "fixture.qrels", DATA / "fixture.run"
REG = registry()


# ------------------------------------------------------------------ ir-measures syntax
def _family(spec: MeasureSpec) -> str:
    assert spec.irm is not None
    return spec.irm.rstrip("@")


def _irm(spec: MeasureSpec, kw: dict[str, str], at: str | None = None) -> str:
    """The ir-measures name of ``spec`` with keyword texts ``kw`` (``max_rel=3`` added when the spec has
    it: cwl_eval's measures need it) and ``@at`` (default: a cutoff / recall point when the spec needs one;
    ``NO_AT``: no ``@``)."""
    kw = {**({"max_rel": "3"} if spec.keyword("max_rel") else {}), **kw}
    if at is None:
        at = ("0.5" if spec.param_kind == "floats" else "5") if spec.irm and spec.irm.endswith("@") else NO_AT
    args = f"({', '.join(f'{k}={v}' for k, v in kw.items())})" if kw else ""
    return f"{_family(spec)}{args}" + (f"@{at}" if at != NO_AT else "")


NO_AT = "no @"


def _num(x: float) -> str:
    return repr(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))


def _above(x: float) -> float:
    """A number above the closed end ``x`` (x + 0.5 is x itself for large x)."""
    return x + max(0.5, abs(x))


def irm_bad(p: Param) -> list[str]:
    """Texts of values outside ``p``'s declaration (as written in a name: ``nan`` is not a literal)."""
    out = ["nan", "inf", "-inf", "1e400", "None", "[1]", ""]
    if p.type is int:
        out += ["True", "1.5", "'1'", str(2**64), str(-(2**64))]
        out += [] if p.low is None else [_num(p.low - 1)]
        out += [] if p.high is None else [_num(p.high + 1)]
    elif p.type is float:
        out += ["True", "'0.5'", "1j", "1"]
        out += [] if p.low is None else [_num(p.low) if p.low_open else _num(p.low - 0.5)]
        out += [] if p.high is None else [_num(p.high) if p.high_open else _num(_above(p.high))]
    elif p.type is bool:
        out += ["1", "0", "'True'", "2"]
    elif p.type is str:
        out += ["'nosuch'", "1"] + [repr(c.upper()) for c in p.choices or () if c.upper() != c]
    elif p.type is dict:
        out += ["{1: 0.5}", "{-1: 1}", "{True: 1}", "{1: True}", "'x'", f"{{{2**64}: 1}}", "{1: 1e400}",
                "{1: 1, 1: 2}"]
    return out


def irm_good(p: Param) -> list[str]:
    """The ends of the declared range (closed ends), and a value inside."""
    if p.type is bool:
        return ["True", "False"]
    if p.type is str:
        return [repr(c) for c in p.choices or ()]
    if p.type is dict:
        return ["{}", "{0: 0, 1: 1, 2: 5}"]
    num = _num if p.type is int else (lambda x: repr(float(x)))  # a float written as one (ir-measures: BPM(T=2.0))
    out = []
    if p.low is not None and not p.low_open:
        out.append(num(p.low))
    if p.high is not None and not p.high_open:
        out.append(num(p.high))
    if p.type is int:
        out += [str(INT64_MAX)] if p.high is None else []
    elif p.low is not None and p.high is not None:
        out.append(num((p.low + p.high) / 2))
    return out or [num(1)]


def irm_cases(spec: MeasureSpec) -> list[tuple[str, str]]:
    """``(name, parameter the message must name)``: every bad value of every keyword, both ways of writing a
    cutoff, a repeated, an unknown and a wrong-case parameter."""
    out = []
    for p in spec.keywords:
        for v in irm_bad(p):
            if p.role == "cutoff":  # @v and cutoff=v / recall=v
                out.append((_irm(spec, {}, at=v), "@" if v in ("nan", "inf", "-inf", "", "None") else p.name))
                if v != "":
                    out.append((_irm(spec, {p.name: v}, at=NO_AT), p.name))
            elif p.name == "max_rel" and v == "":
                continue  # max_rel= with max_rel=3 added is the repeated-parameter case below
            else:
                out.append((_irm(spec, {p.name: v}), p.name))
        good = irm_good(p)[0]
        if p.role != "cutoff":
            out.append((_irm(spec, {p.name: good}).replace(f"{p.name}={good}", f"{p.name}={good}, {p.name}={good}"),
                        p.name))
        if p.name.swapcase() != p.name:
            out.append((_irm(spec, {p.name.swapcase(): good}), p.name.swapcase()))
    out.append((_irm(spec, {"foo": "1"}), "foo"))
    return out


def _refused(name: str, param: str, spec: MeasureSpec) -> str:
    with pytest.raises(UsageError) as err:
        parse_measure(name)
    msg = str(err.value)
    assert "\n" not in msg, msg
    assert param in msg and (name.strip() in msg or spec.name in msg), (name, param, msg)
    return msg


def test_every_spec_declares_its_parameters():
    for spec in REG.values():
        assert (spec.param_kind == "none") == (not spec.trec_params), spec.name
        if spec.param_kind in ("cutoffs", "floats", "raw"):
            assert len(spec.trec_params) == 1 and spec.trec_params[0].count is not None, spec.name
        if spec.param_kind == "gains":
            assert all(p.name == "gain" or p.count is None for p in spec.trec_params), spec.name
        for p in (*spec.keywords, *spec.trec_params):
            assert p.type in (int, float, bool, str, dict) and p.doc, (spec.name, p)
            assert p.type not in (bool, str, dict) or p.low is None and p.high is None, (spec.name, p)
            if p.type is float:  # a float range is finite (NaN/inf refused by the type): ends are numbers
                assert all(x is None or math.isfinite(x) for x in (p.low, p.high)), (spec.name, p)


def test_ir_measures_syntax_every_keyword_refused_outside_its_declaration():
    visited, n = set(), 0
    for spec in REG.values():
        visited.add(spec.name)
        if not spec.irm:
            continue
        base = parse_measure(_irm(spec, {}))[0]
        assert base.spec is spec, (spec.name, _irm(spec, {}))  # the names below reach this spec
        for name, param in irm_cases(spec):
            _refused(name, param, spec)
            n += 1
    assert visited == set(REG)
    assert n > 1500, n


def test_ir_measures_syntax_declared_ends_accepted():
    n = 0
    for spec in REG.values():
        for p in spec.keywords:
            for v in irm_good(p):
                name = _irm(spec, {}, at=v) if p.role == "cutoff" else _irm(spec, {p.name: v})
                if spec.validate is not None and p.name in ("min_rel", "max_rel") and v in ("0", "1"):
                    name = name.replace("max_rel=3", "max_rel=5")
                if (spec.name, p.name, v) in _EXCLUSIVE:
                    _refused(name, _EXCLUSIVE[spec.name, p.name, v], spec)
                    continue
                req = parse_measure(name)[0]
                assert req.spec is spec, name
                n += 1
    assert n > 150, n


#: ends one declaration allows that another parameter's rule excludes (each refused by the spec's ``validate``,
#: documented in docs/differences.md): RBP(p=1) needs rel=; min_rel must be below max_rel
_EXCLUSIVE = {("rbp", "p", "1.0"): "rel=", **{(s, "min_rel", str(INT64_MAX)): "min_rel"
                                               for s, spec in REG.items() if spec.keyword("min_rel")}}


# ------------------------------------------------------------------ trec_eval syntax
def trec_bad(spec: MeasureSpec, p: Param) -> list[str]:
    """Parameter texts outside the declaration ``p`` of ``spec`` (the text after ``name.``)."""
    if p.name == "gain":
        return ["1=nan", "1=inf", "1=-inf", "1=1e400", "1=", "=1", "1=abc", "1=2,1=3", "1=2,+1=3", "x=1",
                f"{2**64}=1", "1=0x10", "1=2,"]
    if spec.param_kind == "gains":  # a keyword (rbp.p)
        bad = ["nan", "inf", "1e400", "", "abc", "0.5x", "True"]
        bad += [] if p.low is None else [_num(p.low) if p.low_open else _num(p.low - 0.5)]
        bad += [] if p.high is None else [_num(p.high) if p.high_open else _num(_above(p.high))]
        return [f"{p.name}={v}" for v in bad] + [f"{p.name}=0.5,{p.name}=0.5", f"{p.name.upper()}=0.5"]
    lo, hi = p.count or (1, 1)
    good = trec_good(p)[0]
    bad = ["nan", "inf", "-inf", "1e400", "", "abc", "True", f"{good},", f",{good}", "0x10", "1_0"]
    if p.type is int:
        bad += [str(2**64), "5x", "1e2"]
    bad += [] if p.low is None else [_num(p.low - 1) if p.type is int else
                                     _num(p.low) if p.low_open else _num(p.low - 0.5)]
    bad += [] if p.high is None else [_num(p.high + 1) if p.type is int else
                                      _num(p.high) if p.high_open else _num(_above(p.high))]
    if hi is None:
        bad.append(f"{good},{good}")
    else:
        bad.append(",".join([good] * (hi + 1)))
    if lo > 1:
        bad.append(",".join([good] * (lo - 1)))
    return [b if lo == 1 or "," in b else ",".join([b] + [good] * (lo - 1)) for b in bad]


def trec_good(p: Param) -> list[str]:
    out = []
    if p.low is not None and not p.low_open:
        out.append(_num(p.low))
    if p.high is not None and not p.high_open:
        out.append(_num(p.high))
    if p.type is int and p.high is None:
        out.append(str(INT64_MAX))
    if p.type is float and p.low is not None and p.high is not None:
        out.append(_num((p.low + p.high) / 2))
    return out or ["1e300" if p.type is float else "1"]


def _trec_param_named(msg: str, spec: MeasureSpec, p: Param, text: str) -> bool:
    """The message names the parameter: its declared name, the grade or key written, or the count."""
    names = {p.name, "gain", "grade", "value", "parameter"} if spec.param_kind == "gains" else {p.name}
    return any(n in msg for n in names) or any(f"'{k}'" in msg for k in text.replace("=", ",").split(","))


def test_trec_syntax_every_parameter_refused_outside_its_declaration():
    visited, n = set(), 0
    for spec in REG.values():
        visited.add(spec.name)
        if spec.param_kind == "none":
            with pytest.raises(UsageError, match=f"measure '{spec.name}' takes no parameters"):
                parse_measure(f"{spec.name}.5")
            continue
        for p in spec.trec_params:
            for text in trec_bad(spec, p):
                name = f"{spec.name}.{text}"
                with pytest.raises(UsageError) as err:
                    parse_measure(name)
                msg = str(err.value)
                assert "\n" not in msg and spec.name in msg, (name, msg)
                assert _trec_param_named(msg, spec, p, text), (name, msg)
                n += 1
    assert visited == set(REG)
    assert n > 500, n


def test_trec_syntax_declared_ends_accepted():
    n = 0
    for spec in REG.values():
        for p in spec.trec_params:
            lo = (p.count or (1, 1))[0]
            for v in trec_good(p):
                text = f"1={v}" if p.name == "gain" else f"{p.name}={v}" if spec.param_kind == "gains" else \
                    ",".join([v] + ["0"] * (lo - 1))
                req = parse_measure(f"{spec.name}.{text}")[0]
                assert req.spec is spec and req.raw == text, text
                n += 1
    assert n >= 40, n


def _values(name: str) -> dict[str, object]:
    df = pref_eval.evaluate(QRELS, RUN, [name])
    return dict(zip(df.qid, df.value, strict=True))


def test_trec_syntax_ends_give_trec_evals_definition_by_hand():
    """The fixture (ir-measures'): query 0 ranks D0 (grade 0), D2 (1), D3 (2), D1 (1), D4 (0), R = 3;
    query 1 ranks D1, D3 (2), D2, D4 (D1, D2, D4 not in its qrels), R = 3 (D0, D3, D5)."""
    big = INT64_MAX
    df = pref_eval.evaluate(QRELS, RUN, [f"P.1,{big}"])
    got = {(q, m): v for q, m, v in zip(df.qid, df.measure, df.value, strict=True)}
    assert got[("0", "P_1")] == 0.0 and got[("1", "P_1")] == 0.0
    assert got[("0", f"P_{big}")] == 3 / big and got[("1", f"P_{big}")] == 1 / big
    # recall points 0 and 1: the best precision at recall ≥ x (query 0: 3/4 at rank 4; query 1: 1/2, never R)
    df = pref_eval.evaluate(QRELS, RUN, ["iprec_at_recall.0,1"])
    got = {(q, m): v for q, m, v in zip(df.qid, df.measure, df.value, strict=True)}
    assert got == {("0", "iprec_at_recall_0.00"): 0.75, ("0", "iprec_at_recall_1.00"): 0.75,
                   ("1", "iprec_at_recall_0.00"): 0.5, ("1", "iprec_at_recall_1.00"): 0.0}
    assert _values("11pt_avg.0,1") == {"0": 0.75, "1": 0.25}
    # x = 10⁶: c = (long)(10⁶·3 + 0.9) = 3,000,000 documents
    assert _values("Rprec_mult.1000000") == {"0": 3 / 3_000_000, "1": 1 / 3_000_000}
    assert _values("relstring.1") == {"0": "0", "1": "-"}
    assert _values("set_F.0") == _values("set_P") == {"0": 3 / 5, "1": 1 / 4}  # β = 0: set precision
    assert _values("utility.0,0,0,0") == {"0": 0.0, "1": 0.0}
    assert _values("utility.1,-1,0,0") == {"0": 3 - 2, "1": 1 - 3}
    # rbp: gains rescaled to g/2 (grades 0..2); (1 − p) Σ g_i p^(i−1)
    for p in (0.5, 1e-300, 0.999999):
        want = {"0": (1 - p) * (0.5 * p + 1.0 * p**2 + 0.5 * p**3), "1": (1 - p) * 1.0 * p}
        assert _values(f"rbp.p={p!r}") == pytest.approx(want, rel=1e-12, abs=1e-300), p
    # a gain 0 for grade 2 (ndcg.2=0): query 0 gains 0, 1, 0, 1, 0; ideal 1, 1
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    assert _values("ndcg.2=0")["0"] == pytest.approx(dcg / (1 + 1 / math.log2(3)), rel=1e-15)


# ------------------------------------------------------------------ the API (before any input is read) and the CLIs
def _one_bad_per_parameter() -> list[tuple[MeasureSpec, str, str, str]]:
    """``(spec, syntax, name, parameter)``: the first bad value of every declared parameter, both syntaxes."""
    out = []
    for spec in REG.values():
        seen = set()
        if spec.irm:
            for name, param in irm_cases(spec):
                if param not in seen:
                    seen.add(param)
                    out.append((spec, "irm", name, param))
        for p in spec.trec_params:
            out.append((spec, "trec", f"{spec.name}.{trec_bad(spec, p)[0]}", p.name))
        if spec.param_kind == "none":
            out.append((spec, "trec", f"{spec.name}.5", spec.name))
    return out


def test_api_refuses_before_reading_any_input(tmp_path):
    missing = tmp_path / "no_such_dir"
    cases = _one_bad_per_parameter()
    for spec, _, name, param in cases:
        with pytest.raises(UsageError) as err:
            pref_eval.evaluate(missing / "qrels", missing / "run", measures=[name])
        msg = str(err.value)
        assert "\n" not in msg and "no_such_dir" not in msg and (param in msg or spec.name in msg), (name, msg)
    assert {c[0].name for c in cases} == set(REG)


@pytest.mark.parametrize("script", ["zelo_eval", "zelo_trec"])
def test_commands_refuse_with_exit_2_one_line(script, tmp_path):
    (tmp_path / "q").write_bytes(QRELS.read_bytes())
    (tmp_path / "r").write_bytes(RUN.read_bytes())
    files = ["-R", "q", "r"] if script == "zelo_eval" else ["q", "r"]
    cases = _one_bad_per_parameter()
    for spec, _, name, param in cases:
        res = run_inproc(script, ["-m", name, *files], tmp_path, timeout=30)
        assert check_contract(res, script=script, expect={2}) == [], (script, name, res.stderr)
        assert res.stdout == b"" and (param in res.stderr or spec.name in res.stderr), (name, res.stderr)
    assert {c[0].name for c in cases} == set(REG)


@pytest.mark.parametrize("name", ["P.5", "rbp.p=0.5", "nDCG@10", "AP(rel=2)", "RBP(p=0.5)@10", "set_F.0",
                                  "iprec_at_recall.0,1", "Judged@9223372036854775807"])
@pytest.mark.parametrize("script", ["zelo_eval", "zelo_trec"])
def test_commands_accept_the_ends(script, name, tmp_path):
    (tmp_path / "q").write_bytes(QRELS.read_bytes())
    (tmp_path / "r").write_bytes(RUN.read_bytes())
    files = ["-R", "q", "r"] if script == "zelo_eval" else ["q", "r"]
    res = run_inproc(script, ["-m", name, *files], tmp_path, timeout=30)
    assert res.returncode == 0 and res.stdout, (script, name, res.stderr)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", ["INST(max_rel=2, T=1e300)", "INSQ(max_rel=2, T=1e300)",
                                  "NERR11(max_rel=2, T=1e300)", "BPM(max_rel=2, T=1e300)@5",
                                  "SetF(beta=1e15)", "RBP(rel=1, p=0.0)", "Compat(p=1.0)"])
def test_upper_ends_equal_ir_measures(name):
    """The top of T's range (10³⁰⁰: above it INST/INSQ overflow to NaN in cwl_eval and here alike), and other
    ends tests/test_irm_ranges.py does not reach, equal ir-measures' providers, live."""
    ir_measures = pytest.importorskip("ir_measures")
    import contextlib
    import io
    import logging

    logging.getLogger("ir_measures").setLevel(logging.ERROR)
    m = ir_measures.parse_measure(name)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        theirs = {r.query_id: float(r.value) for r in ir_measures.iter_calc(
            [m], list(ir_measures.read_trec_qrels(str(QRELS))), list(ir_measures.read_trec_run(str(RUN))))}
    ours = {r.query_id: float(r.value) for r in pref_eval.iter_calc([name], str(QRELS), str(RUN))}
    assert ours.keys() == theirs.keys() and all(math.isfinite(v) for v in ours.values())
    for q, v in theirs.items():
        assert math.isclose(ours[q], v, rel_tol=1e-9, abs_tol=5e-5), (name, q, ours[q], v)


def test_setf_large_beta_is_the_definitions_limit():
    """(x+1)PR/(xP+R) → R as x → ∞: SetF(beta=1e300) is set recall to the last bit. (ir-measures' pytrec_eval
    answers F1 from β = 10¹⁶ on, the first β Python writes with an exponent: docs/differences.md.)"""
    big = {r.query_id: r.value for r in pref_eval.iter_calc(["SetF(beta=1e300)"], str(QRELS), str(RUN))}
    assert big == {r.query_id: r.value for r in pref_eval.iter_calc(["SetR"], str(QRELS), str(RUN))} == \
        {"0": 1.0, "1": 1 / 3}


def test_ranx_rbp_persistence_that_rounds_to_1_refused():
    """ranx's ``rbp.DIGITS`` is p = 0.DIGITS: 17 nines or more are the double 1.0, (1 − p)·Σ = 0 for every
    ranking (was computed: 0 everywhere); 16 nines are still below 1."""
    with pytest.raises(UsageError, match=r"rbp\.99999999999999999999'.*persistence .* must be < 1"):
        parse_measure("rbp.99999999999999999999")
    assert parse_measure("rbp.9999999999999999")[0].params == (0.9999999999999999,)
