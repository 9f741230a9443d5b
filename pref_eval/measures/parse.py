"""Measure names → :class:`MeasureRequest`.

Two syntaxes reach the same registry entries:

* trec_eval's: ``name[.params]`` (``P.5,10``, ``ndcg_cut.10``,
  ``ndcg.1=3,2=9``, ``iprec_at_recall..10,.20``, ``set_F.0.5``,
  ``utility.2,-1,0,0``, ``rbp.p=0.8``, ``relstring.20``), the printed form
  ``P_10`` / ``ndcg_cut_10``, and the nicknames (``official``, ``all_trec``...).
* ir-measures': ``Measure(param=value, ...)@cutoff`` (``nDCG@10``,
  ``P(rel=2)@5``, ``AP``, ``R@100``, ``RR``, ``RBP(p=0.8)``, ``Judged@10``),
  parsed with Python's :mod:`ast` (literals only).

trec_eval's rules for repeated ``-m``: a nickname marks its members; the
**first** ``-m`` that gives parameters for a measure wins; a measure marked
without parameters uses its defaults (``-m P.5 -m P.10`` → ``P_5`` only,
``-m all_trec -m P.7`` → ``P_7`` only).
"""
from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from ..errors import UsageError, command_running
from .base import REGISTRY, MeasureRequest, MeasureSpec
from .irm_names import ALIASES
from .nicknames import NICKNAMES, nickname_members
from .params import CUTOFF, GAIN, INT64_MAX, INT64_MIN, NOT_GIVEN, RECALL, Param
from .ranx import NAMES as RANX_NAMES, PREFIX, parse_ranx

JUDGED_WHOLE_LIST = 2**63 - 1


def _atol(tok: str) -> int:
    """C ``atol``: leading white space, optional sign, digits; rest ignored."""
    m = re.match(r"\s*([+-]?\d+)", tok)
    return int(m.group(1)) if m else 0


_FLOAT = r"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf|nan)"


def _atof(tok: str) -> float:
    """C ``atof`` on the longest numeric prefix (``.25`` → 0.25, ``abc`` → 0)."""
    m = re.match(r"\s*(" + _FLOAT + ")", tok, re.I)
    return float(m.group(1)) if m else 0.0


def _whole_int(spec: MeasureSpec, text: str, tok: str, what: str = "cutoff") -> int:
    """A cutoff: an integer, or a decimal number truncated as C ``atol`` does (white space around it allowed).

    trec_eval reads any text with ``atol``: its own test suite relies on ``ndcg_cut.23.4`` being
    ``ndcg_cut_23`` (kept), but ``P.1e3`` is ``P_1`` and ``P.5x`` is ``P_5`` there, typos answered
    with another cutoff's number; anything but a plain decimal number is refused here.
    """
    if not re.fullmatch(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)\s*", tok):
        raise UsageError(f"measure '{spec.name}.{text}': {what} {tok!r} is not an integer "
                         f"(trec_eval would silently read {_atol(tok)})")
    return _atol(tok)


def _whole_float(spec: MeasureSpec, text: str, tok: str, what: str = "parameter") -> float:
    """A number written whole (C ``atof`` would read ``0.5x`` as 0.5 and ``x`` as 0: refused)."""
    if not re.fullmatch(r"\s*" + _FLOAT + r"\s*", tok, re.I):
        raise UsageError(f"measure '{spec.name}.{text}': {what} {tok!r} is not a number "
                         f"(trec_eval would silently read {_atof(tok):g})")
    return float(tok)


def _trec_value(spec: MeasureSpec, text: str, p: Param, tok: str) -> float:
    """One value of a trec_eval parameter list, read as written and checked against its declaration ``p``."""
    v: float = _whole_int(spec, text, tok, p.name) if p.type is int else _whole_float(spec, text, tok, p.name)
    return p.check(f"{spec.name}.{text}", v)


