"""Several threads on shared poly1305x objects and module state.

Written for free-threaded CPython run with PYTHON_GIL=0 (.ci/freethreaded.sh,
`nox -s freethreaded`), where the threads really run at once; on a GIL build
the same tests run with a tiny switch interval, so the threads interleave
between (and, for calls that release the GIL, inside) calls.

- Immutable key objects (aead.ChaCha20Poly1305, mac.Poly1305.generate_tag,
  hpke.ChaCha20Poly1305Key; XChaCha20Poly1305 and openssh.PacketCipher with
  fewer calls): 8 threads x 10,000 mixed calls on one object give exactly what
  one thread gets.
- Stateful objects (ChaCha20, streaming Poly1305, ChaCha20_Poly1305): 8 threads
  hammer one object; every call either completes correctly or raises the
  documented RuntimeError, and the object's state afterwards is what the
  completed calls, in some order, make it.
- Module state: backend selection and first loads (dispatch), install() and
  uninstall() racing imports of Crypto.Cipher.ChaCha20_Poly1305.

That importing poly1305x leaves the GIL off on a free-threaded build is
checked by the free-threaded CI step itself (it is meaningless on a GIL build).
"""
import importlib
import importlib.util
import os
import random
import subprocess
import sys
import textwrap

import pytest

from tests.support import helpers as _helpers

import poly1305x
from poly1305x import ChaCha20, ChaCha20_Poly1305, aead, hpke, mac
from poly1305x._core import _dispatch
from poly1305x._install import installed

NTHREADS = 8
CALLS = 10_000
BUSY = "being used by another thread"


