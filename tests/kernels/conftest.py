"""Fixtures of the kernel tests."""
import pytest

from tests.conftest import ALL_BACKENDS


@pytest.fixture(params=ALL_BACKENDS)
def name(request):
    """Each backend's name (the native ones, then the emulated ones), for the
    tests that call its kernels by name through poly1305x._core._testing:
    nothing is selected, unlike the ``backend`` fixture."""
    return request.param
