"""Hardening tests: buffers, fork, huge lengths, numpy, objects, threads."""
