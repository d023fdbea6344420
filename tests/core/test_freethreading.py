"""Several threads on shared poly1305x objects and module state.

Written for free-threaded CPython run with PYTHON_GIL=0 (.ci/freethreaded.sh,
`nox -s freethreaded`), where the threads really run at once; on a GIL build
the same tests run with a tiny switch interval, so the threads interleave
between (and, for calls that release the GIL, inside) calls.

- Immutable key objects (this module: aead.ChaCha20Poly1305,
  mac.Poly1305.generate_tag, hpke.ChaCha20Poly1305Key; XChaCha20Poly1305 and
  openssh.PacketCipher with fewer calls): 8 threads x 10,000 mixed calls on
  one object give exactly what one thread gets.
- Stateful objects (test_freethreading_stateful.py: ChaCha20, streaming
  Poly1305, ChaCha20_Poly1305): 8 threads hammer one object; every call
  either completes correctly or raises the documented RuntimeError, and the
  object's state afterwards is what the completed calls, in some order, make it.
- Module state (test_freethreading_module_state.py): backend selection and
  first loads (dispatch), install() and uninstall() racing imports of
  Crypto.Cipher.ChaCha20_Poly1305.

That importing poly1305x leaves the GIL off on a free-threaded build is
checked by the free-threaded CI step itself (it is meaningless on a GIL build).
"""
import random

import pytest

import poly1305x
from poly1305x import aead, hpke, mac
from tests.support.helpers import run_threads
from tests.support.threads import NTHREADS, fastest_switch  # noqa: F401 - a fixture

CALLS = 10_000

pytestmark = pytest.mark.usefixtures("fastest_switch")


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
    got = run_threads(lambda i: _run_aead_ops(shared, work[i][0]), NTHREADS)
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
    got = run_threads(body, NTHREADS)
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
    got = run_threads(body, NTHREADS)
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
    got = run_threads(lambda i: _run_aead_ops(shape, work[i][0]), NTHREADS)
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
    got = run_threads(body, NTHREADS)
    for i in range(NTHREADS):
        assert got[i] == work[i][1]
