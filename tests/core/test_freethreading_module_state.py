"""Several threads on poly1305x's module state: backend selection and first
loads (dispatch), install() and uninstall() racing imports of
Crypto.Cipher.ChaCha20_Poly1305.

Written for free-threaded CPython run with PYTHON_GIL=0, as
test_freethreading.py (which says more); on a GIL build the threads switch
every microsecond.
"""
import importlib
import importlib.util
import os
import random
import subprocess
import sys

import pytest

import poly1305x
from poly1305x import ChaCha20, aead
from poly1305x._core import _dispatch
from poly1305x._install import installed
from tests.support.helpers import run_threads
from tests.support.threads import NTHREADS, fastest_switch  # noqa: F401 - a fixture

pytestmark = pytest.mark.usefixtures("fastest_switch")


def test_backend_switching_while_sealing():
    """set_backend() from some threads while others create and use objects:
    every object works (each backend computes the same bytes)."""
    names = poly1305x.backends() + _dispatch.emulated_backends()
    before = poly1305x.backend()
    key, nonce = bytes(range(32)), bytes(12)
    msgs = [bytes([i]) * (i * 97) for i in range(64)]
    ref = [aead.ChaCha20Poly1305(key).encrypt(nonce, m, b"ad") for m in msgs]

    def body(i):
        rng = random.Random(i)
        for j in range(400):
            if i < 2:
                _dispatch.set_backend(rng.choice(names))
                assert poly1305x.backend() in names
            else:
                k = rng.randrange(len(msgs))
                assert aead.ChaCha20Poly1305(key).encrypt(nonce, msgs[k], b"ad") == ref[k]
                c = ChaCha20.new(key=key, nonce=nonce)
                assert c.encrypt(msgs[k]) == ChaCha20.new(key=key, nonce=nonce).encrypt(msgs[k])
    try:
        run_threads(body, NTHREADS)
    finally:
        _dispatch.set_backend(before)


FIRST_LOAD = """
import random, sys, threading
from poly1305x._core import _dispatch, _testing
names = _dispatch.backends() + _dispatch.emulated_backends()
# portable, and scalar: the reference the self-test checks every backend against
assert sorted(_dispatch._tables) == ["portable", "scalar"], sorted(_dispatch._tables)
key, msg = bytes(range(32)), bytes(range(256)) * 20
want = _testing.kernel_poly1305("portable", key, msg)
barrier = threading.Barrier(8)
errors = []
def body(i):
    try:
        barrier.wait()
        order = names[:]
        random.Random(i).shuffle(order)
        for name in order:
            if i % 2:
                _dispatch.set_backend(name)
            assert _testing.kernel_poly1305(name, key, msg) == want, name
    except BaseException as exc:
        errors.append(exc)
threads = [threading.Thread(target=body, args=(i,)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
assert not errors, errors
assert sorted(_dispatch._tables) == sorted(names), (sorted(_dispatch._tables), names)
print("ok", len(names))
"""


def test_first_load_of_backends_from_many_threads():
    """In a fresh process with only the portable backend (and its self-test's
    reference, scalar) loaded, 8 threads load
    and select every backend at once: each loads (import and self-test) once
    and every thread gets working kernels."""
    env = dict(os.environ, POLY1305X_BACKEND="portable")
    proc = subprocess.run([sys.executable, "-c", FIRST_LOAD], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("ok")


def test_install_uninstall_race_with_imports():
    """Two threads install() and uninstall() in a loop while six import
    Crypto.Cipher.ChaCha20_Poly1305 (and Cryptodome's twin) and use it: each
    import gives a working module (pycryptodome's or poly1305x's, both compute
    the same bytes), installed() is always all or nothing, and afterwards
    pycryptodome's modules, classes and functions are back exactly."""
    was_installed = installed()
    poly1305x.uninstall()
    families = [f for f in ("Crypto", "Cryptodome") if importlib.util.find_spec(f)]
    assert families, "the test extra installs pycryptodome and pycryptodomex"
    originals = {}
    for fam in families:
        name = f"{fam}.Cipher.ChaCha20_Poly1305"
        mod = importlib.import_module(name)
        originals[name] = (mod, mod.new, mod.ChaCha20Poly1305Cipher, sys.modules[f"{fam}.Cipher"])
    full = poly1305x.install()
    poly1305x.uninstall()
    key, nonce, msg = bytes(range(32)), bytes(range(12)), b"attack at dawn" * 50
    ref = originals[f"{families[0]}.Cipher.ChaCha20_Poly1305"][1](key=key, nonce=nonce) \
        .encrypt_and_digest(msg)

    def body(i):
        rng = random.Random(i)
        if i < 2:
            for _ in range(150):
                assert poly1305x.install() == full
                assert installed() in ((), full)
                poly1305x.uninstall()
            return
        for j in range(300):
            fam = rng.choice(families)
            if j % 2:
                mod = importlib.import_module(f"{fam}.Cipher.ChaCha20_Poly1305")
            else:
                mod = getattr(importlib.import_module(f"{fam}.Cipher"), "ChaCha20_Poly1305")
            assert mod.new(key=key, nonce=nonce).encrypt_and_digest(msg) == ref
            assert installed() in ((), full)
    try:
        run_threads(body, NTHREADS)
    finally:
        poly1305x.uninstall()
    assert installed() == ()
    for name, (mod, new, cls, parent) in originals.items():
        assert sys.modules[name] is mod
        assert mod.new is new and mod.ChaCha20Poly1305Cipher is cls
        assert sys.modules[name.rpartition(".")[0]] is parent
        assert getattr(parent, "ChaCha20_Poly1305") is mod
    if was_installed:
        poly1305x.install()
