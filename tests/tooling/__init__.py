"""Tests of the tooling and the documentation: python -m poly1305x, plot, the first
hour, every documented example."""
