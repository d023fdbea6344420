"""The drop-in line, and the arguments as pycryptodome takes them.

* ``Poly1305.new(key=, cipher=ChaCha20, nonce=, data=)`` with pycryptodome's
  or pycryptodomex's own ChaCha20 module, as code that changed only its
  Poly1305 import passes it: the tags are pycryptodome's, r and s come from
  poly1305x's ChaCha20 (pycryptodome's function is never called), and the
  module lookup survives install()/uninstall();
* each argument difference the differential comparison found, as one call
  sequence run against pycryptodome and against poly1305x: nonces and keys
  that bytes() accepts.

The other differences (non-contiguous buffers, cryptography's verify, weak
references) are in tests/faces/test_peer_differences.py.
"""
import random
import types

import pytest

import Crypto.Cipher.ChaCha20 as CryptoChaCha20
import Crypto.Cipher.ChaCha20_Poly1305 as CryptoChaCha20_Poly1305
import Crypto.Hash.Poly1305 as CryptoPoly1305
import Cryptodome.Cipher.ChaCha20 as DomeChaCha20
from Crypto.Cipher import AES as CryptoAES

import poly1305x
from poly1305x import ChaCha20, ChaCha20_Poly1305, Poly1305
from poly1305x._core import _engine
from poly1305x.mac import Poly1305 as MacPoly1305
from tests.support.helpers import strided

CHACHA20_MODULES = [ChaCha20, CryptoChaCha20, DomeChaCha20]
MODULE_IDS = ["poly1305x", "Crypto", "Cryptodome"]

K = bytes(range(32))
N12 = bytes(range(100, 112))
N8 = N12[:8]


def outcome(fn, *args):
    """("ok", result) or ("raised", exception)."""
    try:
        return "ok", fn(*args)
    except Exception as exc:
        return "raised", exc


def assert_same(fn, theirs, ours, message=True):
    """Run one call sequence on the peer's modules and on ours: the same
    result, or an exception of the peer's class (with its message, for
    ValueError, when ``message``)."""
    kind_t, t = outcome(fn, theirs)
    kind_o, o = outcome(fn, ours)
    assert kind_o == kind_t, (t, o)
    if kind_t == "ok":
        assert o == t
    else:
        assert isinstance(o, type(t)), (t, o)
        if message and isinstance(t, ValueError):
            assert str(o) == str(t)
    return o


# ---------------------------------------------------------------------------
# The drop-in line
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("cipher", CHACHA20_MODULES, ids=MODULE_IDS)
def test_dropin_tags_are_pycryptodome_tags(backend, cipher):
    rng = random.Random(18)
    for nonce_len in (8, 12):
        for n in (0, 1, 15, 16, 17, 64, 1000, 5000):
            key, nonce, data = rng.randbytes(32), rng.randbytes(nonce_len), rng.randbytes(n)
            theirs = CryptoPoly1305.new(key=key, cipher=CryptoChaCha20, nonce=nonce, data=data)
            ours = Poly1305.new(key=key, cipher=cipher, nonce=nonce, data=data)
            assert ours.backend == backend
            assert type(ours.nonce) is bytes and ours.nonce == nonce
            assert ours.digest() == theirs.digest()
            assert Poly1305.mac_with_cipher(cipher, key, nonce, data) == theirs.digest()
    # in pieces, and with buffer types
    key, nonce, data = rng.randbytes(32), rng.randbytes(12), rng.randbytes(3000)
    mac = Poly1305.new(key=bytearray(key), cipher=cipher, nonce=memoryview(nonce),
                       data=memoryview(data)[:7])
    for i in range(7, len(data), 333):
        assert mac.update(bytearray(data[i:i + 333])) is mac
    theirs = CryptoPoly1305.new(key=key, cipher=CryptoChaCha20, nonce=nonce, data=data)
    assert mac.hexdigest() == theirs.hexdigest()
    mac.verify(theirs.digest())


@pytest.mark.parametrize("cipher", [CryptoChaCha20, DomeChaCha20], ids=MODULE_IDS[1:])
def test_dropin_never_calls_pycryptodome(monkeypatch, cipher):
    # r and s come from poly1305x's ChaCha20 block 0, not from the module's function
    expected = CryptoPoly1305.new(key=K, cipher=CryptoChaCha20, nonce=N12, data=b"m").digest()

    def refuse(key, nonce):
        raise AssertionError("pycryptodome's _derive_Poly1305_key_pair was called")

    monkeypatch.setattr(cipher, "_derive_Poly1305_key_pair", refuse)
    monkeypatch.setattr(cipher, "new", refuse)
    assert Poly1305.new(key=K, cipher=cipher, nonce=N12, data=b"m").digest() == expected
    assert Poly1305.mac_with_cipher(cipher, K, N12, b"m") == expected
    assert len(Poly1305.new(key=K, cipher=cipher).nonce) == 12    # a random nonce


