"""Self-test behind ``python -m poly1305x selftest`` (and the first half of a
plain ``python -m poly1305x``).

* ``VECTORS``: RFC 8439 known answers (sections 2.5.2, 2.4.2 and 2.8.2) plus a
  few long inputs (long enough to reach the vector loops) whose answers were
  computed with an independent implementation;
* ``run_selftest()``: every backend is selected in turn (``using_backend``)
  and checked through the public faces, one PASS/FAIL line each.

Nothing here is needed at run time by the rest of the package.
"""
import hashlib
import sys
from contextlib import contextmanager

import poly1305x
from poly1305x._core import _dispatch
from poly1305x._kernels._vectors import AEAD_2_8_2, CHACHA20_2_4_2, POLY1305_2_5_2

__all__ = ["VECTORS", "pattern", "run_selftest", "selftest_backends", "using_backend"]

# --------------------------------------------------------------------------
# Known answers
# --------------------------------------------------------------------------

def _h(text):
    return bytes.fromhex("".join(text.split()))


def pattern(n, seed):
    """Deterministic filler bytes for the long known answers."""
    return bytes((i * 29 + seed) & 0xFF for i in range(n))


# Each vector is plain data so that a test can copy it and spoil one byte.
# A long output may be given as its SHA-256 (``ct_sha256``) instead of in full.
VECTORS = {
    "poly1305": [
        dict(name="RFC 8439 2.5.2", **POLY1305_2_5_2),
        {
            "name": "long 4099 B",
            "key": pattern(32, 1),
            "msg": pattern(4099, 2),
            "tag": _h("f6f43bee904283a5ae0b09d569977144"),
        },
    ],
    "chacha20": [
        dict(name="RFC 8439 2.4.2", **CHACHA20_2_4_2),
        {
            "name": "long 2051 B",
            "key": pattern(32, 3),
            "nonce": pattern(12, 4),
            "counter": 7,
            "pt": pattern(2051, 5),
            "ct_sha256": _h("c0da330410fc58bede290b4691b5cd6ef1540107436df6b258830a3405919096"),
        },
    ],
    "aead": [
        dict(name="RFC 8439 2.8.2", **AEAD_2_8_2),
        {
            "name": "long 3001 B",
            "key": pattern(32, 6),
            "nonce": pattern(12, 7),
            "aad": pattern(17, 8),
            "pt": pattern(3001, 9),
            "ct_sha256": _h("10eb28d16969b21f1441cf22d0c486a01a30d898a944989a9bfd9b2d88a652dd"),
            "tag": _h("3f23fd189a52062b4295eedd4a17e2c6"),
        },
    ],
}


def _same_ct(vec, ct):
    if "ct" in vec:
        return ct == vec["ct"]
    return hashlib.sha256(ct).digest() == vec["ct_sha256"]


def _chunks(data, step=37):
    """Uneven pieces, so that the incremental paths carry partial blocks."""
    return [data[i:i + step] for i in range(0, len(data), step)] or [b""]


def _check_poly1305(vec, backend):
    from poly1305x import Poly1305 as P
    from poly1305x.mac import Poly1305
    key, msg, tag = vec["key"], vec["msg"], vec["tag"]
    got = {}
    got["mac.Poly1305.generate_tag"] = Poly1305.generate_tag(key, msg)
    m = Poly1305(key)
    if m.backend != backend:
        raise AssertionError(f"object uses backend {m.backend!r}, not {backend!r}")
    for piece in _chunks(msg):
        m.update(piece)
    got["mac.Poly1305 update/finalize"] = m.finalize()
    got["Poly1305.Poly1305_MAC"] = P.Poly1305_MAC(key[:16], key[16:], msg).digest()
    return [name for name, value in got.items() if value != tag]


def _check_chacha20(vec, backend):
    from poly1305x import ChaCha20
    bad = []
    c = ChaCha20.new(key=vec["key"], nonce=vec["nonce"])
    if c.backend != backend:
        raise AssertionError(f"object uses backend {c.backend!r}, not {backend!r}")
    c.seek(64 * vec["counter"])
    if not _same_ct(vec, c.encrypt(vec["pt"])):
        bad.append("ChaCha20.encrypt")
    c = ChaCha20.new(key=vec["key"], nonce=vec["nonce"])
    c.seek(64 * vec["counter"])
    if not _same_ct(vec, b"".join(c.encrypt(p) for p in _chunks(vec["pt"]))):
        bad.append("ChaCha20.encrypt in pieces")
    return bad


