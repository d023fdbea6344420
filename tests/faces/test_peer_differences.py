"""The differences from the peers that are not about arguments, each as one
call sequence run against the peer and against poly1305x: non-contiguous
buffers (BufferError), cryptography's verify(signature=) and its TypeError
that leaves the object usable, weak references.  (The drop-in line and the
nonces and keys are in tests/faces/test_dropin.py.)
"""
import types
import weakref

import pytest

import Crypto.Cipher.ChaCha20 as CryptoChaCha20
import Crypto.Cipher.ChaCha20_Poly1305 as CryptoChaCha20_Poly1305
import Crypto.Hash.Poly1305 as CryptoPoly1305
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CgAEAD
from cryptography.hazmat.primitives.poly1305 import Poly1305 as CgPoly1305

import poly1305x
from poly1305x import ChaCha20, ChaCha20_Poly1305, Poly1305
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
from poly1305x.mac import Poly1305 as MacPoly1305
from tests.support.helpers import strided

K = bytes(range(32))
N12 = bytes(range(100, 112))


# ---------------------------------------------------------------------------
# Non-contiguous buffers: BufferError, as both peers raise
# ---------------------------------------------------------------------------

def _crypto_nc_calls(m):
    """pycryptodome-face calls with a strided buffer, by name."""
    return {
        "chacha data": lambda: m.ChaCha20.new(key=K, nonce=N12).encrypt(strided(40)),
        "chacha output": lambda: m.ChaCha20.new(key=K, nonce=N12).encrypt(
            b"a" * 40, output=strided(40, writable=True)),
        "chacha decrypt output": lambda: m.ChaCha20.new(key=K, nonce=N12).decrypt(
            b"a" * 40, output=strided(40, writable=True)),
        "chacha key": lambda: m.ChaCha20.new(key=strided(32), nonce=N12),
        "aead key": lambda: m.ChaCha20_Poly1305.new(key=strided(32), nonce=N12),
        "aead aad": lambda: m.ChaCha20_Poly1305.new(key=K, nonce=N12).update(strided(20)),
        "aead data": lambda: m.ChaCha20_Poly1305.new(key=K, nonce=N12).encrypt(strided(20)),
        "aead output": lambda: m.ChaCha20_Poly1305.new(key=K, nonce=N12).encrypt(
            b"a" * 20, output=strided(20, writable=True)),
        "aead decrypt output": lambda: m.ChaCha20_Poly1305.new(key=K, nonce=N12).decrypt(
            b"a" * 20, output=strided(20, writable=True)),
        "aead tag": lambda: m.ChaCha20_Poly1305.new(key=K, nonce=N12).decrypt_and_verify(
            b"", strided(16)),
        "poly data": lambda: m.Poly1305.new(key=K, cipher=m.ChaCha20, nonce=N12,
                                            data=strided(20)),
        "poly update": lambda: m.Poly1305.new(key=K, cipher=m.ChaCha20, nonce=N12).update(
            strided(20)),
        "poly tag": lambda: m.Poly1305.new(key=K, cipher=m.ChaCha20, nonce=N12).verify(
            strided(16)),
        "poly key": lambda: m.Poly1305.new(key=strided(32), cipher=m.ChaCha20, nonce=N12),
    }


def _cg_nc_calls(mac, aead):
    """cryptography-face calls with a strided buffer, by name."""
    sealed = aead(K).encrypt(N12, b"a" * 16, None)
    return {
        "mac key": lambda: mac(strided(32)),
        "mac update": lambda: mac(K).update(strided(20)),
        "mac generate_tag data": lambda: mac.generate_tag(K, strided(20)),
        "mac generate_tag key": lambda: mac.generate_tag(strided(32), b"x"),
        "aead key": lambda: aead(strided(32)),
        "aead data": lambda: aead(K).encrypt(N12, strided(20), None),
        "aead aad": lambda: aead(K).encrypt(N12, b"x", strided(20)),
        "aead nonce": lambda: aead(K).encrypt(strided(12), b"x", None),
        "aead decrypt data": lambda: aead(K).decrypt(N12, strided(32), None),
        "aead encrypt_into buf": lambda: aead(K).encrypt_into(
            N12, b"a" * 16, None, strided(32, writable=True)),
        "aead decrypt_into buf": lambda: aead(K).decrypt_into(
            N12, sealed, None, strided(16, writable=True)),
    }


PEERS = types.SimpleNamespace(ChaCha20=CryptoChaCha20, ChaCha20_Poly1305=CryptoChaCha20_Poly1305,
                              Poly1305=CryptoPoly1305)
OURS = types.SimpleNamespace(ChaCha20=ChaCha20, ChaCha20_Poly1305=ChaCha20_Poly1305,
                             Poly1305=Poly1305)


@pytest.mark.parametrize("name", sorted(_crypto_nc_calls(OURS)))
def test_noncontiguous_is_a_buffer_error_pycryptodome(name):
    with pytest.raises(BufferError):
        _crypto_nc_calls(PEERS)[name]()
    with pytest.raises(BufferError):
        _crypto_nc_calls(OURS)[name]()