def test_chacha20_modules_are_recognised_by_module():
    for module in CHACHA20_MODULES:
        assert _engine.is_chacha20(module)
        assert _engine.chacha20_modules[module] is True
    for other in (CryptoAES, CryptoPoly1305, types.ModuleType("Crypto.Cipher.ChaCha20"),
                  object(), len, [1]):
        assert not _engine.is_chacha20(other)


def test_another_module_with_a_key_pair_function_is_called():
    # a third-party ChaCha20-like module: its own function derives r and s
    calls = []

    def derive(key, nonce):
        calls.append(nonce)
        return key[:16], key[16:], nonce

    mod = types.ModuleType("thirdparty.ChaCha20")
    mod._derive_Poly1305_key_pair = derive
    tag = Poly1305.new(key=K, cipher=mod, nonce=b"n", data=b"x").digest()
    assert tag == MacPoly1305.generate_tag(K, b"x")
    Poly1305.new(key=K, cipher=mod, nonce=b"m")
    assert calls == [b"n", b"m"]
    assert _engine.chacha20_modules[mod] is False


def test_dropin_survives_install_and_uninstall():
    # install() swaps which module the name Crypto.Cipher.ChaCha20 gives;
    # both module objects stay ChaCha20 for Poly1305.new
    import importlib
    expected = CryptoPoly1305.new(key=K, cipher=CryptoChaCha20, nonce=N12, data=b"m").digest()
    poly1305x.install()
    try:
        served = importlib.import_module("Crypto.Cipher.ChaCha20")
        assert served is ChaCha20
        for cipher in (served, CryptoChaCha20):
            assert Poly1305.new(key=K, cipher=cipher, nonce=N12, data=b"m").digest() == expected
        # pycryptodome's own Poly1305.new, patched in place, reaches poly1305x too
        assert CryptoPoly1305.new(key=K, cipher=CryptoChaCha20, nonce=N12,
                                  data=b"m").digest() == expected
    finally:
        poly1305x.uninstall()
    assert Poly1305.new(key=K, cipher=CryptoChaCha20, nonce=N12, data=b"m").digest() == expected


@pytest.mark.parametrize("cipher", CHACHA20_MODULES, ids=MODULE_IDS)
def test_key_order_is_refused_for_chacha20(cipher):
    with pytest.raises(ValueError, match="key_order applies to block ciphers"):
        Poly1305.new(key=K, cipher=cipher, nonce=N12, key_order="rk")
    with pytest.raises(ValueError, match="key_order applies to block ciphers"):
        Poly1305.mac_with_cipher(cipher, K, N12, b"", key_order="rk")
    with pytest.raises(TypeError, match="needs the nonce"):
        Poly1305.mac_with_cipher(cipher, K, None, b"")


def test_block_ciphers_keep_their_path():
    theirs = CryptoPoly1305.new(key=K, cipher=CryptoAES, nonce=bytes(16), data=b"abc")
    ours = Poly1305.new(key=K, cipher=CryptoAES, nonce=bytes(16), data=b"abc")
    assert ours.digest() == theirs.digest() and ours.nonce == bytes(16)
    # an unhashable callable cipher is not looked up in the module table
    class Unhashable:
        __hash__ = None

        def __call__(self, key, block):
            return CryptoAES.new(key, CryptoAES.MODE_ECB).encrypt(block)

    assert Poly1305.new(key=K, cipher=Unhashable(), nonce=bytes(16),
                        data=b"abc").digest() == theirs.digest()


# The same Poly1305.new call against pycryptodome (with its ChaCha20) and
# poly1305x (once with each ChaCha20 module): same tag or same error.
NEW_CASES = {
    "nonce list": dict(nonce=list(N12)),
    "nonce tuple": dict(nonce=tuple(N12)),
    "nonce strided": dict(nonce=strided(12)),
    "nonce bytearray": dict(nonce=bytearray(N8)),
    "nonce memoryview 8": dict(nonce=memoryview(N8)),
    "nonce 16 chars": dict(nonce="x" * 16),
    "nonce 12 chars": dict(nonce="x" * 12),
    "nonce 16 bytes": dict(nonce=bytes(16)),
    "nonce 24 bytes": dict(nonce=bytes(24)),
    "nonce empty": dict(nonce=b""),
    "nonce int": dict(nonce=12),
    "nonce bytes over 255": dict(nonce=[256] * 12),
    "key short": dict(key=K[:31]),
    "key None": dict(key=None),
    "key int": dict(key=5),
    "key list": dict(key=list(K)),
    "key str": dict(key="k" * 32),
    "key strided": dict(key=strided(32)),
    "key bytearray": dict(key=bytearray(K)),
    "data strided": dict(data=strided(40)),
    "data str": dict(data="abc"),
    "data empty str": dict(data=""),
    "data list": dict(data=[1, 2]),
    "data zero": dict(data=0),
    "data memoryview": dict(data=memoryview(b"abc")),
}


