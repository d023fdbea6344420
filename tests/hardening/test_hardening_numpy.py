"""Hardening: the exception classes of refused buffers, numpy
arrays as well as memoryviews.  A non-contiguous input or output is a
BufferError for cryptography's face and a TypeError for pycryptodome's
(NotContiguousError is both); a read-only output is a TypeError on both.
numpy refuses such buffer requests with ValueError, which must not reach the
caller: InvalidTag is a ValueError too, and a bad buffer would look like a
bad tag.  Each case is run on the peer too and the classes compared."""
import numpy as np
import pytest

from poly1305x import ChaCha20, ChaCha20_Poly1305
from poly1305x import Poly1305 as PolyFace
from poly1305x.aead import ChaCha20Poly1305
from poly1305x.mac import Poly1305

from Crypto.Cipher import ChaCha20 as PcdChaCha20
from Crypto.Cipher import ChaCha20_Poly1305 as PcdChaCha20Poly1305
from Crypto.Hash import Poly1305 as PcdPoly1305
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD
from cryptography.hazmat.primitives.poly1305 import Poly1305 as CryptoPoly1305
from tests.support.helpers import strided

K, N = bytes(range(32)), bytes(12)




def read_only(kind, n):
    if kind == "numpy":
        a = np.zeros(n, dtype=np.uint8)
        a.flags.writeable = False
        return a
    return memoryview(bytes(n))


def sealed(n):
    return CryptoAEAD(K).encrypt(N, bytes(n), None)


# (name, face, ours(buffer), theirs(buffer)): the buffer is the argument under test
INPUTS = [
    ("aead.encrypt data", "cryptography",
     lambda m, b: m(K).encrypt(N, b, None), (ChaCha20Poly1305, CryptoAEAD)),
    ("aead.encrypt aad", "cryptography",
     lambda m, b: m(K).encrypt(N, b"x", b), (ChaCha20Poly1305, CryptoAEAD)),
    ("aead.decrypt data", "cryptography",
     lambda m, b: m(K).decrypt(N, b, None), (ChaCha20Poly1305, CryptoAEAD)),
    ("mac.generate_tag", "cryptography",
     lambda m, b: m.generate_tag(K, b), (Poly1305, CryptoPoly1305)),
    ("mac.update", "cryptography",
     lambda m, b: m(K).update(b), (Poly1305, CryptoPoly1305)),
    ("ChaCha20.encrypt", "pycryptodome",
     lambda m, b: m.new(key=K, nonce=N).encrypt(b), (ChaCha20, PcdChaCha20)),
    ("ChaCha20_Poly1305.encrypt", "pycryptodome",
     lambda m, b: m.new(key=K, nonce=N).encrypt(b), (ChaCha20_Poly1305, PcdChaCha20Poly1305)),
    ("ChaCha20_Poly1305.update", "pycryptodome",
     lambda m, b: m.new(key=K, nonce=N).update(b), (ChaCha20_Poly1305, PcdChaCha20Poly1305)),
    ("Poly1305.update", "pycryptodome",
     lambda m, b: m.new(key=K, cipher=m is PolyFace and ChaCha20 or PcdChaCha20).update(b),
     (PolyFace, PcdPoly1305)),
]

OUTPUTS = [
    ("aead.encrypt_into", "cryptography",
     lambda m, o: m(K).encrypt_into(N, bytes(32), None, o), 48, (ChaCha20Poly1305, CryptoAEAD)),
    ("aead.decrypt_into", "cryptography",
     lambda m, o: m(K).decrypt_into(N, sealed(32), None, o), 32, (ChaCha20Poly1305, CryptoAEAD)),
    ("ChaCha20.encrypt output", "pycryptodome",
     lambda m, o: m.new(key=K, nonce=N).encrypt(bytes(32), output=o), 32, (ChaCha20, PcdChaCha20)),
    ("ChaCha20_Poly1305.encrypt output", "pycryptodome",
     lambda m, o: m.new(key=K, nonce=N).encrypt(bytes(32), output=o), 32,
     (ChaCha20_Poly1305, PcdChaCha20Poly1305)),
]


def raised(call):
    try:
        call()
    except Exception as exc:    # the class is what is compared
        return exc
    raise AssertionError("no exception")


def check(ours, theirs, face):
    assert isinstance(ours, type(theirs)), (type(ours), type(theirs))
    assert not isinstance(ours, ValueError), type(ours)     # never InvalidTag-like
    # cryptography: BufferError.  pycryptodome: TypeError for numpy, the
    # memoryview's own BufferError for a memoryview.  NotContiguousError is both.
    assert isinstance(ours, BufferError) and isinstance(ours, TypeError), type(ours)


@pytest.mark.parametrize("kind", ["numpy", "memoryview"])
@pytest.mark.parametrize("name,face,call,mods", INPUTS, ids=[c[0] for c in INPUTS])
def test_non_contiguous_input(backend, kind, name, face, call, mods):
    ours, theirs = mods
    check(raised(lambda: call(ours, strided(48, True, kind))),
          raised(lambda: call(theirs, strided(48, True, kind))), face)


@pytest.mark.parametrize("kind", ["numpy", "memoryview"])
@pytest.mark.parametrize("name,face,call,n,mods", OUTPUTS, ids=[c[0] for c in OUTPUTS])
def test_read_only_output(backend, kind, name, face, call, n, mods):
    ours, theirs = mods
    a = raised(lambda: call(ours, read_only(kind, n)))
    b = raised(lambda: call(theirs, read_only(kind, n)))
    assert isinstance(b, TypeError) and isinstance(a, TypeError), (type(a), type(b))
    assert not isinstance(a, ValueError)


@pytest.mark.parametrize("kind", ["numpy", "memoryview"])
@pytest.mark.parametrize("name,face,call,n,mods", OUTPUTS, ids=[c[0] for c in OUTPUTS])
def test_non_contiguous_output(backend, kind, name, face, call, n, mods):
    ours, theirs = mods
    check(raised(lambda: call(ours, strided(n, True, kind))),
          raised(lambda: call(theirs, strided(n, True, kind))), face)


def test_contiguous_numpy_still_works(backend):
    data = np.arange(64, dtype=np.uint8)
    out = np.zeros(80, dtype=np.uint8)
    assert ChaCha20Poly1305(K).encrypt_into(N, data, None, out) == 80
    assert out.tobytes() == CryptoAEAD(K).encrypt(N, data.tobytes(), None)
    assert Poly1305.generate_tag(K, data) == CryptoPoly1305.generate_tag(K, data.tobytes())
