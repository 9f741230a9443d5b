"""Build script: metadata is in setup.cfg; this adds the optional C scanner.

``pref_eval._jsonl`` (pref_eval/_jsonl.c) speeds up reading preference files
(pref_aggregate). It is optional: without a C compiler the install goes on and
the pure-Python reader is used (same results, slower).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("pref_eval._jsonl", ["pref_eval/_jsonl.c"], optional=True,
                             extra_compile_args=["-O2"])])
