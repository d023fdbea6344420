"""Hardening: huge lengths (2^32 and 2^38 bytes, address space only, no
memory), the key-stream limits, and seek() at the edges and with hostile
integers."""
import struct

import pytest

import poly1305x
from poly1305x import ChaCha20, ChaCha20_Poly1305, InvalidTag, MessageTooLongError
from poly1305x.aead import ChaCha20Poly1305
from poly1305x.mac import Poly1305
from tests.support.hardening import AEAD_MAX, poly1305_continue, poly1305_zeros, zero_map
from tests.support.helpers import backend_selected
from tests.support.reference import chacha20_block

from Crypto.Cipher import ChaCha20 as PcdChaCha20


@pytest.fixture
def default_backend():
    with backend_selected(poly1305x.backends()[0]) as name:
        yield name


def test_poly1305_over_4_gib(default_backend):
    """No 32-bit length truncation anywhere on the MAC path."""
    n = (1 << 32) + 5
    m = zero_map(n)
    key = bytes(range(7, 39))
    try:
        expected = poly1305_zeros(key, n)
        assert Poly1305.generate_tag(key, m.view) == expected
        p = Poly1305(key)                       # one chunk of 2^32 + 3, then 2 bytes
        p.update(m.view[:n - 2])
        p.update(m.view[n - 2:])
        assert p.finalize() == expected
    finally:
        m.close()


def test_aead_associated_data_over_4_gib(default_backend):
    """A 64-bit associated-data length in the final length block."""
    n = (1 << 32) + 3
    m = zero_map(n)
    key, nonce, pt = bytes(range(32)), bytes(range(12)), b"hello, world"
    try:
        sealed = ChaCha20Poly1305(key).encrypt(nonce, pt, m.view)
        otk = chacha20_block(key, 0, nonce)[:32]
        ct = sealed[:-16]
        assert ct == bytes(a ^ b for a, b in zip(pt, chacha20_block(key, 1, nonce)))
        tail = ct + bytes(-len(ct) % 16) + struct.pack("<QQ", n, len(ct))
        assert sealed[-16:] == poly1305_continue(otk, (n + 15) // 16, tail)
        assert ChaCha20Poly1305(key).decrypt(nonce, sealed, m.view) == pt
        c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        c.update(m.view)
        assert c.encrypt_and_digest(pt) == (ct, sealed[-16:])
    finally:
        m.close()


def test_aead_limit_2_pow_38():
    """Above 2^38 - 64 bytes of plaintext: encrypt raises OverflowError and
    decrypt InvalidTag, before any output is allocated (no MemoryError)."""
    m = zero_map((1 << 38) + 64)
    aead = ChaCha20Poly1305(bytes(32))
    try:
        with pytest.raises(OverflowError, match="2\\*\\*38"):
            aead.encrypt(bytes(12), m.view[:AEAD_MAX + 1], None)
        with pytest.raises(InvalidTag):
            aead.decrypt(bytes(12), m.view[:AEAD_MAX + 1 + 16], None)
        with pytest.raises(OverflowError):          # the length is checked first
            aead.encrypt_into(bytes(12), m.view[:AEAD_MAX + 1], None, bytearray(16))
    finally:
        m.close()


@pytest.mark.parametrize("nonce_len", [12, 24])
def test_stream_longer_than_key_stream_raises(nonce_len):
    """Asking a 32-bit-counter stream for more than 2^38 bytes is the
    documented MessageTooLongError, not a MemoryError or a wrapped counter."""
    m = zero_map((1 << 38) + 1)
    try:
        c = ChaCha20.new(key=bytes(32), nonce=bytes(nonce_len))
        with pytest.raises(MessageTooLongError, match="exhausted"):
            c.encrypt(m.view)
        c = ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(nonce_len))
        with pytest.raises(MessageTooLongError, match="exhausted"):
            c.encrypt(m.view)
    finally:
        m.close()


@pytest.mark.parametrize("position", [(1 << 32) - 7, (1 << 32) + 60, (1 << 38) - 64 - 5,
                                      (1 << 36) + 1])
