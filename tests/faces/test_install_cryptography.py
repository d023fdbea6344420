"""poly1305x.install("cryptography"): cryptography's ChaCha20Poly1305 and
Poly1305 served by poly1305x, for code that looks them up after the call;
uninstall() undoes it exactly; the POLY1305X_INSTALL start-up hook.

cryptography's own tests of the two classes run against them in
tests/faces/test_cryptography_suite.py."""
import copy
import mmap
import os
import pickle
import subprocess
import sys
import textwrap
import threading

import pytest

import cryptography.exceptions as cg_exc
import cryptography.hazmat.primitives.ciphers.aead as cg_aead
import cryptography.hazmat.primitives.poly1305 as cg_poly

import poly1305x
from poly1305x import _install
from poly1305x import _install_cryptography as served
from poly1305x.aead import ChaCha20Poly1305 as OurAEAD
from poly1305x.mac import Poly1305 as OurPoly1305
from tests.support.helpers import run_threads

CG_AEAD, CG_POLY = cg_aead.ChaCha20Poly1305, cg_poly.Poly1305   # cryptography's classes
NAMES = ("cryptography.hazmat.primitives.ciphers.aead.ChaCha20Poly1305",
         "cryptography.hazmat.primitives.poly1305.Poly1305")
KEY, NONCE = bytes(range(32)), bytes(range(12))


@pytest.fixture
def cryptography_install_undone():
    """Every install is undone; cryptography's names are its own again after."""
    assert not _install.installed()
    try:
        yield
    finally:
        poly1305x.uninstall()
        assert cg_aead.ChaCha20Poly1305 is CG_AEAD and cg_poly.Poly1305 is CG_POLY
        assert not _install.installed()


def test_install_serves_both_names_and_uninstall_restores(cryptography_install_undone):
    assert poly1305x.install("cryptography") == NAMES
    assert _install.installed() == NAMES
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.poly1305 import Poly1305
    assert ChaCha20Poly1305 is served.ChaCha20Poly1305 and Poly1305 is served.Poly1305
    assert issubclass(ChaCha20Poly1305, OurAEAD) and issubclass(Poly1305, OurPoly1305)
    assert ChaCha20Poly1305(KEY).backend == poly1305x.backend()
    assert "Crypto.Cipher.ChaCha20" not in str(_install.installed())   # pycryptodome untouched
    poly1305x.uninstall()
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305 as again
    assert again is CG_AEAD


def test_peers_combined_all_and_one_at_a_time(cryptography_install_undone):
    both = poly1305x.install("pycryptodome", "cryptography")
    assert both[-2:] == NAMES and "Crypto.Cipher.ChaCha20_Poly1305" in both
    poly1305x.uninstall("cryptography")
    assert cg_aead.ChaCha20Poly1305 is CG_AEAD
    assert _install.installed() == both[:-2]
    assert sys.modules["Crypto.Cipher.ChaCha20"] is poly1305x.ChaCha20
    assert poly1305x.install("all") == both
    assert poly1305x.install() == both               # pycryptodome on already: no change
    poly1305x.uninstall("pycryptodome")
    assert _install.installed() == NAMES
    assert sys.modules["Crypto.Cipher.ChaCha20"] is not poly1305x.ChaCha20


def test_bad_peer_names(cryptography_install_undone):
    with pytest.raises(ValueError, match="unknown peer 'pyca'"):
        poly1305x.install("pyca")
    with pytest.raises(ValueError):
        poly1305x.install("cryptography", "nacl")      # nothing installed: checked first
    with pytest.raises(TypeError):
        poly1305x.install(b"cryptography")
    assert not _install.installed()


def test_idempotent_and_a_rebound_name_is_left_alone(cryptography_install_undone):
    poly1305x.install("cryptography")
    records = list(_install._cg_switch._records)
    assert poly1305x.install("cryptography") == NAMES
    assert _install._cg_switch._records == records
    sentinel = object()
    cg_poly.Poly1305 = sentinel                       # someone else rebinds it
    try:
        poly1305x.uninstall()
        assert cg_poly.Poly1305 is sentinel and cg_aead.ChaCha20Poly1305 is CG_AEAD
    finally:
        cg_poly.Poly1305 = CG_POLY


def test_reference_bound_before_install_is_cryptography_s(cryptography_install_undone):
    """The documented limit: a class bound before install() stays
    cryptography's, and isinstance against cryptography's class is False."""
    early = cg_aead.ChaCha20Poly1305
    poly1305x.install("cryptography")
    assert type(early(KEY)) is CG_AEAD
    late = cg_aead.ChaCha20Poly1305(KEY)
    assert not isinstance(late, CG_AEAD)
    assert early(KEY).encrypt(NONCE, b"same", b"ad") == late.encrypt(NONCE, b"same", b"ad")


