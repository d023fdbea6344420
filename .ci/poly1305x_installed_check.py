"""pytest plugin (-p poly1305x_installed_check) for runs against an installed
poly1305x (.ci/matrix.sh, noxfile.py): fails the run unless the package the
tests import is the virtualenv's, not the source tree's."""
import os, sys

import pytest

import poly1305x

ROOT = os.path.realpath(os.environ["POLY1305X_SOURCE_TREE"])
FILE = os.path.realpath(poly1305x.__file__)


def pytest_configure(config):
    if (os.path.dirname(FILE) == os.path.join(ROOT, "poly1305x")
            or not FILE.startswith(os.path.realpath(sys.prefix) + os.sep)):
        raise pytest.UsageError("poly1305x under test is not the installed package: " + FILE)


def pytest_sessionstart(session):
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None:
        tr.write_line("poly1305x under test: " + os.path.dirname(FILE))