def test_seek_near_2_pow_32_and_2_pow_38(backend, position):
    """Positions near 2^32 bytes and the 2^38-byte end of the 32-bit-counter
    stream agree with pycryptodome; the end raises, never wraps."""
    key, nonce = bytes(range(32)), bytes(range(12))
    n = min(100, (1 << 38) - position)
    ours, theirs = ChaCha20.new(key=key, nonce=nonce), PcdChaCha20.new(key=key, nonce=nonce)
    ours.seek(position)
    theirs.seek(position)
    assert ours.encrypt(bytes(n)) == theirs.encrypt(bytes(n))
    if position + n == (1 << 38):
        with pytest.raises(MessageTooLongError):
            ours.encrypt(b"x")


def test_seek_8_byte_nonce_across_2_pow_38(backend):
    """The 64-bit counter carries from word 12 into word 13 at 2^38 bytes."""
    key, nonce = bytes(range(32)), bytes(range(8))
    for position in ((1 << 38) - 100, (1 << 70) - 64 * 3 - 1):
        ours, theirs = ChaCha20.new(key=key, nonce=nonce), PcdChaCha20.new(key=key, nonce=nonce)
        ours.seek(position)
        theirs.seek(position)
        assert ours.encrypt(bytes(300)[:(1 << 70) - position]) == \
            theirs.encrypt(bytes(300)[:(1 << 70) - position])


def test_seek_bad_positions():
    c = ChaCha20.new(key=bytes(32), nonce=bytes(12))
    with pytest.raises(ValueError):
        c.seek(1 << 38)
    with pytest.raises(ValueError):
        ChaCha20.new(key=bytes(32), nonce=bytes(8)).seek(1 << 70)
    with pytest.raises(OverflowError):
        c.seek(-1)
    for bad in (1.5, "64", None, b"\x40"):
        with pytest.raises(TypeError):
            c.seek(bad)
    a = ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(12))
    with pytest.raises(ValueError):
        a._cipher.seek(1 << 38)
    with pytest.raises(TypeError):
        a._cipher.seek(2.0)




class LyingDivmod(int):
    """An int whose arithmetic lies: seek() must use its integer value only."""

    def __divmod__(self, other):
        return (0xFFFFFFFF, 100)

    def __floordiv__(self, other):
        return 0xFFFFFFFF

    def __mod__(self, other):
        return 100

    def __rshift__(self, other):
        return 0

    def __and__(self, other):
        return 100

    def __lt__(self, other):
        return False


class IndexOnly:
    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def test_seek_uses_the_integer_value_only(backend):
    """An int subclass whose __divmod__ returned
    (0xFFFFFFFF, 100) set an in-block offset of 100 and let 256 bytes 'past the
    end' repeat blocks 0-3."""
    key, nonce = bytes(range(32)), bytes(range(12))
    for pos in (LyingDivmod(5), LyingDivmod((1 << 38) - 64), IndexOnly(130)):
        ours = ChaCha20.new(key=key, nonce=nonce)
        theirs = PcdChaCha20.new(key=key, nonce=nonce)
        ours.seek(pos)
        theirs.seek(theirs_pos(pos))
        n = min(300, (1 << 38) - theirs_pos(pos))
        assert ours.encrypt(bytes(n)) == theirs.encrypt(bytes(n))
        a = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        a._cipher.seek(pos)
    with pytest.raises(ValueError):
        ChaCha20.new(key=key, nonce=nonce).seek(LyingDivmod(1 << 38))
    with pytest.raises(ValueError):
        ChaCha20.new(key=key, nonce=nonce).seek(IndexOnly(1 << 40))
    with pytest.raises(OverflowError):
        ChaCha20.new(key=key, nonce=nonce).seek(IndexOnly(-1))
    # at the very end, nothing is left: 256 bytes there are an error, not blocks 0-3
    c = ChaCha20.new(key=key, nonce=nonce)
    c.seek(LyingDivmod((1 << 38) - 64))
    c.encrypt(bytes(64))
    with pytest.raises(MessageTooLongError):
        c.encrypt(bytes(256))


def theirs_pos(pos):
    return pos.v if isinstance(pos, IndexOnly) else int(pos)