def test_keywords_into_and_generate_key(cryptography_install_undone):
    poly1305x.install("cryptography")
    ours = cg_aead.ChaCha20Poly1305(key=KEY)
    theirs = CG_AEAD(key=KEY)
    for n in (0, 1, 63, 64, 65, 1024, 4097):
        data, ad = os.urandom(n), os.urandom(n % 29)
        ct = ours.encrypt(nonce=NONCE, data=data, associated_data=ad)
        assert ct == theirs.encrypt(nonce=NONCE, data=data, associated_data=ad)
        assert ours.decrypt(nonce=NONCE, data=ct, associated_data=ad) == data
        buf = bytearray(n + 16)
        assert ours.encrypt_into(nonce=NONCE, data=data, associated_data=None, buf=buf) == n + 16
        assert bytes(buf) == theirs.encrypt(NONCE, data, None)
        out = bytearray(n)
        assert ours.decrypt_into(nonce=NONCE, data=bytes(buf), associated_data=None, buf=out) == n
        assert out == data
    key = cg_aead.ChaCha20Poly1305.generate_key()
    assert type(key) is bytes and len(key) == 32 and key != cg_aead.ChaCha20Poly1305.generate_key()
    tag = cg_poly.Poly1305.generate_tag(key=KEY, data=b"msg")
    assert tag == CG_POLY.generate_tag(KEY, b"msg")
    cg_poly.Poly1305.verify_tag(key=KEY, data=b"msg", tag=tag)
    mac = cg_poly.Poly1305(key=KEY)
    mac.update(data=b"msg")
    mac.verify(signature=tag)


def test_exceptions_are_cryptography_s(cryptography_install_undone):
    poly1305x.install("cryptography")
    aead = cg_aead.ChaCha20Poly1305(KEY)
    ct = bytearray(aead.encrypt(NONCE, b"message", None))
    ct[0] ^= 1
    with pytest.raises(cg_exc.InvalidTag):
        aead.decrypt(NONCE, bytes(ct), None)
    with pytest.raises(cg_exc.InvalidTag):
        aead.decrypt(NONCE, b"short", None)
    with pytest.raises(ValueError, match="Nonce must be 12 bytes"):
        aead.encrypt(bytes(8), b"", None)
    with pytest.raises(ValueError, match="ChaCha20Poly1305 key must be 32 bytes."):
        cg_aead.ChaCha20Poly1305(bytes(16))
    with pytest.raises(ValueError, match="buffer must be 23 bytes"):
        aead.encrypt_into(NONCE, b"1234567", None, bytearray(22))
    with pytest.raises(cg_exc.InvalidSignature):
        cg_poly.Poly1305.verify_tag(KEY, b"msg", bytes(16))
    mac = cg_poly.Poly1305(KEY)
    mac.finalize()
    with pytest.raises(cg_exc.AlreadyFinalized):
        mac.update(b"more")


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy"])
def test_pickling_and_copying_refused_as_cryptography_refuses(cryptography_install_undone, how):
    refuse = {"pickle": pickle.dumps, "copy": copy.copy, "deepcopy": copy.deepcopy}[how]
    poly1305x.install("cryptography")
    for theirs, ours in ((CG_AEAD(KEY), cg_aead.ChaCha20Poly1305(KEY)),
                         (CG_POLY(KEY), cg_poly.Poly1305(KEY))):
        with pytest.raises(TypeError, match="cannot pickle"):
            refuse(theirs)
        with pytest.raises(TypeError, match=r"cannot pickle 'poly1305x\.[\w.]+' object"):
            refuse(ours)


def test_length_limits_are_cryptography_s(cryptography_install_undone):
    """cryptography refuses data (encrypt) and associated data (both ways)
    over 2**31 - 1 bytes with OverflowError; so does the served class, before
    any work (poly1305x's own class takes RFC 8439's 2**38 - 64)."""
    poly1305x.install("cryptography")
    aead = cg_aead.ChaCha20Poly1305(KEY)
    big = mmap.mmap(-1, 2**31, prot=mmap.PROT_READ)      # not touched: no memory used
    try:
        for cls in (CG_AEAD, cg_aead.ChaCha20Poly1305):
            obj = cls(KEY)
            with pytest.raises(OverflowError, match=r"Max 2\*\*31 - 1 bytes"):
                obj.encrypt(NONCE, big, None)
            with pytest.raises(OverflowError):
                obj.encrypt(NONCE, b"", big)
            with pytest.raises(OverflowError):
                obj.decrypt(NONCE, bytes(16), big)
            with pytest.raises(OverflowError):
                obj.encrypt_into(NONCE, big, None, bytearray(16))
            with pytest.raises(OverflowError):
                obj.decrypt_into(NONCE, bytes(16), big, bytearray(0))
        assert aead.encrypt(NONCE, memoryview(big)[:1000], None) == \
            CG_AEAD(KEY).encrypt(NONCE, bytes(1000), None)
    finally:
        big.close()


