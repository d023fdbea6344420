"""Benchmarks (pytest-benchmark): python -m pytest benchmarks/ from the root of the
tree; a package so that pytest's importlib mode (pyproject.toml) finds
benchmarks.conftest and tests.support."""
