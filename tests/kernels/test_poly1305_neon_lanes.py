"""The multi-buffer Poly1305 on NEON (poly1305x/_kernels/_poly1305_mb_neon.pxi):
two messages at once, one a lane, each with its own r and r^2, the next
message taking a lane as soon as its message ends and the last one finished
by the one-message kernel.  It is the ``portable`` backend's poly1305_lanes
on aarch64 (`test_lanes_kind` asserts the build has it), and the test-only
``neon-emu`` backend (the same code on SIMDe's NEON, built with
POLY1305X_SIMDE=1) runs it on x86-64.

The kernel-level tests run on every backend (the x86 lane kernels and the
portable loops too), through ``kernel_poly1305_lanes``, which hands a whole
batch to the table's poly1305_lanes in one call.  Oracles: the big-integer
reference (tests/support/reference.py), OpenSSL through ``cryptography``, and the
backend's own one-message kernel.  The batch AEAD tests run the kernel where
the engine uses it: ``encrypt_many`` / ``decrypt_many`` on ``portable`` and
``neon-emu``, with short messages of one ChaCha20 block count and mixed
associated-data lengths (so a group's MAC inputs differ in length).
"""
import platform
import random

import pytest
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD
from cryptography.hazmat.primitives.poly1305 import Poly1305 as CryptoPoly1305

from poly1305x._core import _dispatch
from poly1305x._core._testing import kernel_poly1305, kernel_poly1305_lanes
from poly1305x._kernels import _portable
from poly1305x.aead import ChaCha20Poly1305, InvalidTag
from tests.support.helpers import backend_selected
from tests.support.reference import poly1305 as ref_poly1305

AARCH64 = platform.machine().lower() in ("aarch64", "arm64")
# The backends whose poly1305_lanes is the NEON kernel, in this install.
NEON_LANES = (["portable"] if _portable.POLY_LANES_KIND == "neon-2x26-lanes" else []) + \
    [b for b in _dispatch.emulated_backends() if b == "neon-emu"]
# Where the engine's batch reaches it, or on any other build the portable
# backend (its one-by-one lanes), so the AEAD tests always run.
AEAD_BACKENDS = sorted(set(NEON_LANES) | {"portable"})
# The one-message NEON kernel's switch-over to two lanes (blocks).
ONE_MSG_THRESHOLD = 16
R_CLAMP_MAX = (0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF).to_bytes(16, "little")


