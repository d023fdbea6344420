"""HPKE stacks on poly1305x: rfc9180 through ``hpke.use_with_rfc9180()``, and
pycryptodome's ``Crypto.Protocol.HPKE`` through ``poly1305x.install()``.

* the RFC 9180 test vectors (ChaCha20-Poly1305 entries, every mode and KEM)
  through both: opening, the exports, and (rfc9180, from the vectors' shared
  secret) sealing byte for byte;
* proof that poly1305x is what runs: each AEAD object those libraries create
  is a poly1305x object, counted;
* interoperation both ways between pycryptodome's HPKE on poly1305x, pyhpke
  and rfc9180, modes base and psk;
* ``use_with_rfc9180`` on/off/idempotence and the missing-package error.
"""
import json
import os

import pytest

import poly1305x
from poly1305x import _install, hpke
from poly1305x._core._engine import ChaCha20Poly1305 as EngineAEAD
from poly1305x.ChaCha20_Poly1305 import ChaCha20Poly1305Cipher as FaceCipher

from Crypto.Protocol import HPKE as PycHPKE
from Crypto.Protocol.DH import import_x448_public_key, import_x25519_public_key
from Crypto.PublicKey import ECC
from rfc9180 import AEADID, HPKE, KDFID, KEMID
from rfc9180.constants import HPKEMode
from rfc9180.exceptions import OpenError
from rfc9180.primitives.aead import AEADBase
from tests.support.helpers import h as _h, hpke_vector_id, refuse_import

VECTORS = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "vectors",
                                      "rfc9180_chacha20poly1305_setup.json")))["vectors"]
CURVES = {0x10: "P-256", 0x11: "P-384", 0x12: "P-521", 0x20: "X25519", 0x21: "X448"}




@pytest.fixture
def rfc9180_on():
    was = hpke.use_with_rfc9180()
    try:
        yield
    finally:
        hpke.use_with_rfc9180(was)


@pytest.fixture
def installed():
    """poly1305x.install() for the test, undone after (unless it was on)."""
    was = _install.installed()
    poly1305x.install()
    try:
        yield
    finally:
        if not was:
            poly1305x.uninstall()


@pytest.fixture
def pyc_count(installed, monkeypatch):
    # installed first, so that its uninstall() runs after monkeypatch has put
    # back the `new` replaced below (uninstall leaves a rebound name alone)
    """Counts the ChaCha20-Poly1305 objects Crypto.Protocol.HPKE creates, and
    checks that each is poly1305x's."""
    calls = []
    module = PycHPKE.ChaCha20_Poly1305  # the module object HPKE bound at import
    real_new = module.new

    def new(*args, **kwargs):
        cipher = real_new(*args, **kwargs)
        assert isinstance(cipher, FaceCipher), type(cipher)
        calls.append(cipher.backend if hasattr(cipher, "backend") else None)
        return cipher

    monkeypatch.setattr(module, "new", new)
    return calls


# -- rfc9180 -----------------------------------------------------------------

def test_use_with_rfc9180_switch():
    was = hpke.use_with_rfc9180(False)
    try:
        native = HPKE(KEMID.DHKEM_X25519_HKDF_SHA256, KDFID.HKDF_SHA256, AEADID.CHACHA20_POLY1305)
        assert native.aead.cipher is not EngineAEAD
        assert hpke.use_with_rfc9180() is False
        assert hpke.use_with_rfc9180() is True  # idempotent
        ours = HPKE(KEMID.DHKEM_X25519_HKDF_SHA256, KDFID.HKDF_SHA256, AEADID.CHACHA20_POLY1305)
        assert ours.aead.cipher is EngineAEAD
        assert native.aead.cipher is not EngineAEAD  # made before: unchanged
        gcm = HPKE(KEMID.DHKEM_X25519_HKDF_SHA256, KDFID.HKDF_SHA256, AEADID.AES_128_GCM)
        assert gcm.aead.cipher is not EngineAEAD  # AES-GCM untouched
        assert AEADBase(AEADID.EXPORT_ONLY).cipher is None
        assert hpke.use_with_rfc9180(False) is True
        assert hpke.use_with_rfc9180(False) is False
        again = HPKE(KEMID.DHKEM_X25519_HKDF_SHA256, KDFID.HKDF_SHA256, AEADID.CHACHA20_POLY1305)
        assert again.aead.cipher is not EngineAEAD
    finally:
        hpke.use_with_rfc9180(was)


