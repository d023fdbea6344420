"""poly1305x.mls: an rfc9420 crypto provider whose ChaCha20-Poly1305 (AEAD and
HPKE) is poly1305x.

* the RFC 9420 test vectors of the ChaCha20-Poly1305 suites (crypto-basics'
  EncryptWithLabel, message-protection's PrivateMessages), both directions
  between the poly1305x provider and rfc9420's default provider;
* a three-member group on suite 0x0003 in which one member uses the poly1305x
  provider and the other two rfc9420's default provider;
* rfc9420's own sdist test suite with the provider plugged in
  (tests/support/peer_sdist.py).
"""
import json
import os

import pytest

import poly1305x
from poly1305x import mls

from rfc9420 import GroupConfig, MemoryStorageProvider
from rfc9420.api.session import MLSGroupSession
from rfc9420.backends.crypto.default_hpke import DefaultCryptoProvider
from rfc9420.crypto.hpke_labels import decrypt_with_label, encrypt_with_label
from rfc9420.extensions.extensions import build_capabilities_data
from rfc9420.messages.data_structures import (
    CipherSuite, Credential, GroupContext, Signature)
from rfc9420.messages.key_packages import KeyPackage, LeafNode
from rfc9420.messages.messages import (
    MLSMessage, protect_content_application, sign_application_framed_content,
    unprotect_content_application, unprotect_content_handshake)
from rfc9420.codec.tls import write_opaque_varint
from rfc9420.backends.crypto.default_rand import DefaultRandProvider
from rfc9420.protocol.secret_tree import SecretTree
from rfc9180.exceptions import OpenError
from cryptography.exceptions import InvalidTag as CryptographyInvalidTag
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from tests.support.helpers import h as _h

VECTORS = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "vectors",
                                      "mls_chacha20poly1305.json")))
SUITE = 0x0003


class Counting:
    """Counts the calls that reach poly1305x's seal/open from poly1305x.mls."""

    def __init__(self, monkeypatch):
        self.seal = self.open = 0
        real_seal, real_open = mls._seal, mls._open

        def seal(*args):
            self.seal += 1
            return real_seal(*args)

        def open_(*args):
            self.open += 1
            return real_open(*args)

        monkeypatch.setattr(mls, "_seal", seal)
        monkeypatch.setattr(mls, "_open", open_)
        real_aead = mls._AEAD

        def aead(key):  # the HPKE path builds its cipher through _AEAD
            self.hpke += 1
            return real_aead(key)

        self.hpke = 0
        monkeypatch.setattr(mls, "_AEAD", aead)


@pytest.fixture
def counting(monkeypatch):
    return Counting(monkeypatch)


# -- the provider -------------------------------------------------------------

def test_provider_shape():
    from rfc9420.providers.crypto import CryptoProviderProtocol

    p = mls.CryptoProvider()
    assert isinstance(p, CryptoProviderProtocol)
    assert p.active_ciphersuite.suite_id == SUITE and p.uses_poly1305x
    assert p.backend == poly1305x.backend()
    assert p.supported_ciphersuites == DefaultCryptoProvider().supported_ciphersuites
    assert mls.CHACHA20POLY1305_SUITES == {3, 6}
    # delegated: the same results as the default provider
    d = DefaultCryptoProvider(SUITE)
    assert p.hash(b"x") == d.hash(b"x")
    assert p.expand_with_label(b"s" * 32, b"l", b"c", 16) == d.expand_with_label(b"s" * 32, b"l", b"c", 16)
    assert p.aead_key_size() == 32 and p.aead_nonce_size() == 12
    with pytest.raises(AttributeError):
        p.no_such_method  # noqa: B018


def test_aead_matches_default_both_ways(counting, backend):
    p, d = mls.CryptoProvider(SUITE), DefaultCryptoProvider(SUITE)
    key, nonce, aad = os.urandom(32), os.urandom(12), os.urandom(20)
    for n in (0, 1, 63, 64, 100, 1000, 16384):
        pt = os.urandom(n)
        ct = p.aead_encrypt(key, nonce, pt, aad)
        assert ct == d.aead_encrypt(key, nonce, pt, aad)
        assert d.aead_decrypt(key, nonce, ct, aad) == pt
        assert p.aead_decrypt(key, nonce, ct, aad) == pt
    assert counting.seal == 7 and counting.open == 7