def _gain_pair(spec: MeasureSpec, text: str, part: str) -> tuple[str, float]:
    """One ``name=value`` of a gain measure: an integer grade (when the spec declares :data:`GAIN`) or a
    keyword it declares (``rbp.p``), and a number checked against the declaration.

    trec_eval skips a pair whose name is neither (``gain_init.c``: ``if (!valid_int(name)) continue``), so
    ``rbp.P=0.5`` silently keeps p = 0.9 and ``ndcg.foo=3`` is plain ndcg; refused here.
    """
    if "=" not in part:
        raise UsageError(f"measure '{spec.name}.{text}': malformed pair parameter {part!r} (expected "
                         "grade=gain or name=value, ...)")
    k, v = part.split("=", 1)
    keywords = {p.name: p for p in spec.trec_params if p.name != GAIN.name}
    grades = spec.keyword_gain() is not None
    if k not in keywords and not (grades and re.fullmatch(r"[+-]?\d+", k)):
        takes = ("integer grades (grade=gain)" if grades else "") + \
            (" and " if grades and keywords else "") + " or ".join(f"{w}=" for w in keywords)
        raise UsageError(f"measure '{spec.name}.{text}': unknown parameter {k!r} ({spec.name} takes {takes}; "
                         "trec_eval would silently ignore it)")
    _whole_float(spec, text, v, f"parameter {k}" if k in keywords else f"gain of grade {k}")
    if k in keywords:
        return k, keywords[k].check(f"{spec.name}.{text}", _atof(v))
    if not INT64_MIN <= int(k) <= INT64_MAX:
        raise UsageError(f"measure '{spec.name}.{text}': grade {k} is beyond 64 bits (grades are int64)")
    return k, GAIN.check(f"{spec.name}.{text}", _atof(v))


def _check_count(spec: MeasureSpec, text: str, p: Param, values: list) -> None:
    """The number of values against ``p.count``; a list of any length must not repeat a value."""
    lo, hi = p.count or (1, 1)
    if not lo <= len(values) <= (hi if hi is not None else len(values)):
        raise UsageError(f"measure '{spec.name}.{text}': parameter {p.describe()} got {len(values)} values")
    if hi is None and len(set(values)) != len(values):
        twice = next(v for i, v in enumerate(values) if v in values[:i])
        raise UsageError(f"measure '{spec.name}.{text}': parameter {p.name} {twice:g} given more than once "
                         f"(duplicate cutoffs detected)")


def parse_params(spec: MeasureSpec, text: str) -> tuple:
    """Parse trec_eval parameter text for ``spec`` (raises UsageError)."""
    kind = spec.param_kind
    if text == "":  # trec_eval's message, and what is missing
        what = "grade=gain" if spec.keyword_gain() is not None else spec.trec_params[0].name if spec.trec_params \
            else None
        raise UsageError(f"improper measure in parameter '{spec.name}' (empty parameter list: " +
                         (f"parameter {what} has no value; write {spec.name} for its defaults)" if what else
                          f"{spec.name} takes no parameters)"))
    if kind == "none":
        raise UsageError(f"measure {spec.name!r} takes no parameters (got {text!r})")
    parts = text.split(",")
    if kind in ("cutoffs", "floats", "raw"):
        decl = spec.trec_params[0]
        vals = [_trec_value(spec, text, decl, p) for p in parts]
        _check_count(spec, text, decl, vals)
        return tuple(sorted(vals)) if kind != "raw" else tuple(vals)
    if kind == "gains":
        pairs = [_gain_pair(spec, text, p) for p in parts]
        keywords = {q.name for q in spec.trec_params} - {GAIN.name}
        names = [k if k in keywords else int(k) for k, _ in pairs]
        twice = next((k for i, k in enumerate(names) if k in names[:i]), None)
        if twice is not None:
            what = (f"grade {twice} given more than once (trec_eval would keep its first gain)"
                    if isinstance(twice, int) else
                    f"parameter {twice} given more than once (trec_eval would keep the last)")
            raise UsageError(f"measure '{spec.name}.{text}': {what}")
        return tuple(pairs)
    raise UsageError(f"unknown parameter kind {kind}")  # pragma: no cover


def _all_names() -> list[str]:
    names = set(REGISTRY) | set(NICKNAMES)
    names |= {s.irm.rstrip("@") for s in REGISTRY.values() if s.irm} | set(ALIASES)
    names |= set(RANX_NAMES) | {PREFIX + n for n in RANX_NAMES}
    return sorted(names)


