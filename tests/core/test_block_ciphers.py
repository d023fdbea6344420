"""Poly1305 over a 128-bit block cipher: poly1305x.Poly1305.new(cipher=...,
key_order=...) and Poly1305.mac_with_cipher, with the adapters of
poly1305x._core._ciphers."""
import os
import random
import types
import warnings

import pytest

import poly1305x
from tests.support import reference
from poly1305x import ChaCha20, Poly1305
from poly1305x._core import _dispatch

from Crypto.Cipher import AES as Crypto_AES  # noqa: E402
from Crypto.Cipher import DES, DES3, ARC4, Blowfish, Salsa20  # noqa: E402
from Crypto.Cipher import ChaCha20 as Crypto_ChaCha20  # noqa: E402
from Crypto.Hash import Poly1305 as CryptoPoly1305  # noqa: E402
from cryptography.hazmat.decrepit.ciphers import algorithms as decrepit  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

try:
    from Cryptodome.Cipher import AES as Cryptodome_AES
except ImportError:  # pycryptodomex not installed
    Cryptodome_AES = None

P = (1 << 130) - 5
CLAMP = 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
BACKENDS = poly1305x.backends() + _dispatch.emulated_backends()

# cryptography block ciphers with a 128-bit block and 128-bit keys
CRYPTOGRAPHY_128 = [algorithms.AES, algorithms.AES128, decrepit.Camellia, algorithms.SM4,
                    decrepit.SEED]


# -- the reference ---------------------------------------------------------------

def ecb(cls, key, block):
    """One block of ECB encryption with a cryptography algorithm class."""
    return Cipher(cls(key), modes.ECB()).encryptor().update(block)


def poly1305_ref(r, s, msg):
    """Poly1305_r(msg, s) with big integers, straight from Bernstein's paper."""
    r = int.from_bytes(r, "little") & CLAMP
    h = 0
    for i in range(0, len(msg), 16):
        h = (h + int.from_bytes(msg[i:i + 16] + b"\x01", "little")) * r % P
    return ((h + int.from_bytes(s, "little")) % (1 << 128)).to_bytes(16, "little")


def ref_tag(cls, key, nonce, msg, key_order="kr"):
    """Reference Poly1305-<cls>: s = E(cipher key, nonce), r the other half."""
    if key_order == "kr":
        cipher_key, r = key[:16], key[16:]
    else:
        r, cipher_key = key[:16], key[16:]
    return poly1305_ref(r, ecb(cls, cipher_key, nonce), msg)


def test_reference_agrees_with_rfc8439_oracle():
    rng = random.Random(1)
    for n in (0, 1, 15, 16, 17, 100):
        r, s, m = rng.randbytes(16), rng.randbytes(16), rng.randbytes(n)
        assert poly1305_ref(r, s, m) == reference.poly1305(r + s, m)


# -- Bernstein, "The Poly1305-AES message-authentication code", appendix B -------

# (m, r, k, n, AES_k(n), tag); the 32-byte key of Poly1305-AES is k || r.
BERNSTEIN = [
    ("f3f6", "851fc40c3467ac0be05cc20404f3f700", "ec074c835580741701425b623235add6",
     "fb447350c4e868c52ac3275cf9d4327e", "580b3b0f9447bb1e69d095b5928b6dbc",
     "f4c633c3044fc145f84f335cb81953de"),
    ("", "a0f3080000f46400d0c7e9076c834403", "75deaa25c09f208e1dc4ce6b5cad3fbf",
     "61ee09218d29b0aaed7e154a2c5509cc", "dd3fab2251f11ac759f0887129cc2ee7",
     "dd3fab2251f11ac759f0887129cc2ee7"),
    ("663cea190ffb83d89593f3f476b6bc24d7e679107ea26adb8caf6652d0656136",
     "48443d0bb0d21109c89a100b5ce2c208", "6acb5f61a7176dd320c5c1eb2edcdc74",
     "ae212a55399729595dea458bc621ff0e", "83149c69b561dd88298a1798b10716ef",
     "0ee1c16bb73f0f4fd19881753c01cdbe"),
    ("ab0812724a7f1e342742cbed374d94d136c6b8795d45b3819830f2c04491faf0"
     "990c62e48b8018b2c3e4a0fa3134cb67fa83e158c994d961c4cb21095c1bf9",
     "12976a08c4426d0ce8a82407c4f48207", "e1a5668a4d5b66a5f68cc5424ed5982d",
     "9ae831e743978d3a23527c7128149e3a", "80f8c20aa71202d1e29179cbcb555a57",
     "5154ad0d2cb26e01274fc51148491f1b"),
]

