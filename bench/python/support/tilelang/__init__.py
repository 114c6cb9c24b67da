"""Benchmark stand-in for the `tilelang` package: only `tilelang.autodd.__freeze__` exists.

AutoDD inserts `from tilelang.autodd import __freeze__` into candidates that use freeze
annotations; the real package needs heavy dependencies, so every tool's candidates and the
harness's checks run with this directory on PYTHONPATH instead.
"""