def test_thread_safety(cryptography_install_undone):
    errors = []
    barrier = threading.Barrier(6)

    def worker(i):
        try:
            barrier.wait()
            for j in range(200):
                if (i + j) % 3:
                    poly1305x.install("cryptography")
                else:
                    poly1305x.uninstall()
                assert _install.installed() in ((), NAMES)
                cls = cg_aead.ChaCha20Poly1305
                assert cls in (CG_AEAD, served.ChaCha20Poly1305)
        except BaseException as exc:
            errors.append(exc)

    run_threads(worker, 6)
    assert not errors, errors


# ---------------------------------------------------------------------------
# The start-up hook (subprocesses)
# ---------------------------------------------------------------------------

def _run(code, value):
    env = dict(os.environ, POLY1305X_INSTALL=value)
    proc = subprocess.run([sys.executable, "-W", "always", "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.split(), proc.stderr


CODE = """
    import poly1305x
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    import Crypto.Cipher.ChaCha20 as c20
    print(ChaCha20Poly1305.__module__, c20.__name__)
"""
SERVED, THEIRS = "poly1305x._install_cryptography", "cryptography.hazmat.bindings._rust.openssl.aead"


@pytest.mark.parametrize("value, expected", [
    ("cryptography", [SERVED, "Crypto.Cipher.ChaCha20"]),
    ("all", [SERVED, "poly1305x.ChaCha20"]),
    ("pycryptodome, cryptography", [SERVED, "poly1305x.ChaCha20"]),
    ("1", [THEIRS, "poly1305x.ChaCha20"]),
    ("0", [THEIRS, "Crypto.Cipher.ChaCha20"]),
])
def test_environment_hook(value, expected):
    out, err = _run(CODE, value)
    assert out == expected and "Warning" not in err, err


def test_environment_hook_warns_and_never_fails_the_import():
    out, err = _run(CODE, "cryptograhpy")         # misspelt: =1's meaning, with a warning
    assert out == [THEIRS, "poly1305x.ChaCha20"]
    assert "POLY1305X_INSTALL='cryptograhpy' names no peer" in err
    out, err = _run(CODE, "cryptography,nacl")    # an unknown name in a list: nothing
    assert out == [THEIRS, "Crypto.Cipher.ChaCha20"] and "unknown peer 'nacl'" in err


def test_without_cryptography():
    out, err = _run("""
        import sys
        sys.modules["cryptography"] = None      # not installed
        import poly1305x
        print(poly1305x._install.installed())
        try:
            poly1305x.install("cryptography")
        except ImportError as exc:
            print("ImportError")
        print(len(poly1305x.install("all")))    # pycryptodome alone
    """, "cryptography")
    assert out == ["()", "ImportError", "6"]
    assert "POLY1305X_INSTALL is set, but poly1305x.install('cryptography') stands in" in err


def test_modules_not_imported_yet_are_served_when_they_are():
    """install("cryptography") does not import cryptography's AEAD or Poly1305
    module (a client that imports them lazily keeps doing so): each name is
    served as the module arrives, and uninstall() before that cancels it."""
    out, err = _run("""
        import sys
        import poly1305x
        aead = "cryptography.hazmat.primitives.ciphers.aead"
        print(aead in sys.modules, len(poly1305x.installed()))
        from cryptography.hazmat.primitives.poly1305 import Poly1305
        print(aead in sys.modules, Poly1305.__module__)
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
        print(ChaCha20Poly1305.__module__, ChaCha20Poly1305(bytes(32)).encrypt(bytes(12), b"", None).hex())
        print(any(type(f).__name__ == "AfterImport" for f in sys.meta_path))
        poly1305x.uninstall()
        import cryptography.hazmat.primitives.ciphers.aead as mod
        print(mod.ChaCha20Poly1305.__module__, poly1305x.installed())
    """, "cryptography")
    tag = CG_AEAD(bytes(32)).encrypt(bytes(12), b"", None).hex()
    assert out == ["False", "2", "False", SERVED, SERVED, tag, "False", THEIRS, "()"], out
    out, err = _run("""
        import sys
        import poly1305x
        poly1305x.uninstall()
        print(any(type(f).__name__ == "AfterImport" for f in sys.meta_path))
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
        print(ChaCha20Poly1305.__module__)
    """, "cryptography")
    assert out == ["False", THEIRS]