#: BEIR's own measures (``EvaluateRetrieval.evaluate_custom``; Thakur et al., NeurIPS 2021 Datasets and
#: Benchmarks) and PyTerrier's ``mrt``, by their lower-case name before ``@``: what to write here, or why
#: nothing is (docs/api.md, "Coming from pytrec_eval and BEIR", "Coming from PyTerrier").
BEIR_NAMES = {
    "r_cap": "BEIR's capped recall (relevant in the top k / min(R, k)) is not a measure here",
    "recall_cap": "BEIR's capped recall (relevant in the top k / min(R, k)) is not a measure here",
    "hole": "BEIR's Hole@k (share of the top k judged in no topic) is not a measure here; "
            "the nearest is 1 - Judged@k (judged in the topic's own qrels)",
    "top_k_accuracy": "BEIR's top-k accuracy is Success@k here (with complete=True for BEIR's mean)",
    "top_k_acc": "BEIR's top-k accuracy is Success@k here (with complete=True for BEIR's mean)",
    "mrr_cut": "write RR@k (BEIR's MRR@k, with complete=True for BEIR's mean) or recip_rank_cut.k",
    # PyTerrier's pt.Experiment(eval_metrics=[..., "mrt"]): not BEIR's, but the same kind of answer
    "mrt": "PyTerrier's mean response time (pt.Experiment times the pipelines it runs) is no measure of a run's "
           "ranking; time the retrieval where it runs",
}


def _irm_case(base: str) -> str | None:
    """The ir-measures family (or alias) that ``base`` (before ``@``; ``err``, ``p(rel=2)``) spells in another letter
    case, with its parameters (``ERR``, ``P(rel=2)``); None when it spells none, or one exactly."""
    head = base.split("(", 1)[0]
    families = {s.irm.rstrip("@") for s in REGISTRY.values() if s.irm} | set(ALIASES)
    found = sorted(f for f in families if f.lower() == head.lower() and f != head)
    return found[0] + base[len(head):] if found and head not in families else None


