"""Fixtures of the OpenSSH tests."""
import functools

import pytest

from poly1305x.openssh import _container
from tests.openssh.keyfiles import Keys


@pytest.fixture(scope="package")
def keys(tmp_path_factory):
    """The key files of tests/openssh/keyfiles.py, made once for the group."""
    return Keys(tmp_path_factory.mktemp("sshkeys"))


@pytest.fixture
def cached_kdf(monkeypatch):
    """bcrypt_pbkdf memoised per (passphrase, salt, rounds), for the tests
    that damage a key file byte by byte: a flip in the private section leaves
    all three unchanged, so the real kdf runs once; a changed salt or rounds
    field still misses."""
    monkeypatch.setattr(_container, "kdf", functools.lru_cache(maxsize=None)(_container.kdf))
