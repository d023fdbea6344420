"""tests/clients/: real clients' frame code, installed unmodified from PyPI
in a venv of the client's own, on poly1305x.  .ci/client-suites.sh runs each
module there twice, plain and with POLY1305X_INSTALL=cryptography (the venv's
start-up hook installs before the client is imported) and
.ci/client_plugin.py, which counts the calls that reached poly1305x; the main
suite does not install these clients and leaves the directory out
(tests/conftest.py).

* ``served``: the class the client's cipher objects must be in this pass,
  cryptography's own compiled one plain, poly1305x's with the install on (so
  a test fails when poly1305x served nothing);
* ``reference``: cryptography's compiled ChaCha20Poly1305 from its Rust
  binding, which install("cryptography") never replaces: the other end of
  every exchange, so each frame the client seals is opened, and each frame
  it opens was sealed, by code that is not poly1305x;
* ``transcript``: a SHA-256 over what a test feeds it, appended at the end to
  $POLY1305X_CLIENT_FRAMES as "<test id> <hex>"; the script compares the
  plain pass's lines with poly1305x's.
"""
import hashlib
import os

import pytest

from cryptography.hazmat.bindings._rust import openssl as _rust


@pytest.fixture(scope="session")
def reference():
    return _rust.aead.ChaCha20Poly1305


@pytest.fixture(scope="session")
def served(reference):
    mode = os.environ.get("POLY1305X_CLIENT_PASS", "plain")
    if mode == "plain":
        return reference
    from poly1305x import _install_cryptography
    return _install_cryptography.ChaCha20Poly1305


@pytest.fixture
def transcript(request):
    digest = hashlib.sha256()
    yield digest
    path = os.environ.get("POLY1305X_CLIENT_FRAMES")
    if path:
        with open(path, "a") as f:
            f.write(f"{request.node.nodeid} {digest.hexdigest()}\n")