def unknown_measure(name: str) -> UsageError:
    import difflib  # only for the error message

    base, at, k = name.partition("@")
    if base.lower() in BEIR_NAMES:
        return UsageError(f"unknown measure {name!r}: {BEIR_NAMES[base.lower()]}")
    from .ntcir_names import ntcir_hint  # only for the error message

    ntcir = ntcir_hint(base, at, k)
    if ntcir is not None:
        return UsageError(f"unknown measure {name!r}: {ntcir}")
    spec = REGISTRY.get(base)
    cased = _irm_case(base) if at else None  # 'err@10', 'judged@10': an ir-measures name in another case
    if at and spec is not None and spec.param_kind == "cutoffs" and k.isdigit():
        # pytrec_eval's request name with ir-measures' @: trec_eval writes the cutoff after a dot
        return UsageError(f"unknown measure {name!r}; " + (f"ir-measures' name is {cased}@{k}; " if cased else "")
                          + f"trec_eval's names take the cutoff after a dot: {base}.{k} (printed {base}_{k})")
    if cased:
        return UsageError(f"unknown measure {name!r}; names are case-sensitive: ir-measures' is {cased}@{k}")
    if re.fullmatch(r"(zndcg|zacc|zrecall)(@\d+(,\d+)?)?", name):  # pattern of pref_eval.zelo.eval_scores
        qrels = "-R (the API's qrels)" if command_running() else "the qrels"
        return UsageError(f"measure {name!r} is computed against a zELO score file: {qrels} must be zelo_fit's "
                          "scores TSV or zbench's JSON lines, not TREC qrels (docs/zelo_eval.md)")
    several = re.fullmatch(r"(.+\))@(\d+(?:,\d+)+)", name)  # 'P(rel=2)@5,10': the parameters on each name
    if several:
        fixed = " ".join(f"{several.group(1)}@{c}" for c in several.group(2).split(","))
        return UsageError(f"unknown measure {name!r}: an ir-measures or ranx name takes one cutoff and names are "
                          f"separated by spaces (or given as a list): {fixed!r}")
    if at and "," in name and "(" not in name:  # 'P@5,10' / 'nDCG@10,P@5': one name per cutoff, spaces between
        parts = [p for p in name.split(",") if p]
        fixed = " ".join([parts[0], *(f"{base}@{p}" if p.isdigit() else p for p in parts[1:])])
        return UsageError(f"unknown measure {name!r}: an ir-measures or ranx name takes one cutoff and names are "
                          f"separated by spaces (or given as a list): {fixed!r}")
    if len(name) > 200:  # data where a name goes (a run's str): one short line, no similarity search
        return UsageError(f"unknown measure {name[:100]!r}... ({len(name)} characters, not a measure name); "
                          "see 'zelo_eval --list-measures'")
    close = difflib.get_close_matches(name, _all_names(), n=5, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else "; see 'zelo_eval --list-measures'"
    return UsageError(f"unknown measure {name!r}{hint}")


def _load_registry() -> None:
    from . import families  # noqa: F401  (registers every measure family)


#: The family module that registers each measure of trec_eval's table (start-up, issue #13): a
#: request naming only these measures and nicknames of them imports only their families; any
#: other name (ir-measures syntax, printed forms like ``P_10``, unknown names) loads every family.
#: tests/test_measures_registry.py checks it against the filled registry.
TREC_FAMILIES = {"runid": "counts", "num_q": "counts", "num_ret": "counts", "num_rel": "counts",
    "num_rel_ret": "counts", "map": "ap", "gm_map": "ap", "Rprec": "precision", "bpref": "bpref",
    "recip_rank": "rr", "iprec_at_recall": "iprec", "P": "precision", "relstring": "relstring",
    "recall": "recall", "infAP": "infap", "gm_bpref": "bpref", "Rprec_mult": "precision",
    "utility": "setmeasures", "11pt_avg": "iprec", "binG": "ndcg", "G": "ndcg", "dcg": "ndcg",
    "ideal_dcg": "ndcg", "ndcg": "ndcg", "ndcg_rel": "ndcg", "Rndcg": "ndcg", "ndcg_cut": "ndcg",
    "map_cut": "ap", "relative_P": "precision", "success": "precision", "set_P": "setmeasures",
    "set_relative_P": "setmeasures", "set_recall": "setmeasures", "set_map": "setmeasures",
    "set_F": "setmeasures", "num_nonrel_judged_ret": "counts", "prefs_num_prefs_poss": "prefs",
    "prefs_num_prefs_ful": "prefs", "prefs_num_prefs_ful_ret": "prefs", "prefs_simp": "prefs",
    "prefs_pair": "prefs", "prefs_avgjg": "prefs", "prefs_avgjg_Rnonrel": "prefs", "prefs_simp_ret": "prefs",
    "prefs_pair_ret": "prefs", "prefs_avgjg_ret": "prefs", "prefs_avgjg_Rnonrel_ret": "prefs",
    "prefs_simp_imp": "prefs", "prefs_pair_imp": "prefs", "prefs_avgjg_imp": "prefs", "map_avgjg": "jg",
    "P_avgjg": "jg", "Rprec_mult_avgjg": "jg", "yaap": "ap", "rbp": "rbp", "rbp_resid": "rbp", "unj": "unjudged"}


def _load_families_for(args: Iterable[str]) -> None:
    """Import the measure families that ``args`` (``-m`` values) need; every family if unsure."""
    import importlib

    needed = set()
    for arg in args:
        name, dot, _ = arg.strip().partition(".")
        for member in NICKNAMES[name] if name in NICKNAMES and not dot else (name,):
            family = TREC_FAMILIES.get(member)
            if family is None:
                _load_registry()
                return
            needed.add(family)
    for family in sorted(needed):
        importlib.import_module(f".{family}", __package__)


def _printed_form(name: str) -> tuple[MeasureSpec, str] | None:
    """``P_10`` / ``ndcg_cut_10`` / ``iprec_at_recall_0.10`` / ``set_F_0.5`` (as printed) → (spec, param text)."""
    for i in range(len(name) - 1, 0, -1):
        if name[i] == "_" and name[:i] in REGISTRY:
            spec = REGISTRY[name[:i]]
            if spec.param_kind in ("cutoffs", "floats", "raw") and re.fullmatch(r"[0-9.,+-]+", name[i + 1:]):
                return spec, name[i + 1:]
    return None


def parse_trec_measures(args: Iterable[str], trec9: bool = False) -> list[MeasureRequest]:
    """trec_eval ``-m`` semantics over the list ``args`` (see module doc).

    Returns the requests in trec_eval's print order. ``trec9``: nicknames
    expand as in trec_eval 9.x (``all_trec`` without unj, rbp, rbp_resid).
    """
    args = list(args)
    _load_families_for(args)
    marked: dict[str, None] = {}
    given: dict[str, tuple[tuple, str]] = {}
    irm_reqs: dict[str, MeasureRequest] = {}  # ir-measures names keep their rel= and label
    for arg in args:
        name, dot, ptext = arg.partition(".")
        if name in NICKNAMES and not dot:
            for member in nickname_members(name, trec9):
                if member in REGISTRY:
                    marked[member] = None
            continue
        spec = REGISTRY.get(name)
        if spec is None:
            pf = _printed_form(arg) if not dot else None
            if pf is None:
                pf2 = parse_ranx(arg) or _parse_irm_or_none(arg)
                if pf2 is not None:
                    irm_reqs.setdefault(pf2.label or arg, pf2)
                    continue
                raise unknown_measure(arg)
            spec, ptext = pf
            dot = "."
        marked[spec.name] = None
        if dot and spec.name not in given:
            given[spec.name] = (parse_params(spec, ptext), ptext)
        elif dot and ptext == "":
            # trec_eval checks every -m for an empty list ("improper measure in parameter"), also after
            # an earlier -m gave the parameters that win
            parse_params(spec, ptext)
    out = []
    for name in marked:
        spec = REGISTRY[name]
        if name in given:
            params, raw = given[name]
            out.append(MeasureRequest(spec, params, raw))
        else:
            out.append(MeasureRequest(spec, tuple(spec.defaults), None))
    out.extend(irm_reqs.values())
    out.sort(key=lambda r: r.spec.order)
    return out


# ---------------------------------------------------------------- ir-measures
def _literal(node: ast.AST, text: str, name: str):
    try:
        value = ast.literal_eval(node)
    except ValueError:
        what = ast.unparse(node)
        hint = " (write a number: nan and inf are not values)" if what.lstrip("+-") in ("nan", "inf") else ""
        if name == "@" and "(" in what:  # nDCG@10(judged_only=True): the parameters go before the @
            k, paren = what.split("(", 1)
            hint = f" (parameters go before the cutoff: {text[:text.index('@')] + '(' + paren + '@' + k!r})"
        raise UsageError(f"measure {text!r}: parameter {name} got {what!r}: values must be literals{hint}") from None
    for d in (n for n in ast.walk(node) if isinstance(n, ast.Dict)):
        # Python keeps the last of equal keys ({1: 1, 1: 5} is {1: 5}; True == 1): a value dropped unseen
        keys = [ast.literal_eval(k) for k in d.keys if k is not None]
        twice = next((k for i, k in enumerate(keys) if k in keys[:i]), None)
        if twice is not None or len(set(keys)) < len(keys):
            raise UsageError(f"measure {text!r}: grade {twice!r} given more than once in a dict")
    return value


def _empty_value(text: str) -> None:
    """``P(rel=)@5`` / ``nDCG@``: an ir-measures name with a parameter left without its value → UsageError
    naming it (any other text that is not Python stays an unknown measure)."""
    head = re.match(r"\s*(\w+)", text)
    if head is None:
        return
    _load_registry()
    families = {s.irm.rstrip("@") for s in REGISTRY.values() if s.irm} | set(ALIASES)
    if head.group(1) not in families:
        return
    empty = re.fullmatch(r"\s*\w+\s*\(.*?\b(\w+)\s*=\s*[,)].*", text)
    if empty:
        raise UsageError(f"measure {text.strip()!r}: parameter {empty.group(1)} has no value")
    if re.fullmatch(r"\s*\w+\s*(\(.*\))?\s*@\s*", text):
        raise UsageError(f"measure {text.strip()!r}: parameter @ has no value (e.g. @10)")


def _irm_tree(text: str):
    """``(name, kwargs, at)`` of an ir-measures expression, None if it is not one."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        _empty_value(text)
        return None
    at = None
    if isinstance(tree, ast.BinOp) and isinstance(tree.op, ast.MatMult):
        at = _literal(tree.right, text, "@")
        if at is None:  # AP@None would be AP (no cutoff): a value ignored
            raise UsageError(f"measure {text!r}: parameter @ got None (write a value, e.g. @10, or leave out @)")
        tree = tree.left
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name):
        if tree.args:
            raise UsageError(f"measure {text!r}: use keyword parameters, e.g. AP(rel=2)")
        names = [k.arg for k in tree.keywords]
        twice = sorted({k for k in names if names.count(k) > 1 or k is None}, key=str)
        if twice:
            raise UsageError(f"measure {text!r}: parameter {twice[0]!r} given more than once" if twice[0] else
                             f"measure {text!r}: use keyword parameters, e.g. AP(rel=2)")
        return tree.func.id, {k.arg: _literal(k.value, text, str(k.arg)) for k in tree.keywords}, at
    if isinstance(tree, ast.Name):
        return tree.id, {}, at
    return None


def _irm_spec(text: str, family: str, kw: dict, at):
    """The spec an ir-measures family reaches with or without a cutoff → (spec, at, whole_list)."""
    spec_at = next((s for s in REGISTRY.values() if s.irm == family + "@"), None)
    spec_bare = next((s for s in REGISTRY.values() if s.irm == family), None)
    if spec_at is None and spec_bare is None:
        return None
    for key in ("cutoff", "recall"):
        if key in kw and spec_at is not None and (spec_at.keyword(key) or Param(key, int)).role == "cutoff":
            v = kw.pop(key)
            checked = _at_param(spec_at).check(text, v)
            if at is not None:
                _refuse_two_cutoffs(text, key, checked, _at_param(spec_at).check(text, at))
            at = v if at is None else at
    if at is not None:
        if spec_at is not None:
            return spec_at, at, False
        bare_cut = spec_bare.keyword("cutoff") if spec_bare is not None else None
        if bare_cut is not None:
            if "cutoff" in kw:
                _refuse_two_cutoffs(text, "cutoff", bare_cut.check(text, kw["cutoff"]), bare_cut.check(text, at))
            kw["cutoff"] = at
            return spec_bare, None, False
        raise UsageError(f"measure {text!r}: {family} takes no cutoff (@k)")
    if spec_bare is not None:
        return spec_bare, None, False
    if spec_at is not None and spec_at.name == "judged":
        return spec_at, None, True  # ir-measures' Judged without @k: the whole list
    raise UsageError(f"measure {text!r}: {family} needs a cutoff, e.g. {family}@10")


def _refuse_two_cutoffs(text: str, key: str, given: object, at: object) -> None:
    """``nDCG(cutoff=5)@10``: two different cut-offs in one name. ir-measures keeps ``@10`` and drops ``cutoff=5``
    silently; here a parameter is honoured or refused (the same value twice is one cut-off)."""
    if given != at:
        raise UsageError(f"measure {text!r}: two cutoffs, {key}={given} and @{at}: give one "
                         f"(ir-measures would use @{at} and ignore {key}={given})")


def _at_param(spec: MeasureSpec) -> Param:
    """The parameter ``@`` sets for ``spec``: its declared cutoff keyword, else a cutoff or a recall point."""
    return next((q for q in spec.keywords if q.role == "cutoff"), CUTOFF if spec.param_kind == "cutoffs" else RECALL)


def _irm_options(text: str, family: str, spec: MeasureSpec, kw: dict) -> tuple[int | None, dict]:
    """Check every keyword against the spec's declarations → (level, options with defaults filled)."""
    level = None
    options: dict = {}
    for k, v in kw.items():
        p = spec.keyword(k)
        if p is None or p.role == "cutoff":
            ok = ", ".join(q.name for q in spec.keywords if q.role != "cutoff") or "none"
            raise UsageError(f"measure {text!r}: {family} does not support parameter {k!r} (supported: {ok})")
        v = p.check(text, v)
        if p.role == "level":
            level = int(v)
        else:
            options[k] = v
    for p in spec.keywords:
        if p.role == "compute" and p.name not in options and p.default is not NOT_GIVEN:
            options[p.name] = p.default
    if spec.validate is not None:
        spec.validate(text, options)
    return level, options


def _parse_irm_or_none(text: str) -> MeasureRequest | None:
    """ir-measures syntax → request; None if ``text`` is not a known ir-measures name.

    Aliases (:mod:`.irm_names`) are resolved first; ``cutoff=k`` is ``@k``
    and ``recall=x`` is ``@x`` (both written: the same value, else refused --
    ir-measures keeps ``@`` silently). Every keyword must be declared by the spec
    (:mod:`.params`) and pass its check.
    """
    parsed = _irm_tree(text)
    if parsed is None:
        return None
    name, kwargs, at = parsed
    _load_registry()
    family, preset = ALIASES.get(name, (name, {}))
    kw = {**preset, **kwargs}
    found = _irm_spec(text, family, kw, at)
    if found is None:
        return None
    spec, at, whole_list = found
    level, options = _irm_options(text, family, spec, kw)
    params: tuple = (JUDGED_WHOLE_LIST,) if whole_list else tuple(spec.defaults)
    if at is not None:
        v = _at_param(spec).check(text, at)
        params = (int(v),) if spec.param_kind == "cutoffs" else (float(v),)
    return MeasureRequest(spec, params, None, level=level, label=text.strip(),
                          options=tuple(sorted(options.items())))


def parse_measure(text: str) -> list[MeasureRequest]:
    """One measure name in either syntax (or a nickname) → requests."""
    _load_families_for([text])
    text = text.strip()
    name, dot, ptext = text.partition(".")
    if text.startswith(PREFIX) or (name == "rbp" and re.fullmatch(r"\d+(-l.*)?", ptext)):
        ranx = parse_ranx(text)  # ranx's names: ranx:NAME, rbp.95 (never a trec_eval parameter list)
        if ranx is not None:
            return [ranx]
    if not dot and name in NICKNAMES:
        return parse_trec_measures([name])
    if name in REGISTRY:
        spec = REGISTRY[name]
        if dot:
            return [MeasureRequest(spec, parse_params(spec, ptext), ptext)]
        return [MeasureRequest(spec, tuple(spec.defaults), None)]
    pf = _printed_form(text)
    if pf is not None:
        spec, ptext = pf
        return [MeasureRequest(spec, parse_params(spec, ptext), ptext)]
    req = parse_ranx(text) or _parse_irm_or_none(text)
    if req is None:
        raise unknown_measure(text)
    return [req]


def parse_measures(texts: Iterable[str]) -> list[MeasureRequest]:
    """Several names (each may be space separated, as ir-measures' CLI), merged by :func:`merge_requests`.

    This is the rule of the API and ``zelo_eval`` for repeated measures
    (``zelo_trec`` keeps trec_eval's, :func:`parse_trec_measures`).
    """
    out: list[MeasureRequest] = []
    for t in texts:
        for piece in split_names(t):
            out.extend(parse_measure(piece))
    return merge_requests(out)


def merge_requests(reqs: list[MeasureRequest]) -> list[MeasureRequest]:
    """The union of the requested columns, each once.

    Requests of one measure written in trec_eval syntax with cutoffs or
    recall points merge into one request with the sorted union of their
    values (``-m ndcg_cut -m ndcg_cut.1,4`` → ``ndcg_cut_1, ndcg_cut_4,
    ndcg_cut_5 … ndcg_cut_1000``; ``-m P.5 -m P.5,10`` → ``P_5, P_10``);
    any other request repeated identically (same name, same parameters) is
    kept once. The first occurrence keeps its place.
    """
    out: list[MeasureRequest] = []
    merged: dict[tuple, int] = {}
    seen: set = set()
    for r in reqs:
        if r.label is None and r.spec.param_kind in ("cutoffs", "floats") and not r.options:
            key = ("union", r.spec.name, r.level)
            if key in merged:
                i = merged[key]
                vals = tuple(sorted(set(out[i].params) | set(r.params)))
                out[i] = MeasureRequest(r.spec, vals, None, level=r.level)
                continue
            merged[key] = len(out)
            out.append(MeasureRequest(r.spec, tuple(sorted(set(r.params))), None, level=r.level))
            continue
        full_key = (r.spec.name, r.params, r.raw, r.level, r.label, r.options)
        if full_key in seen:
            continue
        seen.add(full_key)
        out.append(r)
    return out


def split_names(text: str) -> list[str]:
    """Names separated by white space outside brackets: ``"RBP(p=0.8, rel=1) nDCG@10"`` is two names.

    White space beside an ``@`` does not separate: ``"nDCG @ 10"`` and ``"AP(rel=2) @100"`` are one name each, as
    ir-measures (which parses a name as a Python expression) reads them; no name starts or ends with ``@``."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch.isspace() and depth == 0:
            if cur:
                parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        parts.append(cur)
    joined: list[str] = []
    for part in parts:
        if joined and (part.startswith("@") or joined[-1].endswith("@")):
            joined[-1] += part
        else:
            joined.append(part)
    return joined
