"""Build script: metadata is in setup.cfg; this adds the optional C extensions.

``pref_eval._jsonl`` (pref_eval/_jsonl.c) speeds up reading preference files
(pref_aggregate); ``pref_eval._kernels`` (pref_eval/_kernels.c) gives zelo_fit
scipy's bits without importing scipy. Both are optional: without a C compiler
the install goes on and the pure-Python / scipy paths are used (same results).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("pref_eval._jsonl", ["pref_eval/_jsonl.c"], optional=True,
                             extra_compile_args=["-O2"]),
                   Extension("pref_eval._kernels", ["pref_eval/_kernels.c"], optional=True,
                             extra_compile_args=["-O2", "-ffp-contract=off"])])
