"""Shared pieces of the tests that use poly1305x objects from several threads
at once (tests/hardening/, tests/core/test_freethreading*.py): the busy
error's text, the thread count of the free-threading tests, and fixtures that
make the threads of a GIL build switch often."""
import sys

import pytest

BUSY = "being used by another thread"
NTHREADS = 8


def _switching(seconds):
    before = sys.getswitchinterval()
    sys.setswitchinterval(seconds)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


@pytest.fixture
def fast_switch():
    """Switch threads every 50 microseconds, to shake out races."""
    yield from _switching(5e-5)


@pytest.fixture
def fastest_switch():
    """Switch threads every microsecond instead of every 5 ms: on a GIL build
    the threads interleave between calls (and, for calls that release the
    GIL, inside them) as they run at once on a free-threaded one."""
    yield from _switching(1e-6)
