"""pytest plugin of .ci/client-suites.sh (``-p client_plugin``), for a real
client's own suite run from its sdist, none of its files changed, or for
tests/clients/ run against the client's PyPI wheel.
$POLY1305X_CLIENT names the client, $POLY1305X_CLIENT_PASS the pass:

* "poly1305x", for the cryptography clients (HAP-python, pyatv and
  aioesphomeapi's suites; aiohomekit's and aioesphomeapi's frame code under
  tests/clients/): the venv's start-up hook has run ``POLY1305X_INSTALL=
  cryptography`` before anything imported the client; this checks that it
  did and counts the calls of the classes served
  (tests/support/peer_plugin.count_served);
* "poly1305x", for aioquic: ``poly1305x.quic.use_with_aioquic()``, with
  TLS_CHACHA20_POLY1305_SHA256 first in the cipher suites a connection offers
  and accepts by default, the packets counted (peer_plugin.count_quic);
* "control", for aioquic: the same preference on aioquic's own code, so a
  test that fails because of the preference is not blamed on poly1305x.

The count of calls that reached poly1305x goes to $POLY1305X_CLIENT_COUNT at
the end.
"""
import os

import pytest

COUNTS: dict = {}
CRYPTOGRAPHY_CLIENTS = ("hap-python", "pyatv", "aioesphomeapi", "aiohomekit")


def _prefer_chacha():
    from aioquic import tls
    original = tls.Context.__init__
    chacha = tls.CipherSuite.CHACHA20_POLY1305_SHA256
    default = [chacha, tls.CipherSuite.AES_256_GCM_SHA384, tls.CipherSuite.AES_128_GCM_SHA256]

    def __init__(self, *args, cipher_suites=None, **kwargs):
        original(self, *args, cipher_suites=list(default) if cipher_suites is None
                 else cipher_suites, **kwargs)

    tls.Context.__init__ = __init__


def pytest_configure(config):
    client, mode = os.environ["POLY1305X_CLIENT"], os.environ["POLY1305X_CLIENT_PASS"]
    if client in CRYPTOGRAPHY_CLIENTS:
        import poly1305x
        from peer_plugin import count_served
        if "cryptography.hazmat.primitives.ciphers.aead.ChaCha20Poly1305" not in \
                poly1305x.installed():
            raise pytest.UsageError("POLY1305X_INSTALL=cryptography did not install at start-up")
        count_served(COUNTS)
    elif client == "aioquic":
        _prefer_chacha()
        if mode == "poly1305x":
            from peer_plugin import count_quic
            from poly1305x import quic
            COUNTS.update(quic_seal=0, quic_open=0, quic_hp=0)
            count_quic(COUNTS)
            quic.use_with_aioquic()
    else:
        raise pytest.UsageError(f"POLY1305X_CLIENT: unknown client {client!r}")


def pytest_unconfigure(config):
    if os.environ["POLY1305X_CLIENT_PASS"] == "poly1305x":
        calls = sum(v for k, v in COUNTS.items() if k != "quic_hp" and "__init__" not in k)
        with open(os.environ["POLY1305X_CLIENT_COUNT"], "w") as f:
            f.write(str(calls))
