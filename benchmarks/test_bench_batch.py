"""Many messages in one call: ``encrypt_many`` of N = 1, 16, 64 and 256
messages of 64 B, 256 B and 1 KiB against a loop of N one-message
``encrypt`` calls of poly1305x and of cryptography (groups
``aead-batch-N<n>-<size>``; one call is N messages, ``extra_info["messages"]``
says so and benchmarks/report.py divides by it)."""
import pytest

from benchmarks.conftest import params, run_case
from poly1305x._tools import _bench_batch


@pytest.mark.parametrize("case,backend,size",
                         params([_bench_batch.operation(n) for n in _bench_batch.BATCH_COUNTS]))
def test_aead_batch(benchmark, case, backend, size):
    run_case(benchmark, case, backend, size)