AES_CIPHERS = [Crypto_AES, algorithms.AES, algorithms.AES128,
               lambda key, block: ecb(algorithms.AES, key, block)]
AES_IDS = ["Crypto.Cipher.AES", "algorithms.AES", "algorithms.AES128", "callable"]
if Cryptodome_AES is not None:
    AES_CIPHERS.append(Cryptodome_AES)
    AES_IDS.append("Cryptodome.Cipher.AES")


@pytest.mark.parametrize("example", BERNSTEIN, ids=["B.1", "B.2", "B.3", "B.4"])
@pytest.mark.parametrize("cipher", AES_CIPHERS, ids=AES_IDS)
def test_bernstein_poly1305_aes(example, cipher, kernel):
    m, r, k, n, aes, tag = map(bytes.fromhex, example)
    # both AES implementations agree with the paper's AES_k(n)
    assert Crypto_AES.new(k, Crypto_AES.MODE_ECB).encrypt(n) == aes
    assert ecb(algorithms.AES, k, n) == aes
    assert poly1305_ref(r, aes, m) == tag
    mac = Poly1305.new(key=k + r, cipher=cipher, nonce=n, data=m)
    assert mac.backend == kernel
    assert mac.digest() == tag and mac.nonce == n
    assert Poly1305.mac_with_cipher(cipher, k + r, n, m) == tag
    # BouncyCastle's layout: the same MAC with the key halves swapped
    assert Poly1305.new(key=r + k, cipher=cipher, nonce=n, data=m, key_order="rk").digest() == tag
    assert Poly1305.mac_with_cipher(cipher, r + k, n, m, key_order="rk") == tag
    # and pycryptodome's own Poly1305-AES
    assert CryptoPoly1305.new(key=k + r, cipher=Crypto_AES, nonce=n, data=m).digest() == tag


# -- other 128-bit block ciphers through cryptography ------------------------------

@pytest.mark.parametrize("key_order", ["kr", "rk"])
@pytest.mark.parametrize("cls", CRYPTOGRAPHY_128, ids=lambda c: c.__name__)
def test_cryptography_ciphers_vs_reference(cls, key_order, kernel):
    rng = random.Random(f"{cls.__name__}-{key_order}")
    for n in (0, 1, 15, 16, 17, 31, 32, 64, 100, 255, 1000):
        key, nonce, msg = rng.randbytes(32), rng.randbytes(16), rng.randbytes(n)
        want = ref_tag(cls, key, nonce, msg, key_order)
        mac = Poly1305.new(key=key, cipher=cls, nonce=nonce, data=msg, key_order=key_order)
        assert mac.backend == kernel
        assert mac.digest() == want, (n, key.hex(), nonce.hex())
        assert Poly1305.mac_with_cipher(cls, key, nonce, msg, key_order) == want
        mac.verify(want)
    # the two layouts really differ
    key, nonce = rng.randbytes(32), rng.randbytes(16)
    assert (Poly1305.mac_with_cipher(cls, key, nonce, b"m", "kr")
            != Poly1305.mac_with_cipher(cls, key, nonce, b"m", "rk"))


def test_camellia_from_primitives_namespace_too():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cls = algorithms.Camellia
    key, nonce = bytes(range(32)), bytes(range(16))
    assert (Poly1305.mac_with_cipher(cls, key, nonce, b"abc")
            == ref_tag(decrepit.Camellia, key, nonce, b"abc"))


@pytest.mark.parametrize("cls", [decrepit.Camellia, algorithms.SM4, decrepit.SEED],
                         ids=lambda c: c.__name__)
