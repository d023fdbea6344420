"""Tooling: the self-test, the benchmark harness and its report, behind
``python -m poly1305x`` and ``benchmarks/``.  The library never imports this
package (tests/packaging/test_layers.py checks it)."""
