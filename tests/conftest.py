"""Shared fixtures: every test that takes `backend` runs once per kernel
backend usable on this CPU (and once per emulated test backend, when the
SIMDe test build is installed)."""
import os

import pytest

import poly1305x
from poly1305x._core import _dispatch
from tests.support.helpers import backend_selected

# tests/clients/ drives real clients (aiohomekit, aioesphomeapi) that live in
# venvs of their own: .ci/client-suites.sh runs it there, with $POLY1305X_CLIENT
# naming the client; this venv does not install them
collect_ignore = [] if os.environ.get("POLY1305X_CLIENT") else ["clients"]

ALL_BACKENDS = poly1305x.backends() + _dispatch.emulated_backends()


def pytest_report_header(config):
    return (f"poly1305x backends: {', '.join(poly1305x.backends())}; emulated: "
            f"{', '.join(_dispatch.emulated_backends()) or 'none'}; "
            f"cpu features: {', '.join(sorted(poly1305x.cpu_features())) or 'none'}")


@pytest.fixture(params=ALL_BACKENDS, ids=lambda name: name)
def backend(request):
    """Select a backend for the objects the test creates, then restore."""
    with backend_selected(request.param) as name:
        yield name


@pytest.fixture
def kernel(backend):
    """The `backend` fixture under another name, for test modules where
    `backend` already means something else (a peer library's argument)."""
    return backend


def is_emulated(name):
    return name in _dispatch.emulated_backends()
