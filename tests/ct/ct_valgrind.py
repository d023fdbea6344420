"""Constant-time check with valgrind memcheck (run by tests/ct/run.sh).

Every secret -- keys, one-time keys, plaintexts, the tags computed from them
-- is marked undefined with a valgrind client request before it reaches
poly1305x, and the results are declassified when they come back.  memcheck
then reports any branch or memory index that depends on a secret
("Conditional jump or move depends on uninitialised value(s)" / "Use of
uninitialised value" in address computations) anywhere in the call: the
kernels of every backend, tags_equal, the engine's buffer code.

By design one decision depends on secrets: whether a tag matched.  The
caller branches on that boolean (raise or return).  run.sh accepts reports
only at those sites (the result of tags_equal being used); any report inside
tags_equal, a kernel or the MAC / stream code is a failure.
"""
import ctypes
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
lib = ctypes.CDLL(os.environ["CT_MARK_LIB"])
lib.ct_secret.argtypes = lib.ct_public.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
lib.ct_canary_leaky_compare.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]

import poly1305x  # noqa: E402

# The -g build in the working directory (run.sh puts it first on PYTHONPATH),
# not an installed or editable copy: a stripped module gives memcheck no
# function or line to report, and every branch would look unexplained.
_here = os.path.realpath(os.getcwd()) + os.sep
if not os.path.realpath(poly1305x.__file__).startswith(_here):
    sys.exit(f"ct_valgrind: poly1305x imported from {poly1305x.__file__}, not the -g build in {_here}")
from poly1305x import ChaCha20, ChaCha20_Poly1305, InvalidSignature, InvalidTag  # noqa: E402
from poly1305x import Poly1305 as PolyFace  # noqa: E402
from poly1305x._core import _dispatch  # noqa: E402
from poly1305x import aead as aeads  # noqa: E402
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305  # noqa: E402
from poly1305x.mac import Poly1305  # noqa: E402


def _addr(buf):
    if isinstance(buf, bytes):
        return ctypes.cast(ctypes.c_char_p(buf), ctypes.c_void_p).value
    return ctypes.addressof((ctypes.c_char * len(buf)).from_buffer(buf))


def secret(data):
    """A bytearray copy of data, marked undefined (secret) for memcheck."""
    b = bytearray(data)
    if b:
        lib.ct_secret(_addr(b), len(b))
    return b


def public(result):
    """Declassify a result the library returned (bytes / bytearray)."""
    if isinstance(result, (bytes, bytearray)) and len(result):
        lib.ct_public(_addr(result), len(result))
    return result


def phase(name):
    # a marker in valgrind's log, so reports can be attributed
    sys.stderr.write(f"CT-PHASE {name}\n")
    sys.stderr.flush()


SIZES = (0, 15, 16, 64, 300, 1000, 5000)
KEY = bytes(range(1, 33))


def run(backend):
    poly1305x.set_backend(backend)
    for n in SIZES:
        msg = bytes((i * 7) & 0xFF for i in range(n))
        phase(f"{backend} poly1305 n={n}")
        tag = public(Poly1305.generate_tag(secret(KEY), secret(msg)))
        p = Poly1305(secret(KEY))
        p.update(secret(msg[:n // 3]))
        p.update(secret(msg[n // 3:]))
        assert public(p.finalize()) == tag
        m = PolyFace.new(key=secret(KEY), cipher=ChaCha20, nonce=bytes(12), data=secret(msg))
        public(m.digest())

        phase(f"{backend} chacha20 n={n}")
        for nonce in (bytes(8), bytes(12), bytes(24)):
            c = ChaCha20.new(key=secret(KEY), nonce=nonce)
            public(c.encrypt(secret(msg[:n // 2])))
            public(c.encrypt(secret(msg[n // 2:])))

        phase(f"{backend} aead-seal n={n}")
        sealed = public(ChaCha20Poly1305(secret(KEY)).encrypt(bytes(12), secret(msg), b"ad"))
        xsealed = public(XChaCha20Poly1305(secret(KEY)).encrypt(bytes(24), secret(msg), b"ad"))
        c = ChaCha20_Poly1305.new(key=secret(KEY), nonce=bytes(12))
        c.update(b"ad")
        ct, t2 = c.encrypt_and_digest(secret(msg))
        public(ct), public(t2)

        # Verification: the computed tag is secret until compared; the branch
        # on the comparison's result is the one expected report site.
        phase(f"{backend} verify n={n}")
        try:
            Poly1305.verify_tag(secret(KEY), secret(msg), tag)
        except InvalidSignature:
            raise AssertionError("good tag refused")
        bad = bytearray(tag)
        bad[0] ^= 1
        try:
            Poly1305.verify_tag(secret(KEY), secret(msg), bytes(bad))
            raise AssertionError("bad tag accepted")
        except InvalidSignature:
            pass

        phase(f"{backend} aead-open n={n}")
        pt = public(ChaCha20Poly1305(secret(KEY)).decrypt(bytes(12), sealed, b"ad"))
        assert pt == msg
        public(XChaCha20Poly1305(secret(KEY)).decrypt(bytes(24), xsealed, b"ad"))
        forged = bytearray(sealed)
        forged[-1] ^= 1
        try:
            ChaCha20Poly1305(secret(KEY)).decrypt(bytes(12), bytes(forged), b"ad")
            raise AssertionError("forgery accepted")
        except InvalidTag:
            pass

        # Many messages in one call: the multi-buffer kernels (lanes), the
        # per-message path for long ones, and the batch's tag checks.
        phase(f"{backend} aead-batch n={n}")
        nonces = [bytes([i]) * 12 for i in range(1, 6)]
        plain = [msg, msg[: n // 2], msg[: n // 3], b"x", msg]
        msgs = [secret(m) for m in plain]
        aads = [b"ad", None, b"", b"ad" * 200, b"ad"]
        a = ChaCha20Poly1305(secret(KEY))
        cts = [public(c) for c in a.encrypt_many(nonces, msgs, aads)]
        assert [public(p) for p in a.decrypt_many(nonces, cts, aads)] == plain
        cts[2] = cts[2][:-1] + bytes([cts[2][-1] ^ 1])
        got = a.decrypt_many(nonces, cts, aads, strict=False)
        assert got[2] is None and [public(p) for p in got if p is not None]
        try:
            a.decrypt_many(nonces, cts, aads)
            raise AssertionError("forgery accepted")
        except InvalidTag:
            pass
        x = XChaCha20Poly1305(secret(KEY))
        keys = [a, x, secret(KEY), x, x]       # three XChaCha20 lanes: batch HChaCha20
        xn = [nonces[0], bytes(24), nonces[2], bytes([2]) * 24, bytes([1]) * 24]
        for c in aeads.encrypt_many(keys, xn, msgs, None):
            public(c)


def main():
    if not lib.ct_running_on_valgrind():
        print("ct_valgrind.py: not running under valgrind (use tests/ct/run.sh)",
              file=sys.stderr)
    names = sys.argv[1:] or (poly1305x.backends() + _dispatch.emulated_backends())
    phase("positive control")
    a, b = secret(KEY), secret(KEY[::-1])
    lib.ct_canary_leaky_compare(_addr(a), _addr(b), 32)
    for b in names:
        run(b)
    phase("done")
    print("ct_valgrind.py: backends checked:", ", ".join(names), file=sys.stderr)


if __name__ == "__main__":
    main()
