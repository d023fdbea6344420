"""poly1305x.hpke: the ChaCha20-Poly1305 AEAD of HPKE (RFC 9180) and MLS
(RFC 9420).  The pyhpke backend switch is in test_hpke_pyhpke.py."""
import doctest
import json
import os

import pytest

import poly1305x
from poly1305x import hpke
from tests.support.helpers import hpke_vector_id

VECTORS = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "vectors",
                                      "rfc9180_chacha20poly1305.json")))["vectors"]
LIMIT = (1 << 96) - 1
KEY = bytes(range(32))
BASE = bytes(range(100, 112))


def _seq(vector, enc):
    return int(enc["nonce"], 16) ^ int(vector["base_nonce"], 16)


# -- RFC 9180 test vectors ---------------------------------------------------

def test_constants():
    assert (hpke.AEAD_ID, hpke.NK, hpke.NN, hpke.NT) == (3, 32, 12, 16)
    assert hpke.InvalidTag is poly1305x.InvalidTag
    assert issubclass(hpke.MessageLimitReachedError, ValueError)


def test_vector_file_complete():
    assert len(VECTORS) == 32
    assert sum(len(v["encryptions"]) for v in VECTORS) == 8224
    assert all(v["aead_id"] == hpke.AEAD_ID for v in VECTORS)


@pytest.mark.parametrize("vector", VECTORS, ids=hpke_vector_id)
def test_vectors_key_and_module_functions(vector, kernel):
    key = bytes.fromhex(vector["key"])
    k = hpke.ChaCha20Poly1305Key(key)
    assert k.backend == kernel
    for enc in vector["encryptions"]:
        nonce, aad, pt, ct = (bytes.fromhex(enc[f]) for f in ("nonce", "aad", "pt", "ct"))
        assert k.seal(pt, nonce, aad) == ct
        assert k.open(ct, nonce, aad) == pt
        assert hpke.seal(key, nonce, aad, pt) == ct
        assert hpke.open(key, nonce, aad, ct) == pt


@pytest.mark.parametrize("vector", VECTORS, ids=hpke_vector_id)
def test_vectors_context(vector, kernel):
    key, base = bytes.fromhex(vector["key"]), bytes.fromhex(vector["base_nonce"])
    sender, receiver = hpke.Context(key, base), hpke.Context(key, base)
    assert sender.seq == 0 and sender.base_nonce == base and sender.backend == kernel
    for enc in vector["encryptions"]:
        seq = _seq(vector, enc)
        if seq != sender.seq:  # the vectors may skip sequence numbers
            sender.seq = receiver.seq = seq
        assert sender.compute_nonce(seq).hex() == enc["nonce"]
        aad, pt, ct = (bytes.fromhex(enc[f]) for f in ("aad", "pt", "ct"))
        assert sender.seal(aad, pt) == ct
        assert receiver.open(aad, ct) == pt
        assert sender.seq == receiver.seq == seq + 1


def test_rfc9180_a_2_1_first_encryption():
    """RFC 9180 Appendix A.2.1.1, sequence number 0 (printed in the RFC)."""
    key = bytes.fromhex("ad2744de8e17f4ebba575b3f5f5a8fa1f69c2a07f6e7500bc60ca6e3e3ec1c91")
    ctx = hpke.Context(key, bytes.fromhex("5c4d98150661b848853b547f"))
    ct = ctx.seal(b"Count-0", b"Beauty is truth, truth beauty")
    assert ct.hex() == ("1c5250d8034ec2b784ba2cfd69dbdb8af406cfe3ff938e131f0def8c8b60b4db"
                        "21993c62ce81883d2dd1b51a28")


# -- misuse -------------------------------------------------------------------