def test_use_with_rfc9180_without_rfc9180(monkeypatch):
    refuse_import(monkeypatch, "rfc9180")
    with pytest.raises(ImportError, match=r"pip install -e '\.\[rfc9180\]'.*'rfc9180>="):
        hpke.use_with_rfc9180()


def _rfc9180_keys(h, v):
    skR = h._deserialize_private_key(_h(v["skRm"]))
    pkS = h._deserialize_public_key(_h(v["pkSm"])) if "pkSm" in v else None
    return skR, pkS


def _rfc9180_recipient(h, v):
    skR, pkS = _rfc9180_keys(h, v)
    enc, info = _h(v["enc"]), _h(v["info"])
    psk, psk_id = _h(v.get("psk", "")), _h(v.get("psk_id", ""))
    return {
        0: lambda: h.setup.setup_base_recipient(enc, skR, info),
        1: lambda: h.setup.setup_psk_recipient(enc, skR, info, psk, psk_id),
        2: lambda: h.setup.setup_auth_recipient(enc, skR, info, pkS),
        3: lambda: h.setup.setup_auth_psk_recipient(enc, skR, info, psk, psk_id, pkS),
    }[v["mode"]]()


@pytest.mark.parametrize("v", VECTORS, ids=hpke_vector_id)
def test_rfc9180_vectors(v, rfc9180_on, backend, monkeypatch):
    made = []
    real = hpke._rfc9180_get_cipher

    def counting(self):
        cipher = real(self)
        made.append(cipher)
        return cipher

    monkeypatch.setattr(AEADBase, "_get_cipher", counting)
    h = HPKE(v["kem_id"], v["kdf_id"], v["aead_id"])
    assert made == [EngineAEAD] and h.aead.cipher is EngineAEAD
    ctx = _rfc9180_recipient(h, v)
    assert (ctx.key, ctx.base_nonce) == (_h(v["key"]), _h(v["base_nonce"]))
    for enc in v["encryptions"]:
        assert ctx.open(_h(enc["aad"]), _h(enc["ct"])) == _h(enc["pt"])
    for exp in v["exports"]:
        assert ctx.export(_h(exp["exporter_context"]), exp["L"]) == _h(exp["exported_value"])
    # sender side, from the vectors' shared secret (the ephemeral key is random
    # in rfc9180's own encap): byte-identical ciphertexts
    sender = h.setup.key_schedule("S", HPKEMode(v["mode"]), _h(v["shared_secret"]), _h(v["info"]),
                                  _h(v.get("psk", "")), _h(v.get("psk_id", "")))
    for enc in v["encryptions"]:
        assert sender.seal(_h(enc["aad"]), _h(enc["pt"])) == _h(enc["ct"])
    # a tampered ciphertext: rfc9180's own OpenError
    bad = bytearray(_h(v["encryptions"][0]["ct"]))
    bad[-1] ^= 1
    fresh = _rfc9180_recipient(h, v)
    with pytest.raises(OpenError):
        fresh.open(_h(v["encryptions"][0]["aad"]), bytes(bad))


ALL_ENCRYPTIONS = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "vectors",
                                              "rfc9180_chacha20poly1305.json")))["vectors"]


@pytest.mark.parametrize("v", ALL_ENCRYPTIONS, ids=hpke_vector_id)
def test_rfc9180_aead_every_encryption(v, rfc9180_on, backend):
    """All 8,224 encryptions of the RFC 9180 ChaCha20-Poly1305 vectors through
    rfc9180's AEAD step (AEADBase.seal/open, as its contexts call it)."""
    aead = AEADBase(AEADID.CHACHA20_POLY1305)
    assert aead.cipher is EngineAEAD
    key = _h(v["key"])
    for enc in v["encryptions"]:
        nonce, aad, pt, ct = (_h(enc[k]) for k in ("nonce", "aad", "pt", "ct"))
        assert aead.seal(key, nonce, aad, pt) == ct
        assert aead.open(key, nonce, aad, ct) == pt


# -- pycryptodome's Crypto.Protocol.HPKE -------------------------------------

def _ecc_private(kem_id, raw):
    curve = CURVES[kem_id]
    if curve in ("X25519", "X448"):
        return ECC.construct(curve=curve, seed=raw)
    return ECC.construct(curve=curve, d=int.from_bytes(raw, "big"))


