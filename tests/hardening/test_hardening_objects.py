"""Hardening: objects and their state.  Objects that never went through
__init__, a second __init__, private entry points, plaintext hygiene of
decrypt_and_verify, and key hygiene (secrets leave the object's memory on
finalize and on free)."""
import ctypes
import gc
import os
import sys

import pytest

from poly1305x import ChaCha20, ChaCha20_Poly1305
from poly1305x import Poly1305 as PolyFace
from poly1305x._core import _engine
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
from poly1305x.mac import Poly1305
from tests.support.hardening import SANITIZED, UNINIT, assert_clean_exit, run_python


def _object_bytes(obj):
    return ctypes.string_at(id(obj), sys.getsizeof(obj))


def _pymalloc():
    return not SANITIZED and os.environ.get("PYTHONMALLOC", "") in ("", "pymalloc")


@pytest.mark.skipif(not _pymalloc(), reason="reads freed memory: only under pymalloc, not ASan")
def test_keys_wiped_on_free():
    """Best effort, as documented: after an object is freed, its key bytes are
    no longer in the memory it occupied.  (Reads the freed block; pymalloc
    keeps the pages mapped.)"""
    key = bytes(range(0xA0, 0xC0))        # distinctive
    makers = {
        "Poly1305": lambda: Poly1305(key),
        "Poly1305_MAC": lambda: PolyFace.new(key=key, cipher=ChaCha20, nonce=bytes(12)),
        "ChaCha20Cipher": lambda: ChaCha20.new(key=key, nonce=bytes(12)),
        "ChaCha20Poly1305": lambda: ChaCha20Poly1305(key),
        "XChaCha20Poly1305": lambda: XChaCha20Poly1305(key),
        "ChaCha20Poly1305Cipher": lambda: ChaCha20_Poly1305.new(key=key, nonce=bytes(12)),
    }
    needles = {
        # what each object holds verbatim: the key (stream state words 4-11 are
        # the key in little-endian order, i.e. the key bytes), or s = key[16:]
        "Poly1305": key[16:],
        "Poly1305_MAC": None,           # (r, s) come from ChaCha20 block 0: checked below
        "ChaCha20Cipher": key,
        "ChaCha20Poly1305": key,
        "XChaCha20Poly1305": None,      # holds the key; checked below
        "ChaCha20Poly1305Cipher": key,
    }
    needles["XChaCha20Poly1305"] = key
    r, s, _ = _engine.chacha20_poly1305_key_pair(key, bytes(12))
    needles["Poly1305_MAC"] = s
    for name, make in makers.items():
        obj = make()
        addr, size = id(obj), sys.getsizeof(obj)
        before = ctypes.string_at(addr, size)
        assert needles[name] in before, f"{name}: test does not find the key in the live object"
        del obj
        gc.collect()
        after = ctypes.string_at(addr, size)
        assert needles[name] not in after, f"{name}: key left in freed memory"


@pytest.mark.skipif(SANITIZED, reason="reads object memory with ctypes")
def test_mac_key_wiped_at_finalize():
    """A finished cryptography-style MAC keeps only its tag."""
    key = bytes(range(0x40, 0x60))
    p = Poly1305(key)
    p.update(b"x" * 100)
    assert key[16:] in _object_bytes(p)
    p.finalize()
    assert key[16:] not in _object_bytes(p)



# ---------------------------------------------------------------------------
# Objects that never went through __init__: every method
# refuses them with a RuntimeError; before, the NULL kernel table crashed the
# interpreter, so the calls run in a subprocess.
# ---------------------------------------------------------------------------

UNINIT_CALLS = '''
import sys
from poly1305x._core import _engine
from poly1305x.aead import ChaCha20Poly1305, XChaCha20Poly1305
from poly1305x.mac import Poly1305

N12, N24, K = bytes(12), bytes(24), bytes(32)
CALLS = {
    ChaCha20Poly1305: [
        lambda o: o.backend, lambda o: o.encrypt(N12, b"x", None),
        lambda o: o.decrypt(N12, bytes(32), None),
        lambda o: o.encrypt_into(N12, b"x", None, bytearray(17)),
        lambda o: o.decrypt_into(N12, bytes(17), None, bytearray(1))],
    XChaCha20Poly1305: [lambda o: o.backend, lambda o: o.encrypt(N24, b"x" * 5000, b"a")],
    Poly1305: [lambda o: o.backend, lambda o: o.update(b"x" * 5000), lambda o: o.finalize(),
               lambda o: o.verify(bytes(16))],
    _engine.Poly1305_MAC: [lambda o: o.backend, lambda o: o.update(b"x"), lambda o: o.digest(),
                           lambda o: o.hexdigest(), lambda o: o.verify(bytes(16))],
    _engine.ChaCha20Cipher: [lambda o: o.backend, lambda o: o.encrypt(b"x" * 5000),
                             lambda o: o.decrypt(b"x"), lambda o: o.seek(64)],
    _engine.ChaCha20Poly1305Cipher: [
        lambda o: o.backend, lambda o: o.update(b"a"), lambda o: o.encrypt(b"x" * 5000),
        lambda o: o.decrypt(b"x"), lambda o: o.digest(), lambda o: o.verify(bytes(16)),
        lambda o: o._cipher.seek(64), lambda o: o.encrypt_and_digest(b"x"),
        lambda o: o.decrypt_and_verify(b"x", bytes(16))],
}


def objects(cls):
    yield "__new__", cls.__new__(cls)

    class Forgetful(cls):
        def __init__(self, *args, **kwargs):      # never calls super().__init__()
            pass

    yield "subclass", Forgetful(K)


for cls, calls in CALLS.items():
    for how, obj in objects(cls):
        for i, call in enumerate(calls):
            try:
                call(obj)
            except RuntimeError as exc:
                assert "not initialised" in str(exc), (cls, how, i, exc)
            else:
                raise AssertionError(f"{cls.__name__} ({how}) call {i} ran uninitialised")
print("OK")
'''