def check(backend, keys, msgs, ref=True):
    """The kernel's tags against cryptography, the backend's one-message
    kernel and (ref) the big-integer reference."""
    tags = kernel_poly1305_lanes(backend, keys, msgs)
    assert len(tags) == len(msgs)
    for j, (key, msg, tag) in enumerate(zip(keys, msgs, tags)):
        want = CryptoPoly1305.generate_tag(key, msg)
        assert tag == want, (j, len(msg) // 16, [len(m) // 16 for m in msgs])
        assert kernel_poly1305(backend, key, msg) == want, (j, len(msg) // 16)
        if ref:
            assert ref_poly1305(key, msg) == want, "the two oracles disagree"


def blocks(rng, n, kind="random"):
    """n whole 16-byte blocks: random, all 0xff (largest limbs) or zeros."""
    if kind == "ff":
        return b"\xff" * (16 * n)
    if kind == "zero":
        return bytes(16 * n)
    return rng.randbytes(16 * n)


# ---------------------------------------------------------------------------
# Which kernel the build runs
# ---------------------------------------------------------------------------

def test_lanes_kind():
    """aarch64 builds take a batch's tags two messages at a time on NEON;
    other builds one by one (or on the struct emulation, a development build
    with POLY1305X_LANES2_EMULATE).  The kind is read off the table entry."""
    if AARCH64:
        assert _portable.POLY_KIND == "neon-2x26"
        assert _portable.POLY_LANES_KIND == "neon-2x26-lanes"
    elif _portable.POLY_KIND == "lanes2-emulated":
        assert _portable.POLY_LANES_KIND == "neon-2x26-lanes"
    else:
        assert _portable.POLY_KIND == "scalar-64"
        assert _portable.POLY_LANES_KIND == "one-by-one"


def test_neon_emu_is_the_simde_build():
    """neon-emu, where built, runs the NEON code on SIMDe (and only x86-64
    builds have it: aarch64 runs the real one)."""
    if "neon-emu" not in _dispatch.emulated_backends():
        assert AARCH64 or "neon-emu" not in NEON_LANES
        return
    from poly1305x._kernels import _neon_emu
    assert _neon_emu.POLY_KIND == "neon-2x26-simde"
    assert not AARCH64


# ---------------------------------------------------------------------------
# The kernel, on every backend
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("count", [1, 2, 3, 7, 64, 300])
def test_random_batches(backend, count):
    """Random keys, random lengths 0..5000 bytes (0..312 blocks), odd and even
    counts: the big-integer reference checks the short ones, cryptography and
    the one-message kernel all."""
    rng = random.Random(0x1A9E5 + count)
    keys = [rng.randbytes(32) for _ in range(count)]
    nblocks = [rng.choice([rng.randrange(0, 8), rng.randrange(0, 40), rng.randrange(0, 313)])
               for _ in range(count)]
    msgs = [blocks(rng, n) for n in nblocks]
    check(backend, keys, msgs, ref=count <= 7)


def test_every_pair_of_short_lengths(backend):
    """Two messages of a and b blocks, a, b in 0..20 (equal, one odd, both
    odd, one empty, the longer one's rest below and at the one-message
    kernel's switch-over), in one call each; and all of them in one batch."""
    rng = random.Random(0x9A125)
    allk, allm = [], []
    for a in range(21):
        for b in range(21):
            keys = [rng.randbytes(32), rng.randbytes(32)]
            msgs = [blocks(rng, a), blocks(rng, b)]
            check(backend, keys, msgs, ref=False)
            allk += keys
            allm += msgs
    check(backend, allk, allm, ref=False)


@pytest.mark.parametrize("long_first", [True, False])
def test_one_long_message_among_short_ones(backend, long_first):
    """One lane holds a long message while short ones pass through the other;
    when they run out, the long one's rest (rest blocks, around the
    one-message kernel's switch-over, odd and even) goes on from its
    accumulator on the one-message kernel."""
    rng = random.Random(0x10E6 + long_first)
    for short in (1, 2, 5):
        for k in (1, 3):
            for rest in list(range(0, 4)) + list(range(ONE_MSG_THRESHOLD - 2,
                                                         ONE_MSG_THRESHOLD + 4)) + [40, 41]:
                nb = [short] * k
                nb.insert(0 if long_first else len(nb), short * k + rest)
                msgs = [blocks(rng, n) for n in nb]
                keys = [rng.randbytes(32) for _ in nb]
                check(backend, keys, msgs, ref=False)


def test_empty_messages_anywhere(backend):
    """Messages of no blocks (the tag is s) first, between, last, and all."""
    rng = random.Random(0xE3)
    for nb in ([0], [0, 0], [0, 0, 0], [0, 3], [3, 0], [0, 2, 0, 5, 0], [4, 0, 0, 4],
               [1, 0, 1, 0, 1, 0], [0, 17, 0], [17, 0, 0, 0, 1]):
        keys = [rng.randbytes(32) for _ in nb]
        check(backend, keys, [blocks(rng, n) for n in nb])


@pytest.mark.parametrize("key_kind", ["ff", "clamp-max", "random"])
@pytest.mark.parametrize("msg_kind", ["ff", "zero", "random"])
def test_largest_limbs(backend, key_kind, msg_kind):
    """Keys and blocks that push every limb and product to its largest value,
    over lengths that take both step shapes and the hand-over."""
    rng = random.Random(0xFF)
    nb = [1, 2, 3, 16, 17, 33, 0, 64, 5, 6, 257]
    keys = [{"ff": b"\xff" * 32, "clamp-max": R_CLAMP_MAX + rng.randbytes(16),
             "random": rng.randbytes(32)}[key_kind] for _ in nb]
    check(backend, keys, [blocks(rng, n, msg_kind) for n in nb])


# (r, block) pairs, found by a search, for which one lane step from h = 0
# leaves limb 1 of h at 2^26 or just above (carries rarely reach it): the
# limbs must be carried once more before they become the base-2^64 state.
LIMB1_OVER = [("9a8e9f2478b2287048678d1b5a24b755", "60aabee4f6ee2f5f17e4c31d75f54394"),
              ("89f751b23af8f5442b7f9251f6ed235d", "402c48dcc1b01d8dedccbdf2b3b4614e")]


@pytest.mark.parametrize("r_hex, block_hex", LIMB1_OVER)
def test_lane_limb_at_2_26_becomes_a_state(backend, r_hex, block_hex):
    """A lane whose accumulator has limb 1 >= 2^26 after its first block, then
    made a tag (the other lane ends too) or handed to the one-message kernel
    with 1, 3 or 16 more blocks (the other lane's message ends)."""
    rng = random.Random(int(block_hex[:8], 16))
    key = bytes.fromhex(r_hex) + rng.randbytes(16)
    block = bytes.fromhex(block_hex)
    for more in (0, 1, 3, 16):
        check(backend, [key, rng.randbytes(32)], [block + blocks(rng, more), blocks(rng, 1)])
        check(backend, [rng.randbytes(32), key], [blocks(rng, 1), block + blocks(rng, more)])


def test_the_same_key_in_both_lanes(backend):
    """Lanes are independent even when they hold the same key and message."""
    rng = random.Random(0x5A)
    key, msg = rng.randbytes(32), blocks(rng, 9)
    check(backend, [key] * 5, [msg] * 5)


def test_hook_refuses_partial_blocks():
    with pytest.raises(ValueError, match="whole 16-byte blocks"):
        kernel_poly1305_lanes("portable", [bytes(32)], [bytes(15)])
    with pytest.raises(ValueError, match="32-byte key"):
        kernel_poly1305_lanes("portable", [bytes(31)], [bytes(16)])
    with pytest.raises(ValueError, match="one 32-byte key a message"):
        kernel_poly1305_lanes("portable", [bytes(32)] * 2, [bytes(16)])


# ---------------------------------------------------------------------------
# Through the batch AEAD
# ---------------------------------------------------------------------------

@pytest.fixture(params=AEAD_BACKENDS)
def aead_backend(request):
    with backend_selected(request.param) as name:
        yield name


def aead_batch(rng, count, maxlen):
    nonces = [rng.randbytes(12) for _ in range(count)]
    data = [rng.randbytes(rng.choice([rng.randrange(0, 257), rng.randrange(0, maxlen + 1)]))
            for _ in range(count)]
    aad = [None if rng.random() < 0.2 else rng.randbytes(rng.randrange(0, 300))
           for _ in range(count)]
    return nonces, data, aad


@pytest.mark.parametrize("count", [1, 2, 3, 17, 64, 300])
def test_encrypt_many_vs_cryptography(aead_backend, count):
    """Mixed lengths 0..5000 (most of them short enough for the lanes: one
    ChaCha20 group per block count, aad of 0..299 bytes, so the MAC inputs of
    a group differ), sealed and opened in one call, against cryptography."""
    rng = random.Random(0xAEAD + count)
    key = rng.randbytes(32)
    nonces, data, aad = aead_batch(rng, count, 5000)
    ours = ChaCha20Poly1305(key)
    peer = CryptoAEAD(key)
    cts = ours.encrypt_many(nonces, data, aad)
    assert cts == [peer.encrypt(n, d, a) for n, d, a in zip(nonces, data, aad)]
    assert ours.decrypt_many(nonces, cts, aad) == data


@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 63, 64, 100, 191, 192, 255, 256])
def test_encrypt_many_one_group(aead_backend, size):
    """Messages of one length (one lane group), aad lengths 0..40: MAC inputs
    of neighbouring block counts side by side."""
    rng = random.Random(size)
    key = rng.randbytes(32)
    count = 2 * 16 + 3
    nonces = [i.to_bytes(12, "little") for i in range(count)]
    data = [rng.randbytes(size) for _ in range(count)]
    aad = [rng.randbytes(i) for i in range(count)]
    peer = CryptoAEAD(key)
    cts = ChaCha20Poly1305(key).encrypt_many(nonces, data, aad)
    assert cts == [peer.encrypt(n, d, a) for n, d, a in zip(nonces, data, aad)]


def test_decrypt_many_names_the_forged_message(aead_backend):
    """A tag changed in one message of a lane group: that index only fails."""
    rng = random.Random(0xF0)
    key = rng.randbytes(32)
    nonces, data, aad = aead_batch(rng, 40, 256)
    aead = ChaCha20Poly1305(key)
    cts = aead.encrypt_many(nonces, data, aad)
    for i in (0, 7, 39):
        bad = list(cts)
        bad[i] = bad[i][:-1] + bytes([bad[i][-1] ^ 1])
        with pytest.raises(InvalidTag) as exc:
            aead.decrypt_many(nonces, bad, aad)
        assert exc.value.indices == [i]
        got = aead.decrypt_many(nonces, bad, aad, strict=False)
        assert got == data[:i] + [None] + data[i + 1:]