def test_chunked_updates(cls, kernel):
    rng = random.Random(cls.__name__)
    for _ in range(20):
        key, nonce = rng.randbytes(32), rng.randbytes(16)
        msg = rng.randbytes(rng.randrange(0, 600))
        key_order = rng.choice(["kr", "rk"])
        mac = Poly1305.new(key=key, cipher=cls, nonce=nonce, key_order=key_order)
        pos = 0
        while pos < len(msg):
            step = rng.choice([1, 3, 15, 16, 17, 64, 200])
            assert mac.update(msg[pos:pos + step]) is mac
            pos += step
        assert mac.digest() == ref_tag(cls, key, nonce, msg, key_order)
        first = rng.randrange(0, len(msg) + 1)
        mac2 = Poly1305.new(key=key, cipher=cls, nonce=nonce, data=msg[:first],
                            key_order=key_order)
        mac2.update(msg[first:])
        assert mac2.hexdigest() == mac.hexdigest()


# -- callables ----------------------------------------------------------------------

def test_callable_cipher(kernel):
    calls = []

    def camellia_block(key, block):
        calls.append((bytes(key), bytes(block)))
        return ecb(decrepit.Camellia, key, block)

    key, nonce, msg = os.urandom(32), os.urandom(16), os.urandom(77)
    for key_order, cipher_key in (("kr", key[:16]), ("rk", key[16:])):
        del calls[:]
        tag = Poly1305.new(key=key, cipher=camellia_block, nonce=nonce, data=msg,
                           key_order=key_order).digest()
        assert calls == [(cipher_key, nonce)]
        assert tag == ref_tag(decrepit.Camellia, key, nonce, msg, key_order)
        assert tag == Poly1305.new(key=key, cipher=decrepit.Camellia, nonce=nonce, data=msg,
                                   key_order=key_order).digest()
        assert Poly1305.mac_with_cipher(camellia_block, key, nonce, msg, key_order) == tag


@pytest.mark.parametrize("wrap", [bytearray, memoryview, lambda b: b], ids=["bytearray", "memoryview", "bytes"])
def test_callable_result_types(wrap):
    key, nonce = bytes(range(32)), bytes(range(16))
    tag = Poly1305.mac_with_cipher(lambda k, b: wrap(ecb(algorithms.AES, k, b)), key, nonce, b"x")
    assert tag == ref_tag(algorithms.AES, key, nonce, b"x")


def test_callable_object_and_random_nonce():
    class SM4Block:
        def __call__(self, key, block):
            return ecb(algorithms.SM4, key, block)

    key = os.urandom(32)
    mac = Poly1305.new(key=key, cipher=SM4Block(), data=b"hello")
    assert isinstance(mac.nonce, bytes) and len(mac.nonce) == 16
    assert mac.digest() == ref_tag(algorithms.SM4, key, mac.nonce, b"hello")
    assert Poly1305.new(key=key, cipher=SM4Block()).nonce != mac.nonce


@pytest.mark.parametrize("result", [bytes(15), bytes(17), b"", None, 16],
                         ids=["15", "17", "0", "None", "int"])
def test_callable_wrong_output(result):
    with pytest.raises(ValueError, match="returned"):
        Poly1305.new(key=bytes(32), cipher=lambda k, b: result, nonce=bytes(16))
    with pytest.raises(ValueError, match="returned"):
        Poly1305.mac_with_cipher(lambda k, b: result, bytes(32), bytes(16), b"")


def test_callable_fifteen_bytes_message():
    def short(key, block):
        return ecb(algorithms.AES, key, block)[:15]

    with pytest.raises(ValueError, match=r"short.* returned 15 bytes"):
        Poly1305.new(key=bytes(32), cipher=short, nonce=bytes(16))


# -- ciphers that do not fit ----------------------------------------------------------

@pytest.mark.parametrize("cipher", [DES3, DES, Blowfish], ids=lambda m: m.__name__)
def test_pycryptodome_64bit_block_modules(cipher):
    with pytest.raises(ValueError, match=r"64-bit block"):
        Poly1305.new(key=bytes(32), cipher=cipher, nonce=bytes(16))
    with pytest.raises(ValueError, match=r"64-bit block"):
        Poly1305.mac_with_cipher(cipher, bytes(32), bytes(8), b"")


@pytest.mark.parametrize("cls", [decrepit.TripleDES, decrepit.Blowfish, decrepit.CAST5,
                                 decrepit.IDEA], ids=lambda c: c.__name__)