@pytest.fixture(autouse=True)
def fast_switching():
    """On a GIL build, let threads take turns every microsecond instead of 5 ms."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def run_threads(target, n=NTHREADS):
    return _helpers.run_threads(target, n)


def _length(rng):
    """Mostly short messages (the GIL is held), sometimes one long enough for
    the engine to release the GIL (>= 4096 bytes)."""
    return rng.randrange(4096, 9000) if rng.random() < 0.02 else rng.randrange(0, 300)


# -- Immutable key objects: shared, lock-free, same results as one thread -----

def _aead_ops(seed, key_obj):
    """CALLS mixed operations with their single-thread results: seals, opens
    of good ciphertexts and opens of tampered ones (InvalidTag)."""
    rng = random.Random(seed)
    ops, expected = [], []
    for _ in range(CALLS):
        nonce = rng.randbytes(12)
        data = rng.randbytes(_length(rng))
        ad = rng.randbytes(rng.randrange(0, 40)) if rng.random() < 0.5 else None
        kind = rng.choice(("seal", "open", "tampered"))
        if kind == "seal":
            ops.append(("seal", nonce, data, ad))
            expected.append(key_obj.encrypt(nonce, data, ad))
        else:
            ct = bytearray(key_obj.encrypt(nonce, data, ad))
            if kind == "tampered":
                ct[rng.randrange(len(ct))] ^= 1 << rng.randrange(8)
            ops.append(("open", nonce, bytes(ct), ad))
            expected.append(data if kind == "open" else "InvalidTag")
    return ops, expected


def _run_aead_ops(key_obj, ops):
    out = []
    for kind, nonce, data, ad in ops:
        if kind == "seal":
            out.append(key_obj.encrypt(nonce, data, ad))
        else:
            try:
                out.append(key_obj.decrypt(nonce, data, ad))
            except poly1305x.InvalidTag:
                out.append("InvalidTag")
    return out


def test_shared_aead_object():
    shared = aead.ChaCha20Poly1305(bytes(range(32)))
    work = [_aead_ops(1000 + i, shared) for i in range(NTHREADS)]   # the single-thread reference
    got = run_threads(lambda i: _run_aead_ops(shared, work[i][0]))
    for i in range(NTHREADS):
        assert got[i] == work[i][1], f"thread {i} differs from the single-thread reference"


def test_shared_xchacha_aead_object():
    shared = aead.XChaCha20Poly1305(bytes(range(100, 132)))
    rng = random.Random(7)
    work = []
    for i in range(NTHREADS):
        ops = [(rng.randbytes(24), rng.randbytes(_length(rng)), rng.randbytes(8))
               for _ in range(CALLS // 10)]
        work.append((ops, [shared.encrypt(n, d, a) for n, d, a in ops]))

    def body(i):
        return [shared.decrypt(n, shared.encrypt(n, d, a), a) == d and shared.encrypt(n, d, a)
                for n, d, a in work[i][0]]
    got = run_threads(body)
    for i in range(NTHREADS):
        assert got[i] == work[i][1]


def test_shared_mac_generate_and_verify_tag():
    keys = [bytes(random.Random(k).randbytes(32)) for k in range(4)]
    work = []
    for i in range(NTHREADS):
        rng = random.Random(2000 + i)
        ops = [(keys[rng.randrange(4)], rng.randbytes(_length(rng))) for _ in range(CALLS)]
        work.append((ops, [mac.Poly1305.generate_tag(k, m) for k, m in ops]))

    def body(i):
        out = []
        for j, (k, m) in enumerate(work[i][0]):
            if j % 2:
                out.append(mac.Poly1305.generate_tag(k, m))
            else:        # verify_tag with the expected tag (None) or a wrong one
                tag = work[i][1][j]
                mac.Poly1305.verify_tag(k, m, tag)
                try:
                    mac.Poly1305.verify_tag(k, m, bytes(16) if tag != bytes(16) else b"\1" * 16)
                except poly1305x.InvalidSignature:
                    out.append(tag)
        return out
    got = run_threads(body)
    for i in range(NTHREADS):
        assert got[i] == work[i][1]


def test_shared_hpke_key():
    shared = hpke.ChaCha20Poly1305Key(bytes(range(32, 64)))

    class Shape:          # hpke's (pt, nonce, aad) argument order, for _aead_ops
        def encrypt(self, nonce, data, ad):
            return shared.seal(data, nonce, ad or b"")

        def decrypt(self, nonce, data, ad):
            return shared.open(data, nonce, ad or b"")
    shape = Shape()
    work = [_aead_ops(3000 + i, shape) for i in range(NTHREADS)]
    got = run_threads(lambda i: _run_aead_ops(shape, work[i][0]))
    for i in range(NTHREADS):
        assert got[i] == work[i][1]


def test_shared_openssh_packet_cipher():
    """One PacketCipher (the caller owns the sequence number) sealing and
    opening packets from 8 threads at once, each thread its own numbers."""
    from poly1305x.openssh import PacketCipher
    shared = PacketCipher(bytes(range(64)))
    work = []
    for i in range(NTHREADS):
        rng = random.Random(8000 + i)
        ops = []
        for j in range(CALLS // 5):
            body = rng.randbytes(_length(rng))
            ops.append((i * 100_000 + j, len(body).to_bytes(4, "big") + body))
        work.append((ops, [shared.seal(seq, pkt) for seq, pkt in ops]))

    def body(i):
        out = []
        for (seq, pkt), sealed in zip(*work[i]):
            out.append(shared.seal(seq, pkt))
            assert shared.open(seq, sealed) == pkt
            tampered = bytearray(sealed)
            tampered[-1] ^= 1
            with pytest.raises(poly1305x.InvalidTag):
                shared.open(seq, bytes(tampered))
        return out
    got = run_threads(body)
    for i in range(NTHREADS):
        assert got[i] == work[i][1]


# -- Stateful objects: a correct result or the documented RuntimeError --------

STATEFUL_CALLS = 300


def _hammer(call, seed):
    """STATEFUL_CALLS calls of call(length) from one thread: the (length,
    output) of each completed call, and how many raised the RuntimeError."""
    rng = random.Random(seed)
    done, refused = [], 0
    for _ in range(STATEFUL_CALLS):
        n = rng.randrange(4096, 12000) if rng.random() < 0.3 else rng.randrange(16, 300)
        try:
            done.append((n, call(n)))
        except RuntimeError as exc:
            assert BUSY in str(exc), exc
            refused += 1
    return done, refused


def _tiles(outputs, stream):
    """The outputs, each a piece of stream, cover stream exactly once, in some
    order: the calls each took a whole, fresh piece of the key stream."""
    by_head = {}
    for out in outputs:
        assert out[:16] not in by_head, "two calls got the same key stream"
        by_head[out[:16]] = out
    pos = 0
    while pos < len(stream):
        out = by_head.pop(stream[pos:pos + 16], None)
        assert out is not None, f"no call got the key stream at byte {pos}"
        assert out == stream[pos:pos + len(out)], f"the call at byte {pos} got a mangled key stream"
        pos += len(out)
    assert not by_head and pos == len(stream)


def _report(results):
    done = [d for ds, _ in results for d in ds]
    refused = sum(r for _, r in results)
    print(f"{len(done)} calls completed, {refused} refused with RuntimeError")
    return done


def test_hammer_chacha20_cipher():
    key, nonce = bytes(range(32)), bytes(range(12))
    shared = ChaCha20.new(key=key, nonce=nonce)
    done = _report(run_threads(lambda i: _hammer(lambda n: shared.encrypt(bytes(n)), 4000 + i)))
    total = sum(n for n, _ in done)
    stream = ChaCha20.new(key=key, nonce=nonce).encrypt(bytes(total + 64))
    _tiles([out for _, out in done], stream[:total])
    # The state after: the next call continues right after the last byte used.
    assert shared.encrypt(bytes(64)) == stream[total:]


def test_hammer_streaming_mac():
    key = bytes(range(64, 96))
    shared = mac.Poly1305(key)
    # One byte value everywhere: whatever order the updates ran in, the MAC'd
    # message is that byte times the total length.
    done = _report(run_threads(lambda i: _hammer(lambda n: shared.update(b"\x5a" * n), 5000 + i)))
    total = sum(n for n, _ in done)
    assert shared.finalize() == mac.Poly1305.generate_tag(key, b"\x5a" * total)


def test_hammer_pycryptodome_mac():
    key = bytes(range(32))
    shared = poly1305x.Poly1305.new(key=key, cipher=poly1305x.ChaCha20, nonce=bytes(12))
    done = _report(run_threads(lambda i: _hammer(lambda n: shared.update(b"\xa5" * n), 6000 + i)))
    total = sum(n for n, _ in done)
    ref = poly1305x.Poly1305.new(key=key, cipher=poly1305x.ChaCha20, nonce=bytes(12), data=b"\xa5" * total)
    assert shared.digest() == ref.digest()


def test_hammer_chacha20_poly1305_cipher():
    key, nonce = bytes(range(1, 33)), bytes(range(12))
    shared = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    shared.update(b"header")
    done = _report(run_threads(lambda i: _hammer(lambda n: shared.encrypt(bytes(n)), 7000 + i)))
    total = sum(n for n, _ in done)
    ref = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    ref.update(b"header")
    stream = ref.encrypt(bytes(total))
    _tiles([out for _, out in done], stream)
    # The tag covers the ciphertext in the order the calls ran, which is the
    # key stream's order: the single-thread tag.
    assert shared.digest() == ref.digest()


def test_concurrent_digest_and_finalize():
    """The finishing calls from 8 threads at once: pycryptodome-shaped
    digest() may be repeated and always gives the one tag; cryptography-
    shaped finalize() gives the tag once, then AlreadyFinalized.  A thread may
    also get the documented RuntimeError; never a different tag."""
    key, nonce = bytes(range(5, 37)), bytes(12)
    for round_ in range(50):
        msg = bytes([round_]) * (round_ * 61 + 5)
        ref = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        ref_ct, ref_tag = ref.encrypt_and_digest(msg)
        shared = ChaCha20_Poly1305.new(key=key, nonce=nonce)
        assert shared.encrypt(msg) == ref_ct

        def digest(i):
            try:
                return shared.digest()
            except RuntimeError as exc:
                assert BUSY in str(exc), exc
                return None
        tags = run_threads(digest)
        assert set(tags) - {None} == {ref_tag}, "a thread got a wrong tag"
        assert shared.digest() == ref_tag

        m = mac.Poly1305(key)
        m.update(msg)

        def finalize(i):
            try:
                return m.finalize()
            except poly1305x.AlreadyFinalized:
                return "finalized"
            except RuntimeError as exc:
                assert BUSY in str(exc), exc
                return None
        got = run_threads(finalize)
        assert got.count(mac.Poly1305.generate_tag(key, msg)) == 1, got
        assert set(got) <= {mac.Poly1305.generate_tag(key, msg), "finalized", None}, got


# -- Module state --------------------------------------------------------------

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
        run_threads(body)
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
        run_threads(body)
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
