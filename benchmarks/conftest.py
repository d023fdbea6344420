"""Shared helpers of the benchmark suite (pytest-benchmark).

Not collected by a plain ``pytest`` run (pyproject's testpaths is ``tests``);
run it with ``python -m pytest benchmarks/``.  What each operation calls,
which (case, backend, size) triples there are, and how a call is timed are
defined once, in ``poly1305x._tools._bench`` (``CASES``, ``plan``,
``calibrate``), and shared with ``python -m poly1305x bench``.
"""
import pytest

from poly1305x._tools import _bench

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
    """(iterations per round, rounds) for a callable: the command line's
    calibration (``_bench.calibrate``), with rounds of ROUND_TIME."""
    iterations, per_call = _bench.calibrate(fn, min_time=ROUND_TIME)
    rounds = int(CASE_TIME / (per_call * iterations))
    return iterations, max(MIN_ROUNDS, min(MAX_ROUNDS, rounds))


def params(operations, per_backend=()):
    """pytest params (case, backend, size) for the given operations, as
    ``python -m poly1305x bench`` plans them (``_bench.plan``): poly1305x on
    every usable backend for operations in ``per_backend`` (on the default
    backend otherwise), each importable peer once.  Emulated backends are
    never measured."""
    return [pytest.param(case, b, size,
                         id=f"{case.operation}-{case.ident}{'-' + b if b else ''}-"
                            f"{_bench.size_label(size)}")
            for case, b, size in _bench.plan(operations, per_backend=per_backend)]


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