@pytest.mark.parametrize("name", sorted(_cg_nc_calls(MacPoly1305, ChaCha20Poly1305)))
def test_noncontiguous_is_a_buffer_error_cryptography(name):
    with pytest.raises(BufferError):
        _cg_nc_calls(CgPoly1305, CgAEAD)[name]()
    with pytest.raises(BufferError) as info:
        _cg_nc_calls(MacPoly1305, ChaCha20Poly1305)[name]()
    assert isinstance(info.value, TypeError)      # what poly1305x raised before: still caught
    assert isinstance(info.value, poly1305x._errors.NotContiguousError)


def test_noncontiguous_elsewhere_is_a_buffer_error():
    with pytest.raises(BufferError):
        XChaCha20Poly1305(K).encrypt(bytes(24), strided(10), None)
    with pytest.raises(BufferError):
        MacPoly1305.verify_tag(K, strided(8), bytes(16))


def test_read_only_output_stays_a_type_error():
    # not writable (and contiguous): the peers' TypeError, not a BufferError
    for m in (PEERS, OURS):
        with pytest.raises(TypeError, match="output must be a bytearray") as info:
            m.ChaCha20.new(key=K, nonce=N12).encrypt(b"abc", output=b"xyz")
        assert not isinstance(info.value, BufferError)
    for aead in (CgAEAD, ChaCha20Poly1305):
        with pytest.raises(TypeError, match="Buffer is not writable") as info:
            aead(K).encrypt_into(N12, b"a", None, bytes(17))
        assert not isinstance(info.value, BufferError)


# ---------------------------------------------------------------------------
# cryptography's Poly1305.verify
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cls", [CgPoly1305, MacPoly1305], ids=["cryptography", "poly1305x"])
def test_verify_signature_keyword(cls):
    tag = CgPoly1305.generate_tag(K, b"msg")
    p = cls(K)
    p.update(b"msg")
    p.verify(signature=tag)
    cls.verify_tag(key=K, data=b"msg", tag=tag)


@pytest.mark.parametrize("bad", ["x" * 16, None, 16], ids=["str", "None", "int"])
def test_verify_type_error_leaves_the_object_usable(bad):
    def run(cls):
        p = cls(K)
        p.update(b"part one, ")
        with pytest.raises(TypeError):
            p.verify(bad)
        p.update(b"part two")                # still open
        return p.finalize()

    assert run(MacPoly1305) == run(CgPoly1305) == CgPoly1305.generate_tag(
        K, b"part one, part two")


def test_verify_takes_any_bytes_like_tag():
    # by design: cryptography wants bytes exactly; poly1305x takes any buffer
    tag = CgPoly1305.generate_tag(K, b"msg")
    for wrapped in (bytearray(tag), memoryview(tag)):
        with pytest.raises(TypeError):
            CgPoly1305.verify_tag(K, b"msg", wrapped)
        MacPoly1305.verify_tag(K, b"msg", wrapped)
        p = MacPoly1305(K)
        p.update(b"msg")
        p.verify(wrapped)


def test_invalid_tag_is_also_a_value_error():
    from cryptography.exceptions import InvalidSignature, InvalidTag
    sealed = ChaCha20Poly1305(K).encrypt(N12, b"data", None)
    for exc in (InvalidTag, ValueError):
        with pytest.raises(exc):
            ChaCha20Poly1305(K).decrypt(N12, sealed[:-1] + bytes([sealed[-1] ^ 1]), None)
    assert not issubclass(InvalidTag, ValueError)          # cryptography's own class
    for exc in (InvalidSignature, ValueError):
        with pytest.raises(exc):
            MacPoly1305.verify_tag(K, b"msg", bytes(16))


def test_verify_wrong_tag_still_finalizes():
    from cryptography.exceptions import InvalidSignature
    for cls in (CgPoly1305, MacPoly1305):
        p = cls(K)
        with pytest.raises(InvalidSignature):      # poly1305x's subclasses it
            p.verify(b"x" * 15)
        with pytest.raises(Exception, match="already finalized"):
            p.finalize()


def test_pycryptodome_verify_type_error_finishes_the_mac():
    # pycryptodome computes its tag before it looks at the argument
    for m in (PEERS, OURS):
        mac = m.Poly1305.new(key=K, cipher=m.ChaCha20, nonce=N12, data=b"abc")
        with pytest.raises(TypeError):
            mac.verify("x" * 16)
        with pytest.raises(TypeError, match="only call 'digest'"):
            mac.update(b"more")


# ---------------------------------------------------------------------------
# Weak references
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda m: m.ChaCha20.new(key=K, nonce=N12),
    lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12),
    lambda m: m.Poly1305.new(key=K, cipher=m.ChaCha20, nonce=N12),
], ids=["ChaCha20", "ChaCha20_Poly1305", "Poly1305"])
def test_weakref(make):
    for m in (PEERS, OURS):
        obj = make(m)
        ref = weakref.ref(obj)
        assert ref() is obj
        del obj
        assert ref() is None