def test_cryptography_64bit_block_classes(cls):
    with pytest.raises(ValueError, match=rf"{cls.__name__}.* 64-bit block"):
        Poly1305.new(key=bytes(32), cipher=cls, nonce=bytes(16))


@pytest.mark.parametrize("cipher", [Salsa20, ARC4, algorithms.ChaCha20, decrepit.ARC4],
                         ids=["Salsa20", "Crypto.ARC4", "cryptography.ChaCha20", "cryptography.ARC4"])
def test_stream_ciphers_refused(cipher):
    with pytest.raises(ValueError, match="stream cipher|not a block cipher"):
        Poly1305.new(key=bytes(32), cipher=cipher, nonce=bytes(16))


def test_cipher_refusing_16_byte_keys():
    with pytest.raises(ValueError, match=r"AES256 refuses a 16-byte key"):
        Poly1305.new(key=bytes(32), cipher=algorithms.AES256, nonce=bytes(16))
    fake = types.ModuleType("fake_cipher")
    fake.block_size, fake.key_size, fake.MODE_ECB = 16, (24, 32), 1
    fake.new = lambda key, mode: None
    with pytest.raises(ValueError, match=r"fake_cipher refuses a 16-byte key"):
        Poly1305.new(key=bytes(32), cipher=fake, nonce=bytes(16))


@pytest.mark.parametrize("cipher", [None, 42, "AES", algorithms.AES(bytes(16))],
                         ids=["None", "int", "str", "instance"])
def test_not_a_cipher(cipher):
    with pytest.raises(ValueError, match="must be AES or ChaCha20.*not supported"):
        Poly1305.new(key=bytes(32), cipher=cipher, nonce=bytes(16))


@pytest.mark.parametrize("cipher", [Crypto_AES, algorithms.AES, decrepit.SEED],
                         ids=["Crypto.AES", "algorithms.AES", "SEED"])
def test_key_and_nonce_sizes(cipher):
    for n in (0, 16, 31, 33):
        with pytest.raises(ValueError, match="32-byte key"):
            Poly1305.new(key=bytes(n), cipher=cipher, nonce=bytes(16))
    for n in (0, 8, 12, 15, 17, 24):
        with pytest.raises(ValueError, match="16-byte nonce"):
            Poly1305.new(key=bytes(32), cipher=cipher, nonce=bytes(n))
        with pytest.raises(ValueError, match="16-byte nonce"):
            Poly1305.mac_with_cipher(cipher, bytes(32), bytes(n), b"")
    with pytest.raises(TypeError):
        Poly1305.new(key=None, cipher=cipher, nonce=bytes(16))
    with pytest.raises(TypeError, match="nonce"):
        Poly1305.mac_with_cipher(cipher, bytes(32), None, b"")
    with pytest.raises(ValueError, match="key_order"):
        Poly1305.new(key=bytes(32), cipher=cipher, nonce=bytes(16), key_order="rr")


def test_buffer_inputs():
    key, nonce, msg = bytes(range(32)), bytes(range(16)), b"buffers"
    for cipher, cls in ((Crypto_AES, algorithms.AES), (algorithms.AES, algorithms.AES),
                        (decrepit.Camellia, decrepit.Camellia)):
        want = ref_tag(cls, key, nonce, msg)
        for wrap in (bytearray, memoryview):
            mac = Poly1305.new(key=wrap(key), cipher=cipher, nonce=wrap(nonce), data=wrap(msg))
            assert mac.digest() == want and type(mac.nonce) is bytes
            assert Poly1305.mac_with_cipher(cipher, wrap(key), wrap(nonce), wrap(msg)) == want
            assert Poly1305.mac_with_cipher(cipher, wrap(key), wrap(nonce), msg, "rk") == \
                ref_tag(cls, key, nonce, msg, "rk")


# -- pycryptodome's behaviour is unchanged ---------------------------------------------

def test_pycryptodome_aes_equal(kernel):
    rng = random.Random(5)
    for n in list(range(0, 70)) + [255, 256, 1000, 4097]:
        key, nonce, msg = rng.randbytes(32), rng.randbytes(16), rng.randbytes(n)
        want = CryptoPoly1305.new(key=key, cipher=Crypto_AES, nonce=nonce, data=msg).digest()
        assert Poly1305.new(key=key, cipher=Crypto_AES, nonce=nonce, data=msg).digest() == want
        assert Poly1305.mac_with_cipher(Crypto_AES, key, nonce, msg) == want


