"""ChaCha20 through the public faces, aimed at the multi-block steps of the
kernels (4 and 8 blocks on the portable backends -- on x86 5, four in vectors
and one in scalar registers -- and 8 and 16 on the x86 ones): every length up
to 1 KiB and around each multiple of 256 and of 320 bytes, random chunkings
across encrypt() calls, seek() to every offset modulo 320, the
32-bit counter running out inside a step (12- and 24-byte nonces), the 64-bit
counter of the 8-byte-nonce variant crossing 2^32 inside a step, in-place and
overlapping ``output=``, and the AEAD's short-message path (up to 8 blocks in
one kernel call).

Oracles: pycryptodome (as installed), cryptography (OpenSSL) and the
big-integer reference in tests/support/reference.py.  Every test runs on every
backend through the ``backend`` fixture."""
import random
import struct

import pytest

import poly1305x
from tests.support import reference
from poly1305x import ChaCha20, ChaCha20_Poly1305
from poly1305x.aead import ChaCha20Poly1305

from Crypto.Cipher import ChaCha20 as PyChaCha20  # noqa: E402
from Crypto.Cipher import ChaCha20_Poly1305 as PyAEAD  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms  # noqa: E402
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD  # noqa: E402

from poly1305x._kernels import _portable

# The portable backends' vector ChaCha20 takes 5-block steps (4 vector + 1
# scalar) on x86-64 CPUs with AVX2 and 4-block steps on other x86: every test
# here runs with this CPU's choice and, where that is 5, with 4 forced too.
STEPS = sorted({_portable.vec_step_blocks(), 4}, reverse=True)


@pytest.fixture(autouse=True, params=STEPS, ids=lambda n: f"step{n}")
def vec_step(request):
    before = _portable.vec_step_blocks()
    _portable._set_vec_step_blocks(request.param)
    try:
        yield request.param
    finally:
        _portable._set_vec_step_blocks(before)


def test_the_step_follows_the_cpu():
    """5 exactly on x86-64 vector builds on a CPU with AVX2; 8 off x86."""
    import platform
    machine = platform.machine().lower()
    if not _portable.HAVE_VEC:
        want = 8
    elif machine in ("x86_64", "amd64"):
        want = 5 if "avx2" in poly1305x.cpu_features() else 4
    elif machine in ("i386", "i686", "x86"):
        want = 4
    else:
        want = 8
    assert max(STEPS) == want


KEY = bytes(range(1, 33))
NONCES = {8: bytes(range(40, 48)), 12: bytes(range(50, 62)), 24: bytes(range(70, 94))}
RNG_DATA = random.Random(2560).randbytes(8192 + 256)


def theirs(nonce, data, position=0):
    c = PyChaCha20.new(key=KEY, nonce=nonce)
    if position:
        c.seek(position)
    return c.encrypt(data)


def ours(nonce, data, position=0, **kw):
    c = ChaCha20.new(key=KEY, nonce=nonce)
    if position:
        c.seek(position)
    return c.encrypt(data, **kw)


# --- lengths -------------------------------------------------------------------

@pytest.mark.parametrize("nonce_len", [12, 8, 24])
def test_every_length_up_to_1024(backend, nonce_len):
    nonce = NONCES[nonce_len]
    want = theirs(nonce, RNG_DATA[:1024])      # a prefix of the stream is the stream
    bad = [n for n in range(1, 1025) if ours(nonce, RNG_DATA[:n]) != want[:n]]
    assert bad == []


AROUND = (-65, -64, -63, -1, 0, 1, 63, 64, 65)


@pytest.mark.parametrize("step", [256, 320])
def test_lengths_around_multiples_of_a_step(backend, step):
    nonce = NONCES[12]
    want = theirs(nonce, RNG_DATA)
    bad = []
    for m in range(step, 8192 + 1, step):
        for d in AROUND:
            if ours(nonce, RNG_DATA[:m + d]) != want[:m + d]:
                bad.append(m + d)
    assert bad == []


def test_lengths_vs_cryptography_and_reference(backend):
    """Two independent oracles, for lengths that end in each lane of a step."""
    rng = random.Random(17)
    for n in (1, 63, 64, 65, 127, 128, 191, 192, 255, 256, 257, 320, 447, 448, 449, 511, 512,
              513, 575, 576, 1023, 1024, 1025, 2047, 2048, 2049):
        key, nonce = rng.randbytes(32), rng.randbytes(12)
        ctr = rng.randrange(2**31)
        data = rng.randbytes(n)
        c = ChaCha20.new(key=key, nonce=nonce)
        c.seek(64 * ctr)
        got = c.encrypt(data)
        ossl = Cipher(algorithms.ChaCha20(key, struct.pack("<I", ctr) + nonce), None)
        assert got == ossl.encryptor().update(data), n
        if n <= 576:
            assert got == reference.chacha20_xor(key, nonce, data, counter=ctr), n


# --- chunking and seek -----------------------------------------------------------

def _cuts(rng, n):
    """Random cut points, biased towards block and step boundaries."""
    cuts, i = [], 0
    while i < n:
        i += rng.choice([0, 1, 3, 16, 63, 64, 65, 128, 191, 255, 256, 257, 511, 512, 513,
                         rng.randrange(1, 1500)])
        cuts.append(min(i, n))
    return cuts