def test_aead_bad_tag_is_rfc9180_open_error(counting):
    p = mls.CryptoProvider(SUITE)
    key, nonce = os.urandom(32), os.urandom(12)
    ct = bytearray(p.aead_encrypt(key, nonce, b"secret", b"aad"))
    for i in (0, len(ct) - 1):
        bad = bytearray(ct)
        bad[i] ^= 1
        with pytest.raises(OpenError):  # what DefaultCryptoProvider raises
            p.aead_decrypt(key, nonce, bytes(bad), b"aad")
    with pytest.raises(OpenError):
        p.aead_decrypt(key, nonce, bytes(ct), b"other aad")
    with pytest.raises(OpenError):  # shorter than a tag: as the default provider
        p.aead_decrypt(key, nonce, bytes(15), b"aad")
    for bad_key, bad_nonce in ((bytes(16), nonce), (key, bytes(11))):
        with pytest.raises(ValueError):
            p.aead_encrypt(bad_key, bad_nonce, b"x", b"")
        with pytest.raises(ValueError):
            p.aead_decrypt(bad_key, bad_nonce, bytes(ct), b"aad")
    with pytest.raises(TypeError):
        p.aead_encrypt(key, nonce, "text", b"")
    assert counting.open == 6


def test_other_suites_are_delegated(counting):
    p, d = mls.CryptoProvider(0x0001), DefaultCryptoProvider(0x0001)  # AES-128-GCM
    assert not p.uses_poly1305x
    key, nonce = os.urandom(16), os.urandom(12)
    ct = p.aead_encrypt(key, nonce, b"m", b"a")
    assert ct == d.aead_encrypt(key, nonce, b"m", b"a") and p.aead_decrypt(key, nonce, ct, b"a") == b"m"
    sk, pk = p.generate_key_pair()
    enc, ct = p.hpke_seal(pk, b"info", b"aad", b"pt")
    assert d.hpke_open(sk, enc, b"info", b"aad", ct) == b"pt"
    assert counting.seal == counting.open == counting.hpke == 0
    p.set_ciphersuite(SUITE)
    assert p.uses_poly1305x and p.base.active_ciphersuite.suite_id == SUITE
    p.aead_encrypt(os.urandom(32), nonce, b"m", b"a")
    assert counting.seal == 1


def test_custom_base_provider_follows_the_suite():
    base = DefaultCryptoProvider(0x0001)
    p = mls.CryptoProvider(SUITE, base=base)
    assert p.base is base and base.active_ciphersuite.suite_id == SUITE


@pytest.mark.parametrize("suite", sorted(mls.CHACHA20POLY1305_SUITES))
def test_hpke_both_ways(suite, counting):
    p, d = mls.CryptoProvider(suite), DefaultCryptoProvider(suite)
    sk, pk = d.generate_key_pair()
    for sealer, opener in ((p, d), (d, p), (p, p)):
        enc, ct = sealer.hpke_seal(pk, b"info", b"aad", b"group secrets")
        assert opener.hpke_open(sk, enc, b"info", b"aad", ct) == b"group secrets"
    enc, ct, exported = p.hpke_seal_and_export(pk, b"info", b"aad", b"pt", b"label", 32)
    assert d.hpke_open(sk, enc, b"info", b"aad", ct) == b"pt"
    assert d.hpke_export_secret(sk, enc, b"info", b"label", 32) == exported
    assert p.hpke_export_secret(sk, enc, b"info", b"label", 32) == exported
    bad = bytearray(ct)
    bad[-1] ^= 1
    with pytest.raises(CryptographyInvalidTag):  # what DefaultCryptoProvider raises
        p.hpke_open(sk, enc, b"info", b"aad", bytes(bad))
    assert counting.hpke >= 5


# -- RFC 9420 test vectors ----------------------------------------------------



@pytest.mark.parametrize("vec", VECTORS["crypto_basics"], ids=lambda v: f"suite{v['cipher_suite']}")
def test_vectors_encrypt_with_label(vec, counting):
    """crypto-basics.json encrypt_with_label: HPKE with MLS's EncryptContext."""
    suite = int(vec["cipher_suite"])
    v = vec["encrypt_with_label"]
    p, d = mls.CryptoProvider(suite), DefaultCryptoProvider(suite)
    label = v["label"].encode()
    pt = decrypt_with_label(p, _h(v["priv"]), _h(v["kem_output"]), label, _h(v["context"]),
                            b"", _h(v["ciphertext"]))
    assert pt == _h(v["plaintext"])
    assert counting.hpke == 1
    enc, ct = encrypt_with_label(p, _h(v["pub"]), label, _h(v["context"]), b"", pt)
    assert decrypt_with_label(d, _h(v["priv"]), enc, label, _h(v["context"]), b"", ct) == pt


