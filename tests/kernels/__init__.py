"""Tests of the kernels through the dispatcher: every backend, one message or many lanes."""