@pytest.mark.parametrize("nonce_len", [8, 12, 24])
def test_random_chunkings(backend, nonce_len):
    rng = random.Random(1000 + nonce_len)
    nonce = NONCES[nonce_len]
    want = theirs(nonce, RNG_DATA)
    for _ in range(25):
        n = rng.randrange(len(RNG_DATA) + 1)
        c = ChaCha20.new(key=KEY, nonce=nonce)
        got, prev = [], 0
        for cut in _cuts(rng, n):
            got.append(c.encrypt(RNG_DATA[prev:cut]))
            prev = cut
        assert b"".join(got) == want[:n]


@pytest.mark.parametrize("nonce_len", [8, 12])
def test_seek_every_offset_mod_320(backend, nonce_len):
    """Offsets modulo 320 (five blocks): every byte position in each block of
    a first 4- or 5-block step."""
    nonce = NONCES[nonce_len]
    rng = random.Random(256 + nonce_len)
    base = 320 * rng.randrange(1, 1 << 20)
    data = RNG_DATA[:700]
    want = theirs(nonce, bytes(320 + 700), base)
    bad = [off for off in range(320)
           if ours(nonce, data, base + off) != bytes(a ^ b for a, b in zip(data, want[off:]))]
    assert bad == []


# --- the counters ----------------------------------------------------------------------

@pytest.mark.parametrize("nonce_len", [12, 24])
@pytest.mark.parametrize("left", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 16, 17])
def test_32_bit_counter_ends_inside_a_step(backend, nonce_len, left):
    """Starting `left` blocks before 2^32, exactly `left` blocks exist: all of
    them are right, and one byte more is MessageTooLongError (no output)."""
    nonce = NONCES[nonce_len]
    start = (1 << 32) - left
    data = RNG_DATA[:64 * left]
    c = ChaCha20.new(key=KEY, nonce=nonce)
    c.seek(64 * start)
    with pytest.raises(poly1305x.MessageTooLongError):
        c.encrypt(RNG_DATA[:64 * left + 1])            # more than is left: refused whole
    got = c.encrypt(data)
    assert got == theirs(nonce, data, 64 * start)
    if nonce_len == 12:
        assert got[-64:] == bytes(a ^ b for a, b in zip(
            data[-64:], reference.chacha20_block(KEY, 0xFFFFFFFF, nonce)))
    assert c.encrypt(b"") == b""
    with pytest.raises(poly1305x.MessageTooLongError):
        c.encrypt(b"\0")


@pytest.mark.parametrize("before", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16, 17])
def test_64_bit_counter_crosses_2_32_inside_a_step(backend, before):
    """8-byte nonce: the block counter is 64 bits, so word 12 carries into
    word 13 in the middle of a 4-, 5-, 8- or 16-block step (before=4: into
    the scalar fifth block of a 5-block step; before=5: from it)."""
    nonce = NONCES[8]
    start = (1 << 32) - before
    n = 64 * (before + 20) + 5
    data = RNG_DATA[:n]
    got = ours(nonce, data, 64 * start)
    assert got == theirs(nonce, data, 64 * start)
    # the two blocks either side of the carry, from the reference
    ks = reference.chacha20_block(KEY, (1 << 32) - 1, nonce) + reference.chacha20_block(
        KEY, 1 << 32, nonce)
    i = 64 * (before - 1)
    assert got[i:i + 128] == bytes(a ^ b for a, b in zip(data[i:i + 128], ks))


# --- output= -------------------------------------------------------------------------

@pytest.mark.parametrize("n", [64, 255, 256, 512, 700, 4096 + 17])
def test_in_place_output(backend, n):
    nonce = NONCES[12]
    buf = bytearray(RNG_DATA[:n])
    assert ours(nonce, buf, 0, output=buf) is None
    assert bytes(buf) == theirs(nonce, RNG_DATA[:n])


@pytest.mark.parametrize("shift", [-257, -64, -17, -1, 1, 15, 16, 63, 64, 65, 255, 256, 513])
def test_overlapping_output(backend, shift):
    """Input and output share memory at an offset: the result is that of a
    separate output buffer."""
    nonce = NONCES[12]
    n = 1500
    arena = bytearray(n + 2 * 600)
    src_at = 600
    arena[src_at:src_at + n] = RNG_DATA[:n]
    want = theirs(nonce, RNG_DATA[:n])
    view = memoryview(arena)
    ours(nonce, view[src_at:src_at + n], 0, output=view[src_at + shift:src_at + shift + n])
    assert bytes(arena[src_at + shift:src_at + shift + n]) == want


# --- the AEAD: short path (block 0 and the message in one kernel call) and beyond ---

def test_aead_every_length_to_600(backend):
    rng = random.Random(448)
    key, nonce, aad = rng.randbytes(32), rng.randbytes(12), rng.randbytes(13)
    data = rng.randbytes(600)
    a = ChaCha20Poly1305(key)
    o = CryptoAEAD(key)
    bad = []
    for n in range(0, 601):
        sealed = a.encrypt(nonce, data[:n], aad)
        if sealed != o.encrypt(nonce, data[:n], aad) or a.decrypt(nonce, sealed, aad) != data[:n]:
            bad.append(n)
    assert bad == []


@pytest.mark.parametrize("nonce_len", [12, 24])
def test_aead_new_lengths_around_steps(backend, nonce_len):
    rng = random.Random(900 + nonce_len)
    key, nonce = rng.randbytes(32), rng.randbytes(nonce_len)
    for m in (256, 320, 448, 512, 640, 1024, 2048, 16384):
        for d in (-65, -1, 0, 1, 64):
            pt = rng.randbytes(m + d)
            c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
            c.update(b"aad")
            p = PyAEAD.new(key=key, nonce=nonce)
            p.update(b"aad")
            assert c.encrypt_and_digest(pt) == p.encrypt_and_digest(pt), m + d
