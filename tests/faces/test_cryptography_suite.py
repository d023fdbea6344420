"""cryptography's own tests of ChaCha20Poly1305 and Poly1305, from the sdist
of the installed cryptography, run with ``poly1305x.install("cryptography")``
on (tests/support/peer_plugin.py) and the vectors of its cryptography_vectors
release: every one passes, and the counts prove that poly1305x's classes
served them.

cryptography's ChaCha20Poly1305 tests live in tests/hazmat/primitives/test_aead.py
beside the AES modes'; ``-k ChaCha20Poly1305`` picks them.  Its Wycheproof
tests need the Wycheproof repository (not on PyPI): tests/vectors/ here runs
the Wycheproof ChaCha20-Poly1305 file against every backend instead.
"""
import importlib.metadata
import re

import pytest

from tests.support import peer_sdist, sdist_index

VERSION = importlib.metadata.version("cryptography")
#: The vector directories those two test modules read.
VECTORS = ("cryptography_vectors/__init__.py", "cryptography_vectors/__about__.py",
           "cryptography_vectors/ciphers/ChaCha20Poly1305/", "cryptography_vectors/poly1305/")
TESTS = ["tests/hazmat/primitives/test_aead.py", "tests/hazmat/primitives/test_poly1305.py",
         "-k", "ChaCha20Poly1305 or Poly1305 or poly1305"]


@pytest.fixture(scope="module")
def suite():
    root = peer_sdist.fetch("cryptography", from_index=True)
    vectors = sdist_index.wheel_members("cryptography_vectors", VERSION, VECTORS,
                                        peer_sdist.CACHE / f"cryptography_vectors-{VERSION}")
    return root, vectors


def _run(suite, extra=()):
    root, vectors = suite
    return peer_sdist.run(root, "cryptography", ["-o", "addopts=", *TESTS, *extra],
                          path=[vectors])


def _summary(out):
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|error)", out)}
    return counts


def test_cryptography_own_tests_pass_on_poly1305x(suite):
    proc, counts = _run(suite)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    summary = _summary(out.splitlines()[-1])
    assert summary.get("failed", 0) == 0 and summary.get("error", 0) == 0, out[-4000:]
    # test_aead.py's ChaCha20Poly1305 class, test_poly1305.py's class and vectors
    assert summary["passed"] >= 30, out[-2000:]
    # the only skip allowed: "Requires OpenSSL without ..." (an OpenSSL that lacks them)
    for reason in re.findall(r"SKIPPED \[\d+\] [^:]+:\d+: (.*)", out):
        assert reason.startswith("Requires OpenSSL without"), reason
    assert counts is not None, out[-2000:]
    for key in ("ChaCha20Poly1305.__init__", "ChaCha20Poly1305.encrypt",
                "ChaCha20Poly1305.decrypt", "ChaCha20Poly1305.encrypt_into",
                "ChaCha20Poly1305.decrypt_into", "Poly1305.__init__", "Poly1305.update",
                "Poly1305.finalize", "Poly1305.verify", "Poly1305.generate_tag",
                "Poly1305.verify_tag"):
        assert counts.get(key, 0) > 0, (key, counts)
