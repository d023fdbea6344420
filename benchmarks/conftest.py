"""Shared helpers of the benchmark suite (pytest-benchmark).

Not collected by a plain ``pytest`` run (pyproject's testpaths is ``tests``);
run it with ``python -m pytest benchmarks/``.  What each operation calls is
defined once, in ``poly1305x._bench.CASES``, and shared with
``python -m poly1305x bench``.
"""
import time

import pytest

import poly1305x
from poly1305x import _bench

# Every case runs through benchmark.pedantic with its own calibration: calls
# are batched so that one round lasts about ROUND_TIME (a sub-microsecond call
# timed alone would mostly measure the timer), and the number of rounds is set
# so that a case takes about CASE_TIME, never fewer than MIN_ROUNDS rounds.
# This keeps the whole suite at a couple of minutes, 1 MiB cases included.
ROUND_TIME = 200e-6
CASE_TIME = 0.4
MIN_ROUNDS = 15
MAX_ROUNDS = 1000


def calibrate(fn):
    """(iterations per round, rounds) for a callable."""
    def batch(n):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        return time.perf_counter() - t0

    fn()
    n = 1
    while batch(n) < 1e-3 and n < 1 << 20:
        n *= 4
    # The fastest of a few batches: one preempted batch must not set the plan.
    per_call = min(batch(n) for _ in range(3)) / n
    iterations = max(1, int(ROUND_TIME / per_call))
    rounds = int(CASE_TIME / (per_call * iterations))
    return iterations, max(MIN_ROUNDS, min(MAX_ROUNDS, rounds))


def params(operations, per_backend=()):
    """pytest params (case, backend, size) for the given operations: poly1305x
    on every usable backend for operations in ``per_backend`` (on the default
    backend otherwise), each peer once.  Emulated backends are never measured."""
    out = []
    default = poly1305x.backend()
    for case in _bench.cases(operations):
        for size in case.sizes:
            if case.library == "poly1305x":
                bks = poly1305x.backends() if case.operation in per_backend else [default]
            else:
                bks = [None]
            for b in bks:
                ident = f"{case.operation}-{case.ident}{'-' + b if b else ''}-{_bench.size_label(size)}"
                out.append(pytest.param(case, b, size, id=ident))
    return out


def run_case(benchmark, case, backend, size):
    """Measure one case, filed under the group "<operation>-<size>"."""
    for lib in (case.library, *case.needs):
        if not _bench.available(lib):
            pytest.skip(f"{lib} is not importable")
    benchmark.group = _bench.group_name(case.operation, size)
    benchmark.extra_info.update({
        "library": case.library,
        "version": _bench.library_version(case.library),
        "operation": case.operation,
        "size": size,
        "backend": backend,
        "variant": case.variant,
    })
    with _bench.using_backend(backend):
        fn = case.make(size)
        benchmark.extra_info["messages"] = getattr(fn, "messages", 1)   # per call (batch rows)
        iterations, rounds = calibrate(fn)
        benchmark.extra_info["iterations"] = iterations
        benchmark.pedantic(fn, rounds=rounds, iterations=iterations, warmup_rounds=1)


def pytest_benchmark_update_json(config, benchmarks, output_json):
    # CPU model, library versions, backends and date, for report.py's plot.
    output_json["poly1305x_environment"] = _bench.environment()


def pytest_report_header(config):
    env = _bench.environment()
    return (f"poly1305x backends: {', '.join(env['backends'])} (default "
            f"{env['default_backend']}); peers: "
            + ", ".join(f"{k} {v}" for k, v in env["versions"].items() if k != "poly1305x" and v))