class _SenderDataSchedule:
    """The two key-schedule derivations PrivateMessage sender data needs
    (RFC 9420 section 6.3.2)."""

    def __init__(self, secret, crypto):
        self.secret, self.crypto = secret, crypto

    def sender_data_key_from_sample(self, sample):
        return self.crypto.expand_with_label(self.secret, b"key", sample, self.crypto.aead_key_size())

    def sender_data_nonce_from_sample(self, sample):
        return self.crypto.expand_with_label(self.secret, b"nonce", sample,
                                             self.crypto.aead_nonce_size())


@pytest.mark.parametrize("vec", VECTORS["message_protection"], ids=lambda v: f"suite{v['cipher_suite']}")
def test_vectors_message_protection(vec, counting):
    """message-protection.json: the proposal, commit and application
    PrivateMessages decrypt through the poly1305x provider; an application
    message it protects decrypts through the default provider."""
    suite = int(vec["cipher_suite"])
    p, d = mls.CryptoProvider(suite), DefaultCryptoProvider(suite)
    sender = 1  # the vectors' sender leaf, in a two-leaf tree

    def unprotect(crypto, kind, obj):
        tree = SecretTree(_h(vec["encryption_secret"]), crypto, n_leaves=2)
        ks = _SenderDataSchedule(_h(vec["sender_data_secret"]), crypto)
        fn = unprotect_content_application if kind == "application" else unprotect_content_handshake
        return fn(obj, ks, tree, crypto)[1]

    for kind in ("proposal", "commit", "application"):
        obj = MLSMessage.deserialize(_h(vec[kind + "_priv"])).get_parsed_content()
        assert unprotect(p, kind, obj) == _h(vec[kind])
    assert counting.open >= 6  # sender data + content, three messages

    gc = GroupContext(group_id=_h(vec["group_id"]), epoch=int(vec["epoch"]),
                      tree_hash=_h(vec["tree_hash"]),
                      confirmed_transcript_hash=_h(vec["confirmed_transcript_hash"]),
                      extensions=b"", cipher_suite_id=suite)
    body = _h(vec["application"])
    sig = sign_application_framed_content(gc.group_id, gc.epoch, sender, b"",
                                          write_opaque_varint(body), gc.serialize(),
                                          _h(vec["signature_priv"]), p)
    seals = counting.seal
    ct = protect_content_application(
        gc.group_id, gc.epoch, sender, b"", body, sig,
        _SenderDataSchedule(_h(vec["sender_data_secret"]), p),
        SecretTree(_h(vec["encryption_secret"]), p, n_leaves=2), p,
        rand_provider=DefaultRandProvider(), pad_to=0)
    assert counting.seal == seals + 2
    assert unprotect(d, "application", ct) == body


# -- a three-member group -----------------------------------------------------

CAPS = build_capabilities_data([SUITE], [])


def _member(identity, suite=SUITE):
    """(KeyPackage, HPKE init private key, signature private key), signed as
    RFC 9420 section 10 says."""
    p = DefaultCryptoProvider(suite)
    init_sk, init_pk = p.generate_key_pair()
    _enc_sk, enc_pk = p.generate_key_pair()
    key = Ed25519PrivateKey.generate()
    sig_sk, sig_pk = key.private_bytes_raw(), key.public_key().public_bytes_raw()
    fields = dict(encryption_key=enc_pk, signature_key=sig_pk,
                  credential=Credential(identity=identity, public_key=sig_pk),
                  capabilities=CAPS, parent_hash=b"")
    leaf = LeafNode(**fields)
    leaf = LeafNode(**fields, signature=Signature(
        p.sign_with_label(sig_sk, b"LeafNodeTBS", leaf.tbs_serialize())))
    cs = CipherSuite.deserialize(suite.to_bytes(2, "big"))
    kp = KeyPackage(cipher_suite=cs, init_key=init_pk, leaf_node=leaf)
    kp = KeyPackage(cipher_suite=cs, init_key=init_pk, leaf_node=leaf, signature=Signature(
        p.sign_with_label(sig_sk, b"KeyPackageTBS", kp.tbs_serialize())))
    return kp, init_sk, sig_sk


def _config(provider):
    return GroupConfig(crypto_provider=provider, storage_provider=MemoryStorageProvider())


def _add(committer, sig, others, kp, init_sk, provider):
    """Add proposal + commit by `committer`; `others` process both; the new
    member joins from the Welcome."""
    me = committer.own_leaf_index
    proposal = committer.add_member(kp, sig)
    for s in [committer] + others:
        s.process_proposal(proposal, me)
    commit, welcomes = committer.commit(sig)
    for s in others:
        s.apply_commit(commit, me)
    assert len(welcomes) == 1
    return MLSGroupSession.join_from_welcome_with_config(_config(provider), welcomes[0], init_sk,
                                                         key_package=kp)