def test_tampering():
    k = hpke.ChaCha20Poly1305Key(KEY)
    nonce = bytes(12)
    ct = k.seal(b"payload", nonce, b"aad")
    bad = bytearray(ct)
    bad[0] ^= 1
    for args in [(bytes(bad), nonce, b"aad"), (ct, nonce, b"aaD"), (ct, b"\1" + bytes(11), b"aad"),
                 (ct[:-1], nonce, b"aad"), (ct[:15], nonce, b"aad"), (ct, nonce)]:
        with pytest.raises(poly1305x.InvalidTag):
            k.open(*args)
        with pytest.raises(poly1305x.InvalidTag):
            hpke.open(KEY, args[1], args[2] if len(args) > 2 else b"", args[0])
    with pytest.raises(poly1305x.InvalidTag):
        hpke.ChaCha20Poly1305Key(bytes(32)).open(ct, nonce, b"aad")
    tag = bytearray(ct)
    tag[-1] ^= 0x80
    with pytest.raises(poly1305x.InvalidTag):
        k.open(bytes(tag), nonce, b"aad")


def test_context_tampering_keeps_seq():
    s, r = hpke.Context(KEY, BASE), hpke.Context(KEY, BASE)
    ct0, ct1 = s.seal(b"a", b"zero"), s.seal(b"a", b"one")
    with pytest.raises(poly1305x.InvalidTag):
        r.open(b"a", ct1)  # wrong position: nonce differs
    with pytest.raises(poly1305x.InvalidTag):
        r.open(b"b", ct0)
    with pytest.raises(poly1305x.InvalidTag):
        r.open(b"a", ct0[:-1] + bytes([ct0[-1] ^ 1]))
    assert r.seq == 0
    assert r.open(b"a", ct0) == b"zero" and r.open(b"a", ct1) == b"one"
    assert r.seq == 2


def test_aad_default_and_buffers():
    k = hpke.ChaCha20Poly1305Key(bytearray(KEY))
    ct = k.seal(b"x", bytes(12))
    assert ct == k.seal(memoryview(b"x"), bytearray(12), b"")
    assert k.open(ct, bytes(12)) == b"x"
    assert hpke.seal(KEY, bytes(12), b"", b"x") == ct


@pytest.mark.parametrize("n", [0, 16, 31, 33, 64])
def test_wrong_key_size(n):
    for make in (hpke.ChaCha20Poly1305Key, lambda key: hpke.Context(key, BASE)):
        with pytest.raises(ValueError):
            make(bytes(n))
    with pytest.raises(ValueError):
        hpke.seal(bytes(n), bytes(12), b"", b"x")
    with pytest.raises(ValueError):
        hpke.open(bytes(n), bytes(12), b"", bytes(16))


@pytest.mark.parametrize("n", [0, 8, 11, 13, 16, 24])
def test_wrong_nonce_size(n):
    k = hpke.ChaCha20Poly1305Key(KEY)
    with pytest.raises(ValueError):
        k.seal(b"x", bytes(n))
    with pytest.raises(ValueError):
        k.open(bytes(17), bytes(n))
    with pytest.raises(ValueError):
        hpke.seal(KEY, bytes(n), b"", b"x")
    with pytest.raises(ValueError):
        hpke.Context(KEY, bytes(n))


def test_sequence_overflow():
    s = hpke.Context(KEY, BASE, seq=LIMIT - 2)
    r = hpke.Context(KEY, BASE)
    r.seq = LIMIT - 2
    cts = [s.seal(b"", b"m%d" % i) for i in range(2)]
    assert s.seq == LIMIT
    # the last two nonces flip the low 96 bits of the base nonce
    assert s.compute_nonce(LIMIT - 1) == bytes(b ^ 0xFF for b in BASE)[:-1] + bytes([BASE[-1] ^ 0xFE])
    with pytest.raises(hpke.MessageLimitReachedError):
        s.seal(b"", b"one too many")
    assert s.seq == LIMIT  # no wrap to 0 (that would reuse the first nonce)
    assert [r.open(b"", ct) for ct in cts] == [b"m0", b"m1"]
    with pytest.raises(hpke.MessageLimitReachedError):
        r.open(b"", cts[0])
    with pytest.raises(ValueError):
        hpke.Context(KEY, BASE, seq=LIMIT + 1)
    with pytest.raises(ValueError):
        s.seq = -1
    # the seq counted at the limit is checked before any work: a fresh context
    # at seq LIMIT refuses at once
    with pytest.raises(hpke.MessageLimitReachedError):
        hpke.Context(KEY, BASE, seq=LIMIT).seal(b"", b"")