def test_uninitialised_objects_are_refused():
    assert_clean_exit(run_python(UNINIT_CALLS))


def test_uninitialised_message_names_the_fix():
    c = _engine.ChaCha20Cipher.__new__(_engine.ChaCha20Cipher)
    with pytest.raises(RuntimeError, match=UNINIT + ".*super\\(\\).__init__"):
        c.encrypt(b"x")


def test_packet_cipher_needs_its_key_at_creation():
    from poly1305x.openssh._ssh import PacketCipher
    with pytest.raises(TypeError):
        PacketCipher.__new__(PacketCipher)
    key = bytes(range(64))
    p = PacketCipher(key)
    body = b"\x04payload!!!"
    packet = len(body).to_bytes(4, "big") + body
    sealed = p.seal(3, packet)
    p.__init__(bytes(64))                  # object.__init__: the key stays
    assert p.seal(3, packet) == sealed


# ---------------------------------------------------------------------------
# A second __init__ is refused (item 3): keys and states are set once
# ---------------------------------------------------------------------------

def test_second_init_does_not_rekey_aead():
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as CryptoAEAD
    k1, k2 = bytes(range(32)), bytes(range(1, 33))
    for cls in (ChaCha20Poly1305, XChaCha20Poly1305):
        a = cls(k1)
        with pytest.raises(RuntimeError, match="already initialised"):
            a.__init__(k2)
        if cls is ChaCha20Poly1305:
            assert a.encrypt(bytes(12), b"msg", None) == CryptoAEAD(k1).encrypt(bytes(12), b"msg", None)


def test_second_init_does_not_reset_cipher_state():
    key, nonce = bytes(range(32)), bytes(12)
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    ct, tag = c.encrypt_and_digest(b"first message")
    with pytest.raises(RuntimeError, match="already initialised"):
        c.__init__(key, nonce)
    assert c.digest() == tag
    with pytest.raises(TypeError):               # still finished: no second message
        c.encrypt(b"second message")
    s = ChaCha20.new(key=key, nonce=nonce)
    first = s.encrypt(bytes(10))
    with pytest.raises(RuntimeError, match="already initialised"):
        s.__init__(key, nonce)
    assert first + s.encrypt(bytes(10)) == ChaCha20.new(key=key, nonce=nonce).encrypt(bytes(20))
    m = Poly1305(key)
    m.update(b"abc")
    with pytest.raises(RuntimeError, match="already initialised"):
        m.__init__(bytes(32))
    assert m.finalize() == Poly1305.generate_tag(key, b"abc")
    p = PolyFace.new(key=key, cipher=ChaCha20, nonce=nonce)
    with pytest.raises(RuntimeError, match="already initialised"):
        p.__init__(bytes(16), bytes(16), b"")


def test_failed_first_init_can_be_retried():
    a = ChaCha20Poly1305.__new__(ChaCha20Poly1305)
    with pytest.raises(ValueError):
        a.__init__(bytes(31))
    with pytest.raises(RuntimeError, match=UNINIT):
        a.encrypt(bytes(12), b"x", None)
    a.__init__(bytes(32))
    assert a.decrypt(bytes(12), a.encrypt(bytes(12), b"x", None), None) == b"x"


# ---------------------------------------------------------------------------
# Worker entry points take no addresses from Python (item 8)
# ---------------------------------------------------------------------------

def test_no_raw_address_entry_points():
    assert not hasattr(_engine, "_thread_xor")
    proc = run_python('''
        from poly1305x._core import _engine
        for name in dir(_engine):
            obj = getattr(_engine, name)
            if isinstance(obj, type) and name.startswith("_Xor"):
                job = obj.__new__(obj)          # a job made from Python has no slots
                for i in (-1, 0, 1, 2**31):
                    job.run(i)
        print("OK")
    ''')
    assert_clean_exit(proc)


# ---------------------------------------------------------------------------
# decrypt_and_verify checks the tag's type before decrypting (item 11)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [None, "0" * 16, 16, object()])
def test_decrypt_and_verify_refuses_bad_tag_types_before_decrypting(bad):
    key, nonce = bytes(range(32)), bytes(12)
    c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    ct, tag = c.encrypt_and_digest(b"secret" * 100)
    d = ChaCha20_Poly1305.new(key=key, nonce=nonce)
    with pytest.raises(TypeError):
        d.decrypt_and_verify(ct, bad)
    # nothing was decrypted: the object still stands at the start of the message
    assert d.decrypt_and_verify(ct, tag) == b"secret" * 100


def test_decrypt_and_verify_wrong_tag_length_is_mac_check_failed():
    key, nonce = bytes(range(32)), bytes(12)
    ct, tag = ChaCha20_Poly1305.new(key=key, nonce=nonce).encrypt_and_digest(b"secret")
    for bad in (tag[:15], tag + b"\0", b""):
        with pytest.raises(ValueError, match="MAC check failed"):
            ChaCha20_Poly1305.new(key=key, nonce=nonce).decrypt_and_verify(ct, bad)