def _all_hear(sender, receivers, text):
    ct = sender.protect_application(text)
    for r in receivers:
        assert r.unprotect_application(ct) == (sender.own_leaf_index, text)
    return ct


@pytest.mark.parametrize("poly_member", ["creator", "joiner"])
def test_three_member_group(poly_member, counting):
    """Create, add, commit, application messages every way, a later epoch;
    one member on poly1305x, two on rfc9420's default provider."""
    providers = {"A": DefaultCryptoProvider(SUITE), "B": DefaultCryptoProvider(SUITE),
                 "C": DefaultCryptoProvider(SUITE)}
    providers["A" if poly_member == "creator" else "B"] = mls.CryptoProvider(SUITE)
    (kpa, _, siga), (kpb, skb, _), (kpc, skc, _) = (_member(n) for n in (b"A", b"B", b"C"))

    a = MLSGroupSession.create_with_config(_config(providers["A"]), b"poly1305x group", kpa)
    b = _add(a, siga, [], kpb, skb, providers["B"])
    assert a.epoch == b.epoch == 1
    _all_hear(a, [b], b"A to B, epoch 1")
    _all_hear(b, [a], b"B to A, epoch 1")

    c = _add(a, siga, [b], kpc, skc, providers["C"])
    assert a.epoch == b.epoch == c.epoch == 2
    for sender in (a, b, c):
        others = [s for s in (a, b, c) if s is not sender]
        for i in range(3):
            _all_hear(sender, others, b"message %d from leaf %d" % (i, sender.own_leaf_index))
    # every session agrees on the epoch's secrets
    assert a.export_secret(b"x", b"", 32) == b.export_secret(b"x", b"", 32) == c.export_secret(b"x", b"", 32)
    # the poly1305x member both sealed and opened application messages, and
    # its Welcome/join used HPKE on poly1305x
    assert counting.seal > 0 and counting.open > 0 and counting.hpke > 0


def test_tampered_application_message_is_rejected(counting):
    pa = mls.CryptoProvider(SUITE)
    (kpa, _, siga), (kpb, skb, _) = _member(b"A"), _member(b"B")
    a = MLSGroupSession.create_with_config(_config(pa), b"g", kpa)
    b = _add(a, siga, [], kpb, skb, DefaultCryptoProvider(SUITE))
    delivered = []
    for sender, receiver in ((b, a), (a, b)):
        ct = sender.protect_application(b"attack at dawn")
        for pos in (len(ct) - 1, len(ct) - 20):
            bad = bytearray(ct)
            bad[pos] ^= 0x01
            opens = counting.open
            # rfc9420 lets the AEAD's error through: rfc9180's OpenError, from
            # the poly1305x provider as from the default one
            with pytest.raises(OpenError):
                delivered.append(receiver.unprotect_application(bytes(bad)))
            if receiver is a:
                assert counting.open > opens  # poly1305x checked (and refused) the tag
        assert receiver.unprotect_application(ct)[1] == b"attack at dawn"
    assert delivered == []


# -- rfc9420's own test suite, from its sdist, on the poly1305x provider -----

def test_rfc9420_own_suite(tmp_path):
    """The tests rfc9420 ships in its sdist, with every DefaultCryptoProvider
    they create replaced by poly1305x.mls.CryptoProvider (tests/support/peer_plugin.py).
    Its test-vector test wants a checkout of mls-implementations next to it:
    it gets the ChaCha20-Poly1305 entries this repository keeps
    (tests/vectors/mls_chacha20poly1305.json).  test_storage_sqlite.py is left
    out: it needs aiosqlite and no cryptography."""
    import shutil

    from tests.support import peer_sdist

    root = tmp_path / "rfc9420"
    shutil.copytree(peer_sdist.fetch("rfc9420"), root)
    vectors = root / "mls-implementations" / "test-vectors"
    vectors.mkdir(parents=True)
    (vectors / "crypto-basics.json").write_text(json.dumps(VECTORS["crypto_basics"]))
    (vectors / "message-protection.json").write_text(json.dumps(VECTORS["message_protection"]))
    proc, counts = peer_sdist.run(root, "rfc9420",
                                  ["tests", "--ignore", "tests/test_storage_sqlite.py"])
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    assert "test_vector_spec" not in proc.stdout  # (-rs lists skips; none of these)
    assert counts["mls_open"] > 0 and counts["mls_seal"] > 0 and counts["mls_hpke"] > 0, counts
