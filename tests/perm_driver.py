"""Run a list of commands in this one interpreter and write their results (tests/test_permission_faults.py).

``python tests/perm_driver.py JOBS.json RESULTS.json [UID GID]``: JOBS is a list of ``{"script", "argv",
"cwd"}``; each is run with :func:`cli_harness.run_inproc` (no new interpreter per command) and RESULTS gets
``[{"code", "stderr"}, ...]`` in the same order.

With UID and GID (started as root), the process first becomes that user for every file access (real and
effective uid and gid, no supplementary groups) and runs the commands so. Only the saved uid stays root, and
only to import modules: the interpreter and its standard library may live where the user cannot read (a
``pyenv`` under ``/root``), and a command imports some modules when first used. An import is done as root
(:class:`_RootImports`); everything else -- every file a command opens, creates, renames -- as the user.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from cli_harness import SCRIPTS, run_inproc  # noqa: E402


class _RootImports:
    """A meta-path finder that finds and loads modules with effective uid 0 (then back to the user)."""

    def __init__(self, uid: int) -> None:
        self.uid = uid

    def _root(self, fn, *args):
        os.seteuid(0)
        try:
            return fn(*args)
        finally:
            os.seteuid(self.uid)

    def find_spec(self, name, path, target=None):
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = self._root(finder.find_spec, name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _RootLoader(spec.loader, self)
                return spec
        return None


class _RootLoader:
    def __init__(self, loader, hook: _RootImports) -> None:
        self._loader = loader
        self._hook = hook

    def create_module(self, spec):
        return self._hook._root(self._loader.create_module, spec)

    def exec_module(self, module):
        return self._hook._root(self._loader.exec_module, module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


def become(uid: int, gid: int) -> None:
    import importlib

    for mod, _ in SCRIPTS.values():  # the entry points, imported as root
        importlib.import_module(mod)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, 0)
    sys.meta_path.insert(0, _RootImports(uid))


def main() -> None:
    with open(sys.argv[1]) as fh:
        jobs = json.load(fh)
    if len(sys.argv) > 3:
        become(int(sys.argv[3]), int(sys.argv[4]))
    results = []
    for job in jobs:
        res = run_inproc(job["script"], job["argv"], job["cwd"])
        results.append({"code": res.returncode, "stderr": res.stderr})
    with open(sys.argv[2], "w") as fh:
        json.dump(results, fh)


if __name__ == "__main__":
    main()