def _ecc_public(kem_id, raw):
    if kem_id == 0x20:
        return import_x25519_public_key(raw)
    if kem_id == 0x21:
        return import_x448_public_key(raw)
    return ECC.import_key(raw, curve_name=CURVES[kem_id])


def _pyc_receiver(v, enc=None):
    kw = dict(receiver_key=_ecc_private(v["kem_id"], _h(v["skRm"])),
              aead_id=PycHPKE.AEAD.CHACHA20_POLY1305, enc=enc or _h(v["enc"]), info=_h(v["info"]))
    if v["mode"] in (1, 3):
        kw["psk"] = (_h(v["psk_id"]), _h(v["psk"]))
    if v["mode"] in (2, 3):
        kw["sender_key"] = _ecc_public(v["kem_id"], _h(v["pkSm"]))
    return PycHPKE.new(**kw)


def test_pycryptodome_has_hpke():
    import Crypto

    assert Crypto.version_info >= (3, 22)  # Crypto.Protocol.HPKE appeared in 3.22
    assert hasattr(PycHPKE, "new") and PycHPKE.AEAD.CHACHA20_POLY1305 == 3


@pytest.mark.parametrize("v", [v for v in VECTORS if v["kdf_id"] == {0x10: 1, 0x11: 2, 0x12: 3,
                                                                      0x20: 1, 0x21: 3}[v["kem_id"]]],
                         ids=hpke_vector_id)
def test_pycryptodome_hpke_vectors(v, pyc_count, backend):
    """Crypto.Protocol.HPKE picks the KDF from the KEM, so only the vectors
    whose KDF is the KEM's own apply."""
    rx = _pyc_receiver(v)
    for enc in v["encryptions"]:
        assert rx.unseal(_h(enc["ct"]), _h(enc["aad"])) == _h(enc["pt"])
    for exp in v["exports"]:
        assert rx.export(_h(exp["exporter_context"]), exp["L"]) == _h(exp["exported_value"])
    assert len(pyc_count) == len(v["encryptions"]) and set(pyc_count) == {backend}
    bad = bytearray(_h(v["encryptions"][0]["ct"]))
    bad[0] ^= 1
    with pytest.raises(ValueError):  # pycryptodome's unseal: ValueError on a bad tag
        _pyc_receiver(v).unseal(bytes(bad), _h(v["encryptions"][0]["aad"]))


def test_install_is_what_makes_pycryptodome_hpke_use_poly1305x():
    """Without install() the ciphers are pycryptodome's own; with it, poly1305x's."""
    v = next(v for v in VECTORS if v["mode"] == 0 and v["kem_id"] == 0x20)
    was = _install.installed()
    if was:
        poly1305x.uninstall()
    try:
        rx = _pyc_receiver(v)
        assert not isinstance(rx._new_cipher(), FaceCipher)
        poly1305x.install()
        assert isinstance(_pyc_receiver(v)._new_cipher(), FaceCipher)
    finally:
        poly1305x.uninstall()
        if was:
            poly1305x.install()


# -- interoperation: pycryptodome (poly1305x) <-> pyhpke, rfc9180 -------------

PSK, PSK_ID = bytes(range(32)), b"psk id"
MODES = ["base", "psk"]


def _pyhpke_suite():
    from pyhpke import AEADId, CipherSuite, KDFId, KEMId

    return CipherSuite.new(KEMId.DHKEM_X25519_HKDF_SHA256, KDFId.HKDF_SHA256,
                           AEADId.CHACHA20_POLY1305)


def _keypair():
    sk = os.urandom(32)
    key = ECC.construct(curve="X25519", seed=sk)
    return sk, key.public_key().export_key(format="raw")


def _pyc_seal(pk, mode, info, msgs):
    kw = {"psk": (PSK_ID, PSK)} if mode == "psk" else {}
    tx = PycHPKE.new(receiver_key=_ecc_public(0x20, pk), aead_id=PycHPKE.AEAD.CHACHA20_POLY1305,
                     info=info, **kw)
    return tx.enc, [tx.seal(m, b"aad %d" % i) for i, m in enumerate(msgs)]


