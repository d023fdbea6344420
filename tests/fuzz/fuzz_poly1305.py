"""Fuzz target: Poly1305 with random chunking, buffer types and alignments on
every backend, against the big-integer reference (tests/support/reference.py).

Input layout: backend, face, key (32), a list of chunk lengths, then the
message.  Any difference from the reference, or any exception, is a finding.
"""
import sys

from tests.fuzz._common import Input, backends, fuzz_main

import poly1305x
from poly1305x import ChaCha20
from poly1305x import Poly1305 as PolyFace
from poly1305x._core import _engine
from poly1305x.mac import Poly1305
from tests.support.reference import poly1305 as ref_poly1305

BACKENDS = backends()
MAX_MSG = 4096


def _wrap(kind, chunk):
    """The chunk as some kind of buffer, at an odd alignment when asked."""
    if kind == 0:
        return bytes(chunk)
    if kind == 1:
        return bytearray(chunk)
    if kind == 2:                      # a view into a bigger buffer, misaligned
        big = bytearray(3) + bytearray(chunk) + bytearray(5)
        return memoryview(big)[3:3 + len(chunk)]
    if kind == 3:
        return memoryview(bytes(chunk))
    import array
    return array.array("B", chunk)


def TestOneInput(data):
    inp = Input(data)
    backend = inp.pick(BACKENDS)
    face = inp.u8() % 4
    key = inp.exact(32)
    ncuts = inp.u8() % 8
    cuts = [inp.u16() % 600 for _ in range(ncuts)]
    kinds = inp.u8()
    msg = inp.rest()[:MAX_MSG]
    expected = ref_poly1305(key, msg)

    before = poly1305x.backend()
    poly1305x.set_backend(backend)
    try:
        chunks, pos = [], 0
        for i, c in enumerate(cuts):
            chunks.append(_wrap((kinds >> (i % 4)) % 5, msg[pos:pos + c]))
            pos += c
        chunks.append(_wrap(kinds % 5, msg[pos:]))
        if face == 0:                  # cryptography face, streaming
            p = Poly1305(key)
            for c in chunks:
                p.update(c)
            got = p.finalize()
        elif face == 1:                # cryptography face, one shot + verify
            got = Poly1305.generate_tag(_wrap(kinds % 5, key), _wrap(kinds % 5, msg))
            Poly1305.verify_tag(key, msg, expected)
            bad = bytearray(expected)
            bad[kinds % 16] ^= 1 << (kinds % 8)
            try:
                Poly1305.verify_tag(key, msg, bytes(bad))
            except poly1305x.InvalidSignature:
                pass
            else:
                raise AssertionError("verify_tag accepted a wrong tag")
        elif face == 2:                # pycryptodome face (r, s given directly)
            m = _engine.Poly1305_MAC(key[:16], key[16:], None)
            for c in chunks:
                m.update(c)
            got = m.digest()
            m.verify(expected)
        else:                          # streaming verify
            p = Poly1305(key)
            for c in chunks:
                p.update(c)
            p.verify(expected)
            got = expected
    finally:
        poly1305x.set_backend(before)
    if got != expected:
        raise AssertionError(f"backend {backend} face {face}: tag {got.hex()} != "
                             f"{expected.hex()} (len {len(msg)}, cuts {cuts})")


def main():
    fuzz_main(TestOneInput)


if __name__ == "__main__":
    main()