@pytest.mark.parametrize("case", sorted(NEW_CASES))
@pytest.mark.parametrize("cipher", CHACHA20_MODULES, ids=MODULE_IDS)
def test_new_matches_pycryptodome(case, cipher):
    args = dict(key=K, nonce=N12, data=b"message")
    args.update(NEW_CASES[case])

    def run(m):
        mac = m.new(**args)
        return mac.digest(), mac.nonce

    theirs = types.SimpleNamespace(new=lambda **kw: CryptoPoly1305.new(cipher=CryptoChaCha20, **kw))
    ours = types.SimpleNamespace(new=lambda **kw: Poly1305.new(cipher=cipher, **kw))
    assert_same(run, theirs, ours)


def test_new_differences_by_design():
    # what poly1305x accepts and pycryptodome refuses (docs/compatibility.md)
    for nonce in (list(N8), tuple(N8)):
        with pytest.raises(TypeError):
            CryptoPoly1305.new(key=K, cipher=CryptoChaCha20, nonce=nonce)
        assert Poly1305.new(key=K, cipher=ChaCha20, nonce=nonce).nonce == N8


# ---------------------------------------------------------------------------
# Nonces as pycryptodome takes them: ChaCha20 and ChaCha20_Poly1305
# ---------------------------------------------------------------------------

CHACHA_NONCES = {
    "list 12": list(N12), "list 8": list(N8), "tuple 12": tuple(N12),
    "strided 12": strided(12), "strided 8": strided(8),
    "bytearray 24": bytearray(24), "str 12": "n" * 12, "int": 12, "list 7": list(N8[:7]),
}


@pytest.mark.parametrize("name", sorted(CHACHA_NONCES))
def test_chacha20_nonce_matches_pycryptodome(name):
    nonce = CHACHA_NONCES[name]

    def run(m):
        c = m.new(key=K, nonce=nonce)
        return c.encrypt(b"attack at dawn" * 7), c.nonce

    assert_same(run, CryptoChaCha20, ChaCha20)


@pytest.mark.parametrize("nonce", [list(range(24)), strided(24)], ids=["list", "strided"])
def test_xchacha20_nonce_differences_by_design(nonce):
    # a 24-byte nonce that is not a contiguous buffer: pycryptodome hands it to
    # its C HChaCha20 and refuses it; poly1305x takes it as bytes(nonce)
    with pytest.raises((TypeError, BufferError)):
        CryptoChaCha20.new(key=K, nonce=nonce)
    c = ChaCha20.new(key=K, nonce=nonce)
    assert c.nonce == bytes(nonce)
    assert c.encrypt(b"x" * 70) == ChaCha20.new(key=K, nonce=bytes(nonce)).encrypt(b"x" * 70)
    if not isinstance(nonce, list):      # pycryptodome's ChaCha20_Poly1305 refuses lists
        with pytest.raises(BufferError):
            CryptoChaCha20_Poly1305.new(key=K, nonce=nonce)
        assert ChaCha20_Poly1305.new(key=K, nonce=nonce).encrypt_and_digest(b"x") == \
            ChaCha20_Poly1305.new(key=K, nonce=bytes(nonce)).encrypt_and_digest(b"x")


@pytest.mark.parametrize("name", sorted(CHACHA_NONCES))
def test_chacha20_poly1305_nonce_matches_pycryptodome(name):
    nonce = CHACHA_NONCES[name]

    def run(m):
        c = m.new(key=K, nonce=nonce)
        c.update(b"aad")
        return c.encrypt_and_digest(b"secret" * 20), c.nonce

    assert_same(run, CryptoChaCha20_Poly1305, ChaCha20_Poly1305)


@pytest.mark.parametrize("key", [list(K), "k" * 32, strided(32), bytearray(K), 32],
                         ids=["list", "str", "strided", "bytearray", "int"])
def test_keys_match_pycryptodome(key):
    assert_same(lambda m: m.new(key=key, nonce=N12).encrypt(b"abc"), CryptoChaCha20, ChaCha20)
    assert_same(lambda m: m.new(key=key, nonce=N12).encrypt(b"abc"),
                CryptoChaCha20_Poly1305, ChaCha20_Poly1305)
