"""The AEAD step of each protocol integration, with and without poly1305x.

Per message, at 100 B and 16 KiB, in one run so the ratios compare like with
like.  Each group ("<operation>-<size>") has the library as it ships
(``library`` = its name) and the same call with poly1305x plugged in
(``library`` = ``poly1305x``); ``benchmarks/report.py`` prints the ratio.

=====================  ===================================================
operation              the call, per message
=====================  ===================================================
``mls-aead-seal``      rfc9420 provider ``aead_encrypt(key, nonce, pt, aad)``
                       (PrivateMessage content): ``poly1305x.mls
                       .CryptoProvider`` vs ``DefaultCryptoProvider``
``mls-aead-open``      the same, ``aead_decrypt``
``rfc9180-seal``       rfc9180 ``ContextSender.seal(aad, pt)``;
                       ``use_with_rfc9180()`` on vs off
``pyhpke-seal``        pyhpke context ``seal(pt, aad)``;
                       ``use_with_pyhpke()`` on vs off
``pycryptodome-hpke``  ``Crypto.Protocol.HPKE`` ``seal(pt, aad)``;
                       ``poly1305x.install()`` vs pycryptodome's own cipher
``noise-encrypt``      noiseprotocol ``NoiseConnection.encrypt(pt)`` after an
                       XX handshake; ``poly1305x.noise.backend()`` vs the
                       default backend
=====================  ===================================================

Run: ``python -m pytest benchmarks/test_bench_protocols.py
--benchmark-json=protocols.json && python benchmarks/report.py protocols.json``.
"""
import contextlib
import os

import pytest

from benchmarks.conftest import calibrate

import poly1305x
from poly1305x._tools import _bench

SIZES = (100, 16 * _bench.KiB)
AAD = b"associated data"


@contextlib.contextmanager
def _switch(on, off):
    """Run with an integration switch in the given state, then restore."""
    was = on()
    try:
        yield
    finally:
        off(was)


def _state(use_with, enable):
    return _switch(lambda: use_with(enable), use_with)


# -- the cases: (operation, native library name, setup(size, ours) -> callable)

def _mls(size, ours, op):
    from rfc9420.backends.crypto.default_hpke import DefaultCryptoProvider

    from poly1305x.mls import CryptoProvider

    p = CryptoProvider(0x0003) if ours else DefaultCryptoProvider(0x0003)
    key, nonce, pt = os.urandom(32), os.urandom(12), os.urandom(size)
    if op == "seal":
        return contextlib.nullcontext(), lambda: p.aead_encrypt(key, nonce, pt, AAD)
    ct = p.aead_encrypt(key, nonce, pt, AAD)
    return contextlib.nullcontext(), lambda: p.aead_decrypt(key, nonce, ct, AAD)


def _rfc9180(size, ours):
    from rfc9180 import AEADID, HPKE, KDFID, KEMID

    from poly1305x import hpke

    with _state(hpke.use_with_rfc9180, ours):
        h = HPKE(KEMID.DHKEM_X25519_HKDF_SHA256, KDFID.HKDF_SHA256, AEADID.CHACHA20_POLY1305)
        _, pk = h.generate_key_pair()
        _, ctx = h.setup.setup_base_sender(pk, b"info")
    pt = os.urandom(size)
    return contextlib.nullcontext(), lambda: ctx.seal(AAD, pt)


def _pyhpke(size, ours):
    from pyhpke import AEADId, CipherSuite, KDFId, KEMId

    from poly1305x import hpke

    with _state(hpke.use_with_pyhpke, ours):
        suite = CipherSuite.new(KEMId.DHKEM_X25519_HKDF_SHA256, KDFId.HKDF_SHA256,
                                AEADId.CHACHA20_POLY1305)
        kp = suite.kem.derive_key_pair(os.urandom(32))
        _, ctx = suite.create_sender_context(kp.public_key, b"info")
    pt = os.urandom(size)
    return contextlib.nullcontext(), lambda: ctx.seal(pt, AAD)


def _pycryptodome(size, ours):
    from Crypto.Protocol import HPKE
    from Crypto.PublicKey import ECC

    from poly1305x import _install

    key = ECC.generate(curve="X25519")
    ctx = HPKE.new(receiver_key=key.public_key(), aead_id=HPKE.AEAD.CHACHA20_POLY1305)
    pt = os.urandom(size)
    # HPKE builds a ChaCha20_Poly1305 object per message: install() must be
    # in force while the calls are timed
    if ours:
        state = _switch(lambda: (_install.installed(), poly1305x.install())[0],
                        lambda was: None if was else poly1305x.uninstall())
    else:
        state = _switch(lambda: (_install.installed(), poly1305x.uninstall())[0],
                        lambda was: poly1305x.install() if was else None)
    return state, lambda: ctx.seal(pt, AAD)


def _noise(size, ours):
    from noise.backends.default import noise_backend
    from noise.connection import Keypair, NoiseConnection

    from poly1305x import noise

    name = b"Noise_XX_25519_ChaChaPoly_SHA256"
    init = NoiseConnection.from_name(name, backend=noise.backend() if ours else noise_backend)
    resp = NoiseConnection.from_name(name)
    init.set_as_initiator()
    resp.set_as_responder()
    for c in (init, resp):
        c.set_keypair_from_private_bytes(Keypair.STATIC, os.urandom(32))
        c.start_handshake()
    resp.read_message(init.write_message())
    init.read_message(resp.write_message())
    resp.read_message(init.write_message())
    pt = os.urandom(size)
    return contextlib.nullcontext(), lambda: init.encrypt(pt)


CASES = {
    "mls-aead-seal": ("rfc9420", lambda size, ours: _mls(size, ours, "seal")),
    "mls-aead-open": ("rfc9420", lambda size, ours: _mls(size, ours, "open")),
    "rfc9180-seal": ("rfc9180", _rfc9180),
    "pyhpke-seal": ("pyhpke", _pyhpke),
    "pycryptodome-hpke": ("pycryptodome", _pycryptodome),
    "noise-encrypt": ("noiseprotocol", _noise),
}


def _params():
    out = []
    for operation, (native, _) in CASES.items():
        for size in SIZES:
            for library in ("poly1305x", native):
                out.append(pytest.param(operation, library, size,
                                        id=f"{operation}-{library}-{_bench.size_label(size)}"))
    return out


@pytest.mark.parametrize("operation,library,size", _params())
def test_protocol_aead_step(benchmark, operation, library, size):
    native, setup = CASES[operation]
    ours = library == "poly1305x"
    benchmark.group = _bench.group_name(operation, size)
    benchmark.extra_info.update({
        "library": library,
        "version": _bench.library_version("poly1305x") if ours else _version(native),
        "operation": operation,
        "size": size,
        "backend": poly1305x.backend() if ours else None,
    })
    state, fn = setup(size, ours)
    with state:
        iterations, rounds = calibrate(fn)
        benchmark.extra_info["iterations"] = iterations
        benchmark.pedantic(fn, rounds=rounds, iterations=iterations, warmup_rounds=1)


def _version(dist):
    import importlib.metadata

    return importlib.metadata.version(dist)
