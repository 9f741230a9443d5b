"""Public functions of ``pref_eval/`` without full type hints.

Usage: python tools/missing_hints.py [--count] [PACKAGE_DIR]

Walks every ``.py`` file under PACKAGE_DIR (default: this checkout's ``pref_eval/``) with :mod:`ast` (nothing is
imported) and lists, one per line as ``path:line: name: missing ...``, each

* public module-level function (name without a leading underscore; also inside a module-level ``if``/``try``/
  ``with`` block, e.g. ``if TYPE_CHECKING:``),
* public method (no leading underscore) of a public class (a module-level class, or a public class nested in
  one),

whose parameters (positional-only, positional, ``*args``, keyword-only, ``**kwargs``; not the first ``self``/
``cls`` of a method that is no ``staticmethod``) or return lack an annotation. Nested functions (closures) are
not public and are skipped. ``--count``: print only the number. Exit status 0 when nothing is missing, else 1.
The test ``tests/test_missing_hints.py`` holds the count at 0.
"""
from __future__ import annotations

import ast
import os
import sys
from collections.abc import Iterator

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _public(name: str) -> bool:
    return not name.startswith("_")


def _decorator_names(fn: FunctionNode) -> set[str]:
    out = set()
    for d in fn.decorator_list:
        while isinstance(d, ast.Call):
            d = d.func
        if isinstance(d, ast.Attribute):
            out.add(d.attr)
        elif isinstance(d, ast.Name):
            out.add(d.id)
    return out


def missing(fn: FunctionNode, method: bool) -> list[str]:
    """The names of ``fn``'s parameters without an annotation, and ``return`` when it has none."""
    a = fn.args
    params = [*a.posonlyargs, *a.args]
    if method and params and "staticmethod" not in _decorator_names(fn):
        params = params[1:]  # self / cls
    params += a.kwonlyargs
    out = [p.arg for p in params if p.annotation is None]
    out += [f"*{v.arg}" for v in (a.vararg,) if v is not None and v.annotation is None]
    out += [f"**{v.arg}" for v in (a.kwarg,) if v is not None and v.annotation is None]
    if fn.returns is None:
        out.append("return")
    return out


def _body(nodes: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a module or class body, with those of its ``if``/``try``/``with`` blocks."""
    for node in nodes:
        yield node
        if isinstance(node, ast.If):
            yield from _body(node.body)
            yield from _body(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _body(block)
        elif isinstance(node, ast.With):
            yield from _body(node.body)


def _class(cls: ast.ClassDef, prefix: str) -> Iterator[tuple[FunctionNode, str, bool]]:
    for node in _body(cls.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(node.name):
            yield node, f"{prefix}{cls.name}.{node.name}", True
        elif isinstance(node, ast.ClassDef) and _public(node.name):
            yield from _class(node, f"{prefix}{cls.name}.")


def public_functions(tree: ast.Module) -> Iterator[tuple[FunctionNode, str, bool]]:
    """(node, qualified name, is a method) of every public function and method of a module."""
    for node in _body(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _public(node.name):
            yield node, node.name, False
        elif isinstance(node, ast.ClassDef) and _public(node.name):
            yield from _class(node, "")


def findings(package: str) -> list[str]:
    """``path:line: name: missing a, b, return`` for every public function lacking a hint, in path order."""
    out = []
    base = os.path.dirname(os.path.abspath(package))
    for dirpath, dirnames, filenames in os.walk(package):
        dirnames.sort()
        for f in sorted(filenames):
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8") as fh:
                tree = ast.parse(fh.read(), path)
            rel = os.path.relpath(path, base)
            for fn, name, method in public_functions(tree):
                lack = missing(fn, method)
                if lack:
                    out.append(f"{rel}:{fn.lineno}: {name}: missing {', '.join(lack)}")
    return out


def main(argv: list[str]) -> int:
    count = "--count" in argv
    rest = [a for a in argv if a != "--count"]
    package = rest[0] if rest else os.path.join(ROOT, "pref_eval")
    found = findings(package)
    if count:
        print(len(found))
    else:
        print("\n".join(found + [f"{len(found)} public function(s) without full type hints"]))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