def test_mls_reuse_guard_example():
    """The docstring examples (including the MLS reuse_guard one) run."""
    result = doctest.testmod(hpke, verbose=False)
    assert result.attempted >= 8 and result.failed == 0
    # the MLS nonce is the secret-tree nonce with reuse_guard XORed in front
    nonce, guard = os.urandom(12), os.urandom(4)
    guarded = (int.from_bytes(nonce, "big") ^ int.from_bytes(guard, "big") << 64).to_bytes(12, "big")
    assert guarded == bytes(a ^ b for a, b in zip(guard + bytes(8), nonce))


def test_seq_must_be_an_integer():
    ctx = hpke.Context(KEY, BASE)
    with pytest.raises(TypeError):
        ctx.seq = 1.5
    with pytest.raises(TypeError):
        hpke.Context(KEY, BASE, seq="3")
    with pytest.raises(TypeError):
        ctx.compute_nonce(2.0)
    ctx.seq = 7
    assert ctx.seq == 7 and ctx.compute_nonce(7) == (int.from_bytes(BASE, "big") ^ 7).to_bytes(12, "big")


# -- a Context is never copied, its nonce is bytes-like -------

@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle", "reduce_ex"])
def test_context_refuses_copying(how):
    """copy.copy used to work (deepcopy and pickle refused): both copies then
    sealed with the same nonce under the same key."""
    import copy
    import pickle

    ctx = hpke.Context(KEY, BASE)
    ctx.seal(b"", b"first")
    do = {"copy": copy.copy, "deepcopy": copy.deepcopy,
          "pickle": lambda c: pickle.loads(pickle.dumps(c)),
          "reduce_ex": lambda c: c.__reduce_ex__(2)}[how]
    with pytest.raises(TypeError, match="cannot be copied"):
        do(ctx)
    assert ctx.seq == 1  # the refused copy did not disturb the original
    assert hpke.Context(KEY, BASE, seq=1).open(b"", ctx.seal(b"", b"next")) == b"next"


def test_context_subclass_refuses_copying():
    import copy

    class Sub(hpke.Context):
        __slots__ = ()

    with pytest.raises(TypeError):
        copy.copy(Sub(KEY, BASE))


@pytest.mark.parametrize("nonce", [12, 12.0, "abcdefghijkl", list(range(1, 13)),
                                   tuple(range(1, 13)), iter(range(1, 13)), None,
                                   {i: i for i in range(1, 13)}],
                         ids=["int", "float", "str", "list", "tuple", "iterator", "None",
                              "dict"])
def test_context_nonce_must_be_bytes_like(nonce):
    """hpke.Context(key, 12) used to build an all-zero nonce (bytes(12)), and
    any iterable of small ints was taken as a nonce."""
    with pytest.raises(TypeError, match="bytes-like"):
        hpke.Context(KEY, nonce)


def test_context_refuses_all_zero_nonce():
    for zeros in (bytes(12), bytearray(12), memoryview(bytes(12))):
        with pytest.raises(ValueError, match="all zeros"):
            hpke.Context(KEY, zeros)
    # one non-zero bit is a valid base nonce
    assert hpke.Context(KEY, bytes(11) + b"\x01").compute_nonce(1) == bytes(12)


def test_context_takes_every_bytes_like_nonce():
    import array

    expected = hpke.Context(KEY, BASE).seal(b"a", b"m")
    words = array.array("I")
    words.frombytes(BASE)  # 3 items, 12 bytes: the length counted is in bytes
    for nonce in (bytearray(BASE), memoryview(BASE), memoryview(b"xx" + BASE)[2:], words,
                  memoryview(BASE * 2)[::2].tobytes()[:0] + BASE):
        assert hpke.Context(KEY, nonce).seal(b"a", b"m") == expected
    # a non-contiguous view is read as its bytes, in order
    strided = memoryview(bytes(b for pair in zip(BASE, bytes(12)) for b in pair))[::2]
    assert hpke.Context(KEY, strided).seal(b"a", b"m") == expected
    with pytest.raises(ValueError):
        hpke.Context(KEY, array.array("I", [1, 2]))  # 8 bytes


def test_context_nonce_buffer_is_copied():
    nonce = bytearray(BASE)
    ctx = hpke.Context(KEY, nonce)
    nonce[:] = bytes(12)
    assert ctx.base_nonce == BASE
