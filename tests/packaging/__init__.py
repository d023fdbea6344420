"""Packaging tests: public names, wheel and sdist contents, the layers of the tree;
the typing example and the stubtest allowlist (nox -s stubtest)."""
