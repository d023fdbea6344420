"""Hardening tests (issue 15 and after): buffers, fork, huge lengths, numpy, objects, threads."""