def _pyc_open(sk, mode, info, enc, cts):
    kw = {"psk": (PSK_ID, PSK)} if mode == "psk" else {}
    rx = PycHPKE.new(receiver_key=_ecc_private(0x20, sk), aead_id=PycHPKE.AEAD.CHACHA20_POLY1305,
                     enc=enc, info=info, **kw)
    return [rx.unseal(ct, b"aad %d" % i) for i, ct in enumerate(cts)]


def _pyhpke_seal(pk, mode, info, msgs):
    suite = _pyhpke_suite()
    kw = {"psk": PSK, "psk_id": PSK_ID} if mode == "psk" else {}
    enc, tx = suite.create_sender_context(suite.kem.deserialize_public_key(pk), info, **kw)
    return enc, [tx.seal(m, b"aad %d" % i) for i, m in enumerate(msgs)]


def _pyhpke_open(sk, mode, info, enc, cts):
    suite = _pyhpke_suite()
    kw = {"psk": PSK, "psk_id": PSK_ID} if mode == "psk" else {}
    rx = suite.create_recipient_context(enc, suite.kem.deserialize_private_key(sk), info, **kw)
    return [rx.open(ct, b"aad %d" % i) for i, ct in enumerate(cts)]


def _rfc_seal(pk, mode, info, msgs):
    h = HPKE(KEMID.DHKEM_X25519_HKDF_SHA256, KDFID.HKDF_SHA256, AEADID.CHACHA20_POLY1305)
    pkR = h._deserialize_public_key(pk)
    if mode == "psk":
        enc, tx = h.setup.setup_psk_sender(pkR, info, PSK, PSK_ID)
    else:
        enc, tx = h.setup.setup_base_sender(pkR, info)
    return enc, [tx.seal(b"aad %d" % i, m) for i, m in enumerate(msgs)]


def _rfc_open(sk, mode, info, enc, cts):
    h = HPKE(KEMID.DHKEM_X25519_HKDF_SHA256, KDFID.HKDF_SHA256, AEADID.CHACHA20_POLY1305)
    skR = h._deserialize_private_key(sk)
    if mode == "psk":
        rx = h.setup.setup_psk_recipient(enc, skR, info, PSK, PSK_ID)
    else:
        rx = h.setup.setup_base_recipient(enc, skR, info)
    return [rx.open(b"aad %d" % i, ct) for i, ct in enumerate(cts)]


PEERS = {"pyhpke": (_pyhpke_seal, _pyhpke_open), "rfc9180": (_rfc_seal, _rfc_open)}


@pytest.mark.parametrize("peer_poly1305x", [False, True], ids=["peer-native", "peer-poly1305x"])
@pytest.mark.parametrize("peer", sorted(PEERS))
@pytest.mark.parametrize("mode", MODES)
def test_pycryptodome_hpke_interop(mode, peer, peer_poly1305x, pyc_count):
    switch = {"pyhpke": hpke.use_with_pyhpke, "rfc9180": hpke.use_with_rfc9180}[peer]
    was = switch(peer_poly1305x)
    try:
        peer_seal, peer_open = PEERS[peer]
        sk, pk = _keypair()
        msgs = [b"", b"x", os.urandom(100), os.urandom(16384)]
        info = b"interop " + mode.encode()
        # pycryptodome (on poly1305x) -> peer
        enc, cts = _pyc_seal(pk, mode, info, msgs)
        assert peer_open(sk, mode, info, enc, cts) == msgs
        # peer -> pycryptodome (on poly1305x)
        enc, cts = peer_seal(pk, mode, info, msgs)
        assert _pyc_open(sk, mode, info, enc, cts) == msgs
        assert len(pyc_count) == 2 * len(msgs)  # every message ran through poly1305x
    finally:
        switch(was)


# -- rfc9180's own test suite, from its sdist, on poly1305x -------------------

def test_rfc9180_own_suite():
    """The tests rfc9180 ships in its sdist (with its vectors/test-vectors.json,
    every mode, KEM, KDF and AEAD), run with use_with_rfc9180() switched on
    before collection (tests/support/peer_plugin.py)."""
    from tests.support import peer_sdist

    root = peer_sdist.fetch("rfc9180")
    proc, counts = peer_sdist.run(root, "rfc9180", ["tests"])
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert " passed" in proc.stdout and " failed" not in proc.stdout
    # every ChaCha20-Poly1305 AEAD object the suite made was poly1305x's
    assert counts["aead_objects"] > 1000, counts
