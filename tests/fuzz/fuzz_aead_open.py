"""Fuzz target: the ChaCha20-Poly1305 / XChaCha20-Poly1305 decrypt path with
mutated ciphertext, tag, associated data and nonce, on every backend and both
faces.  A decryption must raise (InvalidTag / ValueError) and release no
plaintext -- decrypt_into's buffer is left untouched or zeroed -- unless the
input is exactly what was sealed, and then it must return the plaintext.

Input layout: backend, mode, nonce length, key, nonce, aad, plaintext
lengths, then a list of mutations (position, xor mask / truncation /
extension); mode 3 feeds the raw input as the ciphertext instead.  Sealing
uses cryptography / pycryptodome, not poly1305x.
"""
from tests.fuzz._common import Input, backends, fuzz_main

import poly1305x
from poly1305x import ChaCha20_Poly1305, InvalidTag
from poly1305x._core import _engine
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305

from Crypto.Cipher import ChaCha20_Poly1305 as PcdAEAD
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD

BACKENDS = backends()
SENTINEL = 0xC3


def _seal(key, nonce, aad, pt):
    if len(nonce) == 12:
        return CryptoAEAD(key).encrypt(nonce, pt, aad)
    c = PcdAEAD.new(key=key, nonce=nonce)
    c.update(aad)
    ct, tag = c.encrypt_and_digest(pt)
    return ct + tag


def _mutate(inp, blob):
    b = bytearray(blob)
    for _ in range(inp.u8() % 4):
        kind = inp.u8() % 4
        if kind <= 1 and b:                       # flip bits
            i = inp.u16() % len(b)
            b[i] ^= inp.u8() or 1
        elif kind == 2 and b:                     # truncate
            del b[inp.u16() % len(b):]
        elif kind == 3:                           # extend
            b += inp.bytes(inp.u8() % 40)
    return bytes(b)


def _expect_failure(what, call, out=None):
    try:
        result = call()
    except (InvalidTag, ValueError):
        if out is not None and any(x not in (0, SENTINEL) for x in out):
            raise AssertionError(f"{what}: failed decryption left plaintext in the buffer")
        return
    raise AssertionError(f"{what}: a forged / altered message decrypted to {result!r:.80}")


def TestOneInput(data):
    inp = Input(data)
    backend = inp.pick(BACKENDS)
    mode = inp.u8() % 4
    nlen = 24 if inp.u8() & 1 else 12
    key = inp.exact(32)
    nonce = inp.exact(nlen)
    aad = inp.bytes(inp.u8() % 64)
    pt = inp.bytes(inp.u16() % 1200)
    sealed = _seal(key, nonce, aad, pt)
    if mode == 3:                                 # the raw input as ciphertext
        c2, a2, n2 = inp.rest(), aad, nonce
    else:
        c2 = _mutate(inp, sealed) if mode in (0, 2) else sealed
        a2 = _mutate(inp, aad) if mode in (1, 2) else aad
        n2 = nonce
        if inp.u8() == 0xFF:
            n2 = bytes(x ^ 1 for x in nonce[:1]) + nonce[1:]
    genuine = c2 == sealed and a2 == aad and n2 == nonce

    before = poly1305x.backend()
    poly1305x.set_backend(backend)
    try:
        cls = ChaCha20Poly1305 if nlen == 12 else XChaCha20Poly1305
        aead = cls(key)
        out = bytearray([SENTINEL]) * max(len(c2) - 16, 0)
        if genuine:
            assert aead.decrypt(n2, c2, a2 or None) == pt
            assert aead.decrypt_into(n2, c2, a2, out) == len(pt) and out == pt
            d = ChaCha20_Poly1305.new(key=key, nonce=n2)
            d.update(a2)
            assert d.decrypt_and_verify(c2[:-16], c2[-16:]) == pt
            if nlen == 12:
                assert _engine.chacha20poly1305_open(key, n2, a2, c2) == pt
            return
        _expect_failure("decrypt", lambda: aead.decrypt(n2, c2, a2))
        if len(c2) >= 16:
            _expect_failure("decrypt_into", lambda: aead.decrypt_into(n2, c2, a2, out), out)
        d = ChaCha20_Poly1305.new(key=key, nonce=n2)
        d.update(a2)
        _expect_failure("decrypt_and_verify", lambda: d.decrypt_and_verify(c2[:-16], c2[-16:]))
        if nlen == 12:
            _expect_failure("chacha20poly1305_open",
                            lambda: _engine.chacha20poly1305_open(key, n2, a2, c2))
    finally:
        poly1305x.set_backend(before)


def main():
    fuzz_main(TestOneInput)


if __name__ == "__main__":
    main()
