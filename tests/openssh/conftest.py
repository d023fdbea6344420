"""Fixtures of the OpenSSH tests."""
import pytest

from tests.openssh.keyfiles import Keys


@pytest.fixture(scope="package")
def keys(tmp_path_factory):
    """The key files of tests/openssh/keyfiles.py, made once for the group."""
    return Keys(tmp_path_factory.mktemp("sshkeys"))