def _check_aead(vec, backend):
    from poly1305x import ChaCha20_Poly1305
    from poly1305x._core._engine import chacha20poly1305_seal
    from poly1305x.aead import ChaCha20Poly1305
    key, nonce, aad, pt, tag = vec["key"], vec["nonce"], vec["aad"], vec["pt"], vec["tag"]
    bad = []

    def ok(ct_tag):
        return _same_ct(vec, ct_tag[:-16]) and ct_tag[-16:] == tag

    a = ChaCha20Poly1305(key)
    if a.backend != backend:
        raise AssertionError(f"object uses backend {a.backend!r}, not {backend!r}")
    sealed = a.encrypt(nonce, pt, aad)
    if not ok(sealed):
        bad.append("aead.ChaCha20Poly1305.encrypt")
    else:
        try:
            if a.decrypt(nonce, sealed, aad) != pt:
                bad.append("aead.ChaCha20Poly1305.decrypt")
        except Exception:
            bad.append("aead.ChaCha20Poly1305.decrypt")
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    c.update(aad)
    ct, t = c.encrypt_and_digest(pt)
    if not ok(ct + t):
        bad.append("ChaCha20_Poly1305.encrypt_and_digest")
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    c.update(aad)
    ct = b"".join(c.encrypt(p) for p in _chunks(pt))
    if not ok(ct + c.digest()):
        bad.append("ChaCha20_Poly1305 streaming")
    if not ok(chacha20poly1305_seal(key, nonce, aad, pt)):
        bad.append("chacha20poly1305_seal")
    return bad


_CHECKS = (("Poly1305", "poly1305", _check_poly1305),
           ("ChaCha20", "chacha20", _check_chacha20),
           ("ChaCha20-Poly1305", "aead", _check_aead))


@contextmanager
def using_backend(name):
    """Select ``name`` for the objects made inside the block, then restore."""
    before = poly1305x.backend()
    if name is None or name == before:
        yield
        return
    poly1305x.set_backend(name)
    try:
        yield
    finally:
        poly1305x.set_backend(before)


def selftest_backends():
    """(name, emulated) for every backend the self-test covers."""
    return ([(b, False) for b in poly1305x.backends()]
            + [(b, True) for b in _dispatch.emulated_backends()])


def run_selftest(vectors=None, backends=None, out=None):
    """Check every backend against the known answers; True when all pass.

    ``vectors`` defaults to ``VECTORS``; ``backends`` to ``selftest_backends()``
    (names, or (name, emulated) pairs).  One PASS/FAIL line per backend goes to
    ``out`` (stdout by default)."""
    vectors = VECTORS if vectors is None else vectors
    out = sys.stdout if out is None else out
    todo = selftest_backends() if backends is None else [
        b if isinstance(b, tuple) else (b, b in _dispatch.emulated_backends()) for b in backends]
    all_ok = True
    for name, emulated in todo:
        label = f"{name} (emulated, test only)" if emulated else name
        failures, count = [], 0
        try:
            with using_backend(name):
                for title, key, check in _CHECKS:
                    for vec in vectors.get(key, ()):
                        count += 1
                        try:
                            bad = check(vec, name)
                        except Exception as exc:  # a crash is a failure too
                            bad = [f"{type(exc).__name__}: {exc}"]
                        failures += [f"{title} {vec['name']}: {b}" for b in bad]
        except Exception as exc:  # the backend would not load
            failures.append(f"cannot select backend: {type(exc).__name__}: {exc}")
        if failures:
            all_ok = False
            print(f"FAIL  {label}", file=out)
            for f in failures:
                print(f"        {f}", file=out)
        else:
            print(f"PASS  {label}  ({count} known answers)", file=out)
    if not todo:
        print("FAIL  no backend to test", file=out)
        all_ok = False
    return all_ok
