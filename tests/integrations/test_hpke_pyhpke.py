"""hpke.use_with_pyhpke(): pyhpke's ChaCha20-Poly1305 key served by poly1305x
(end to end, interop with pyhpke's own key both ways, restore, a switch from
many threads, other suites untouched, pyhpke missing)."""
import os
import sys

import pyhpke  # a test-extra requirement: its absence fails, not skips
import pytest
from pyhpke import AEADId, CipherSuite, KDFId, KEMId
from pyhpke.aead_key_interface import AEADKeyInterface
from pyhpke.keys.chacha20_poly1305_key import ChaCha20Poly1305Key as PyHPKEKey

import poly1305x
from poly1305x import hpke
from tests.support.helpers import refuse_import


@pytest.fixture
def chacha_suite():
    hpke.use_with_pyhpke(False)
    yield CipherSuite.new(KEMId.DHKEM_X25519_HKDF_SHA256, KDFId.HKDF_SHA256,
                          AEADId.CHACHA20_POLY1305)
    hpke.use_with_pyhpke(False)


@pytest.fixture
def spy(monkeypatch):
    calls = []
    seal, open_ = hpke.ChaCha20Poly1305Key.seal, hpke.ChaCha20Poly1305Key.open

    def spy_seal(self, pt, nonce, aad=b""):
        calls.append(("seal", nonce))
        return seal(self, pt, nonce, aad)

    def spy_open(self, ct, nonce, aad=b""):
        calls.append(("open", nonce))
        return open_(self, ct, nonce, aad)

    monkeypatch.setattr(hpke.ChaCha20Poly1305Key, "seal", spy_seal)
    monkeypatch.setattr(hpke.ChaCha20Poly1305Key, "open", spy_open)
    return calls


def _pair(chacha_suite, info=b"poly1305x"):
    kp = chacha_suite.kem.derive_key_pair(b"recipient ikm for the poly1305x tests")
    enc, sender = chacha_suite.create_sender_context(kp.public_key, info)
    recipient = chacha_suite.create_recipient_context(enc, kp.private_key, info)
    return sender, recipient


def test_pyhpke_end_to_end(chacha_suite, spy):
    assert hpke.use_with_pyhpke() is False
    assert hpke.use_with_pyhpke() is True  # idempotent
    sender, recipient = _pair(chacha_suite)
    for ctx in (sender, recipient):
        assert isinstance(ctx._key, hpke.ChaCha20Poly1305Key)
        assert isinstance(ctx._key, AEADKeyInterface)
        assert not isinstance(ctx._key, PyHPKEKey)
        assert ctx._key.backend == poly1305x.backend()
    msgs = [b"", b"hello", os.urandom(100), os.urandom(1000)]
    cts = [sender.seal(m, aad=b"aad %d" % i) for i, m in enumerate(msgs)]
    assert [recipient.open(ct, aad=b"aad %d" % i) for i, ct in enumerate(cts)] == msgs
    assert [c for c, _ in spy] == ["seal"] * 4 + ["open"] * 4
    assert spy[0][1] == spy[4][1] and spy[1][1] != spy[0][1]
    # a tampered message is refused by pyhpke's error, raised from ours
    s2, r2 = _pair(chacha_suite, b"other")
    ct = s2.seal(b"secret", b"aad")
    with pytest.raises(pyhpke.OpenError) as info:
        r2.open(ct, b"AAD")
    assert isinstance(info.value.__cause__, poly1305x.InvalidTag)


def test_pyhpke_interop_and_restore(chacha_suite, spy):
    """A poly1305x sender talks to a pyhpke-native recipient, and
    use_with_pyhpke(False) puts pyhpke's class back."""
    import pyhpke.aead_key
    kp = chacha_suite.kem.derive_key_pair(b"interop ikm")
    hpke.use_with_pyhpke(True)
    enc, sender = chacha_suite.create_sender_context(kp.public_key, b"info")
    assert hpke.use_with_pyhpke(False) is True
    assert pyhpke.aead_key.ChaCha20Poly1305Key is PyHPKEKey
    recipient = chacha_suite.create_recipient_context(enc, kp.private_key, b"info")
    assert type(recipient._key) is PyHPKEKey
    for i in range(5):
        m = os.urandom(10 * i)
        assert recipient.open(sender.seal(m, b"%d" % i), b"%d" % i) == m
    assert [c for c, _ in spy] == ["seal"] * 5  # the recipient never called us
    # and back the other way: native sender, poly1305x recipient
    del spy[:]
    enc, sender = chacha_suite.create_sender_context(kp.public_key)
    hpke.use_with_pyhpke()
    recipient = chacha_suite.create_recipient_context(enc, kp.private_key)
    assert recipient.open(sender.seal(b"back", b"")) == b"back"
    assert [c for c, _ in spy] == ["open"]
    assert hpke.use_with_pyhpke(False) is True
    assert hpke.use_with_pyhpke(False) is False


def test_pyhpke_switch_from_many_threads(chacha_suite):
    """use_with_pyhpke(True/False) from 8 threads at once: the swap
    is one locked step, so pyhpke's own class is never lost (an unlocked
    enable racing an enable would record ours as the original)."""
    import sys
    import threading
    import pyhpke.aead_key as mod
    original = mod.ChaCha20Poly1305Key
    barrier = threading.Barrier(8)
    errors = []

    def body(i):
        try:
            barrier.wait()
            for j in range(300):
                hpke.use_with_pyhpke((i + j) % 3 != 0)
        except BaseException as exc:
            errors.append(exc)
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=body, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    hpke.use_with_pyhpke(False)
    assert mod.ChaCha20Poly1305Key is original


def test_pyhpke_other_suites_untouched(chacha_suite):
    hpke.use_with_pyhpke()
    aes = CipherSuite.new(KEMId.DHKEM_X25519_HKDF_SHA256, KDFId.HKDF_SHA256, AEADId.AES128_GCM)
    kp = aes.kem.derive_key_pair(b"aes ikm")
    enc, sender = aes.create_sender_context(kp.public_key)
    assert not isinstance(sender._key, hpke.ChaCha20Poly1305Key)
    assert aes.create_recipient_context(enc, kp.private_key).open(sender.seal(b"x")) == b"x"


def test_pyhpke_missing(monkeypatch):
    refuse_import(monkeypatch, "pyhpke")
    # as in a process that never had pyhpke: its side is not loaded either
    monkeypatch.delitem(sys.modules, "poly1305x._pyhpke_peer", raising=False)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[hpke\]'.*'pyhpke>="):
        hpke.use_with_pyhpke()