def test_pycryptodome_random_nonce():
    key = os.urandom(32)
    mac = Poly1305.new(key=key, cipher=Crypto_AES, data=b"msg")
    assert type(mac.nonce) is bytes and len(mac.nonce) == 16
    assert mac.digest() == CryptoPoly1305.new(key=key, cipher=Crypto_AES, nonce=mac.nonce,
                                              data=b"msg").digest()


@pytest.mark.parametrize("cipher", [ChaCha20, Crypto_ChaCha20], ids=["poly1305x", "Crypto"])
def test_chacha20_unchanged(cipher, kernel):
    rng = random.Random(9)
    for nlen in (8, 12):
        for n in (0, 1, 16, 100):
            key, nonce, msg = rng.randbytes(32), rng.randbytes(nlen), rng.randbytes(n)
            want = CryptoPoly1305.new(key=key, cipher=Crypto_ChaCha20, nonce=nonce, data=msg).digest()
            assert Poly1305.new(key=key, cipher=cipher, nonce=nonce, data=msg).digest() == want
            assert Poly1305.mac_with_cipher(cipher, key, nonce, msg) == want
    mac = Poly1305.new(key=bytes(32), cipher=cipher)
    assert len(mac.nonce) in (8, 12)
    with pytest.raises(ValueError, match="key_order"):
        Poly1305.new(key=bytes(32), cipher=cipher, nonce=bytes(12), key_order="rk")


def test_backend_taken_at_creation():
    assert len(BACKENDS) >= 2, "portable and portable26 are always built"
    before = poly1305x.backend()
    key, nonce, msg = os.urandom(32), os.urandom(16), os.urandom(300)
    want = ref_tag(decrepit.Camellia, key, nonce, msg)
    try:
        macs = []
        for name in BACKENDS:
            poly1305x.set_backend(name)
            macs.append((name, Poly1305.new(key=key, cipher=decrepit.Camellia, nonce=nonce)))
        poly1305x.set_backend(BACKENDS[0])
        for name, mac in macs:
            mac.update(msg)
            assert mac.backend == name and mac.digest() == want
    finally:
        poly1305x.set_backend(before)


# -- Poly1305-Serpent through a callable (pyserpent is in the test extra) -----------

def test_poly1305_serpent_callable():
    from pyserpent import serpent

    def serpent_block(key, block):
        return serpent.Serpent(bytes(key)).encrypt(bytes(block))

    # NESSIE Serpent-128 set 1 vector 0: the byte order BouncyCastle uses too
    assert serpent_block(bytes.fromhex("80" + "00" * 15), bytes(16)).hex() == \
        "264e5481eff42a4606abda06c0bfda3d"
    rng = random.Random("serpent")
    for key_order in ("kr", "rk"):
        for n in (0, 16, 33):
            key, nonce, msg = rng.randbytes(32), rng.randbytes(16), rng.randbytes(n)
            cipher_key, r = (key[:16], key[16:]) if key_order == "kr" else (key[16:], key[:16])
            want = poly1305_ref(r, serpent_block(cipher_key, nonce), msg)
            assert Poly1305.new(key=key, cipher=serpent_block, nonce=nonce, data=msg,
                                key_order=key_order).digest() == want
            assert Poly1305.mac_with_cipher(serpent_block, key, nonce, msg, key_order) == want


@pytest.mark.parametrize("cipher", [Crypto_AES, algorithms.AES, lambda k, b: bytes(16)],
                         ids=["Crypto.AES", "algorithms.AES", "callable"])
def test_str_arguments_are_type_errors(cipher):
    """As in pycryptodome: text is not a key, nonce or message."""
    with pytest.raises(TypeError):
        Poly1305.new(key="2" * 32, cipher=cipher)
    with pytest.raises(TypeError):
        Poly1305.new(key=bytes(32), nonce="n" * 16, cipher=cipher)
    with pytest.raises(TypeError):
        Poly1305.new(key=bytes(32), data="2" * 100, cipher=cipher)
    with pytest.raises(TypeError):
        Poly1305.mac_with_cipher(cipher, "2" * 32, bytes(16), b"")
