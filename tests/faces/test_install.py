"""poly1305x.install() / uninstall(): the drop-in for unmodified pycryptodome
code, and how closely poly1305x's modules mirror pycryptodome's API (names,
signatures, attributes, exception classes and messages).

pycryptodome's own test files run against the installed modules in
tests/faces/test_pycryptodome_suite.py."""
import importlib
import inspect
import os
import re
import subprocess
import sys
import textwrap
import threading
import types

import pytest

import poly1305x
from poly1305x import _install
from poly1305x._core import _engine
from tests.support.helpers import run_threads

import Crypto  # noqa: E402
from Crypto.Cipher import AES, DES3  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUBS = ("Hash.Poly1305", "Cipher.ChaCha20", "Cipher.ChaCha20_Poly1305")
OURS = {"Hash.Poly1305": poly1305x.Poly1305, "Cipher.ChaCha20": poly1305x.ChaCha20,
        "Cipher.ChaCha20_Poly1305": poly1305x.ChaCha20_Poly1305}
CLASSES = {"Hash.Poly1305": "Poly1305_MAC", "Cipher.ChaCha20": "ChaCha20Cipher",
           "Cipher.ChaCha20_Poly1305": "ChaCha20Poly1305Cipher"}


def families():
    out = []
    for fam in ("Crypto", "Cryptodome"):
        try:
            importlib.import_module(fam + ".Cipher.ChaCha20_Poly1305")
            out.append(fam)
        except ImportError:
            pass
    return out


FAMILIES = families()


def originals():
    """pycryptodome's own module objects (install() must not be active)."""
    assert not _install.installed()
    mods = {}
    for fam in FAMILIES:
        for sub in SUBS:
            mod = importlib.import_module(f"{fam}.{sub}")
            assert mod.__name__ == f"{fam}.{sub}"
            mods[fam, sub] = mod
    return mods


def snapshot():
    """Everything install() may touch, by identity."""
    state = {}
    for (fam, sub), mod in originals().items():
        parent = sys.modules[f"{fam}.{sub}".rpartition(".")[0]]
        state[fam, sub] = (sys.modules.get(f"{fam}.{sub}"), parent.__dict__.get(sub.split(".")[1]),
                           {k: v for k, v in vars(mod).items() if not k.startswith("__")})
    return state


@pytest.fixture
def clean():
    """install() in the test is always undone; the state after is the state before."""
    before = snapshot()
    try:
        yield before
    finally:
        poly1305x.uninstall()
        after = snapshot()
        assert after.keys() == before.keys()
        for key in before:
            assert after[key][0] is before[key][0] and after[key][1] is before[key][1]
            assert after[key][2].keys() == before[key][2].keys()
            assert all(after[key][2][k] is v for k, v in before[key][2].items()), key


# ---------------------------------------------------------------------------
# install() / uninstall()
# ---------------------------------------------------------------------------

def test_install_swaps_modules_and_package_attributes(clean):
    names = poly1305x.install()
    assert set(names) == {f"{fam}.{sub}" for fam in FAMILIES for sub in SUBS}
    assert "Cryptodome" in FAMILIES, "pycryptodomex is a test dependency"
    for fam in FAMILIES:
        for sub in SUBS:
            name = f"{fam}.{sub}"
            assert sys.modules[name] is OURS[sub]
            assert importlib.import_module(name) is OURS[sub]
            pkg, leaf = name.rsplit(".", 1)
            assert getattr(sys.modules[pkg], leaf) is OURS[sub]
    from Crypto.Cipher import ChaCha20, ChaCha20_Poly1305
    from Crypto.Hash import Poly1305
    from Cryptodome.Cipher import ChaCha20_Poly1305 as X
    import Crypto.Cipher.ChaCha20_Poly1305 as Y
    assert ChaCha20 is poly1305x.ChaCha20 and Poly1305 is poly1305x.Poly1305
    assert ChaCha20_Poly1305 is X is Y is poly1305x.ChaCha20_Poly1305
    assert type(ChaCha20_Poly1305.new(key=bytes(32))) is _engine.ChaCha20Poly1305Cipher
    assert type(Poly1305.new(key=bytes(32), cipher=AES)) is _engine.Poly1305_MAC


def test_uninstall_restores_pycryptodome(clean):
    poly1305x.install()
    poly1305x.uninstall()
    from Crypto.Cipher import ChaCha20_Poly1305
    assert ChaCha20_Poly1305 is clean["Crypto", "Cipher.ChaCha20_Poly1305"][0]
    assert ChaCha20_Poly1305.__name__ == "Crypto.Cipher.ChaCha20_Poly1305"
    assert type(ChaCha20_Poly1305.new(key=bytes(32))).__module__ == "Crypto.Cipher.ChaCha20_Poly1305"


def test_module_bound_before_install_reaches_poly1305x(clean):
    mods = originals()    # what a library bound at its import, before install()
    key, nonce, aad, msg = bytes(range(32)), bytes(range(12)), b"aad", b"message" * 9
    expected = mods["Crypto", "Cipher.ChaCha20_Poly1305"].new(key=key, nonce=nonce)
    expected.update(aad)
    expected = expected.encrypt_and_digest(msg)
    poly1305x.install()
    for (fam, sub), mod in mods.items():
        assert mod.__name__ == f"{fam}.{sub}"              # still pycryptodome's module object
        assert mod.new is OURS[sub].new
        assert getattr(mod, CLASSES[sub]) is getattr(OURS[sub], CLASSES[sub])
        c20 = mods[fam, "Cipher.ChaCha20"]
        obj = {"Hash.Poly1305": lambda: mod.new(key=key, cipher=c20, nonce=nonce),
               "Cipher.ChaCha20": lambda: mod.new(key=key, nonce=nonce),
               "Cipher.ChaCha20_Poly1305": lambda: mod.new(key=key, nonce=nonce)}[sub]()
        assert isinstance(obj, getattr(mod, CLASSES[sub]))
        assert type(obj).__module__ == "poly1305x._core._engine"
        assert obj.backend == poly1305x.backend()
    cipher = mods["Crypto", "Cipher.ChaCha20_Poly1305"].new(key=key, nonce=nonce)
    cipher.update(aad)
    assert cipher.encrypt_and_digest(msg) == expected
    poly1305x.uninstall()
    for (fam, sub), mod in mods.items():
        assert mod.new.__module__ == f"{fam}.{sub}"
        assert type(mod.new(key=key, nonce=nonce) if sub != "Hash.Poly1305"
                    else mod.new(key=key, cipher=AES)).__module__ == f"{fam}.{sub}"


def test_new_function_bound_before_install_is_pycryptodome_s(clean):
    """The documented limit: a reference to pycryptodome's ``new`` itself keeps
    pycryptodome's function (its checks, its defaults); the object it builds
    comes from its module's class, which install() patched."""
    from Crypto.Cipher.ChaCha20_Poly1305 import new as bound_new
    from Crypto.Cipher.ChaCha20 import ChaCha20Cipher as bound_class
    poly1305x.install()
    assert bound_new is not poly1305x.ChaCha20_Poly1305.new
    assert bound_new.__module__ == "Crypto.Cipher.ChaCha20_Poly1305"
    obj = bound_new(key=bytes(32), nonce=bytes(24))
    assert type(obj) is _engine.ChaCha20Poly1305Cipher and obj.nonce == bytes(24)
    ref = poly1305x.ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(24))
    assert obj.encrypt_and_digest(b"x" * 100) == ref.encrypt_and_digest(b"x" * 100)
    assert not isinstance(poly1305x.ChaCha20.new(key=bytes(32)), bound_class)


def test_idempotent_and_rebound_names_left_alone(clean):
    first = poly1305x.install()
    records = list(_install._switch._records)
    assert poly1305x.install() == first and _install._switch._records == records
    orig = clean["Crypto", "Cipher.ChaCha20"][0]
    sentinel = object()
    orig.new = sentinel                      # someone else rebinds a patched name
    try:
        poly1305x.uninstall()
        poly1305x.uninstall()
        assert orig.new is sentinel          # not ours to restore
    finally:
        orig.new = clean["Crypto", "Cipher.ChaCha20"][2]["new"]
    assert not _install.installed()


def test_thread_safety(clean):
    errors = []
    barrier = threading.Barrier(8)

    def worker(i):
        try:
            barrier.wait()
            for j in range(200):
                if (i + j) % 3:
                    poly1305x.install()
                    # either fully installed or (if another thread undid it) not at all
                else:
                    poly1305x.uninstall()
                state = _install.installed()
                assert len(state) in (0, 3 * len(FAMILIES)), state
        except BaseException as exc:
            errors.append(exc)

    run_threads(worker, 8)
    assert not errors, errors
    poly1305x.install()
    assert sys.modules["Crypto.Cipher.ChaCha20"] is poly1305x.ChaCha20


def test_message_too_long_is_pycryptodome_s_class(clean):
    import Cryptodome
    poly1305x.install()
    from Crypto.Cipher import ChaCha20, ChaCha20_Poly1305
    cipher = ChaCha20.new(key=bytes(32), nonce=bytes(12))
    cipher.seek(64 * 2**32 - 1)
    with pytest.raises(Crypto.MessageTooLongError) as info:
        cipher.encrypt(b"ab")
    assert isinstance(info.value, (ValueError, OverflowError))
    assert isinstance(info.value, poly1305x.MessageTooLongError)
    if hasattr(Cryptodome, "MessageTooLongError"):   # pycryptodomex >= 3.?? has it
        assert isinstance(info.value, Cryptodome.MessageTooLongError)
    aead = ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(8))
    aead._cipher.seek(64 * (2**32 - 1))
    aead.encrypt(bytes(64))
    with pytest.raises(Crypto.MessageTooLongError):
        aead.encrypt(b"a")


# ---------------------------------------------------------------------------
# The API mirror: names, signatures, attributes
# ---------------------------------------------------------------------------

def _api_names(mod):
    """pycryptodome's public API of a module: what it defines, its int constants,
    and the exception classes it re-exports."""
    out = []
    for name in dir(mod):
        if name.startswith("_"):
            continue
        obj = getattr(mod, name)
        if getattr(obj, "__module__", None) == mod.__name__ and callable(obj):
            out.append(name)
        elif type(obj) is int:
            out.append(name)
        elif isinstance(obj, type) and issubclass(obj, Exception):
            out.append(name)
    return out


def _same_signature(theirs, ours):
    p1 = list(inspect.signature(theirs).parameters.values())
    p2 = list(inspect.signature(ours).parameters.values())
    assert [(p.name, p.kind, p.default) for p in p1] == \
           [(p.name, p.kind, p.default) for p in p2[:len(p1)]], (theirs, ours)
    # parameters poly1305x adds are optional
    assert all(p.default is not inspect.Parameter.empty for p in p2[len(p1):]), ours


@pytest.mark.parametrize("sub", SUBS)
def test_api_names_and_signatures(sub):
    theirs, ours = originals()["Crypto", sub], OURS[sub]
    names = _api_names(theirs)
    assert "new" in names and CLASSES[sub] in names
    for name in names:
        assert hasattr(ours, name), f"{sub}.{name} is missing"
        obj = getattr(theirs, name)
        if type(obj) is int:
            assert getattr(ours, name) == obj
        elif isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(getattr(ours, name), obj)
        elif isinstance(obj, type):
            for attr in (a for a in dir(obj) if not a.startswith("_")):
                assert hasattr(getattr(ours, name), attr), f"{name}.{attr} is missing"
                if callable(getattr(obj, attr)):
                    _same_signature(getattr(obj, attr), getattr(getattr(ours, name), attr))
                else:
                    assert getattr(getattr(ours, name), attr) == getattr(obj, attr)
        else:
            _same_signature(obj, getattr(ours, name))


def _objects(m):
    return {
        "Poly1305_MAC": m.Poly1305.new(key=bytes(32), cipher=m.ChaCha20, nonce=bytes(12)),
        "ChaCha20Cipher": m.ChaCha20.new(key=bytes(32), nonce=bytes(12)),
        "ChaCha20Poly1305Cipher": m.ChaCha20_Poly1305.new(key=bytes(32), nonce=bytes(12)),
    }


def test_instance_attributes():
    mods = originals()
    theirs = _objects(types.SimpleNamespace(**{s.split(".")[1]: mods["Crypto", s] for s in SUBS}))
    ours = _objects(types.SimpleNamespace(**{s.split(".")[1]: OURS[s] for s in SUBS}))
    for cls, obj in theirs.items():
        public = {a for a in dir(obj) if not a.startswith("_")}
        mine = {a for a in dir(ours[cls]) if not a.startswith("_")}
        assert public <= mine, (cls, public - mine)
        assert mine - public <= {"backend"}, (cls, mine - public)   # documented extra
        for attr in public:
            if not callable(getattr(obj, attr)):
                assert getattr(ours[cls], attr) == getattr(obj, attr), (cls, attr)
    # mirrored private names that pycryptodome's tests use
    assert ours["ChaCha20Cipher"]._threads == theirs["ChaCha20Cipher"]._threads == 1
    assert ours["ChaCha20Cipher"]._name == theirs["ChaCha20Cipher"]._name == "ChaCha20"
    assert callable(ours["ChaCha20Poly1305Cipher"]._cipher.seek)


# ---------------------------------------------------------------------------
# Behaviour on misuse: the same exception class (an instance of pycryptodome's),
# and the same message unless listed in TYPE_ONLY (see docs/compatibility.md)
# ---------------------------------------------------------------------------

K, N8, N12, N24 = b"k" * 32, b"n" * 8, b"n" * 12, b"n" * 24


def _used(m, op):
    c = m.ChaCha20_Poly1305.new(key=K, nonce=N12)
    op(c)
    return c


def _at(m, nonce, pos):
    c = m.ChaCha20.new(key=K, nonce=nonce)
    c.seek(pos)
    return c


def _aead_at_end(m, nonce):
    c = m.ChaCha20_Poly1305.new(key=K, nonce=nonce)
    c._cipher.seek(64 * (2**32 - 1))
    return c


def _poly(m, **kw):
    return m.Poly1305.new(key=K, cipher=m.ChaCha20, nonce=N12, **kw)


CASES = {
    "chacha key len": lambda m: m.ChaCha20.new(key=b"k" * 31, nonce=N8),
    "chacha nonce len": lambda m: m.ChaCha20.new(key=K, nonce=b"n" * 7),
    "chacha no key": lambda m: m.ChaCha20.new(nonce=N8),
    "chacha positional": lambda m: m.ChaCha20.new(K, N8),
    "chacha unknown kw": lambda m: m.ChaCha20.new(key=K, nonce=N8, foo=1),
    "chacha key None": lambda m: m.ChaCha20.new(key=None, nonce=N8),
    "chacha key str": lambda m: m.ChaCha20.new(key="k" * 32, nonce=N8),
    "chacha nonce str": lambda m: m.ChaCha20.new(key=K, nonce="n" * 8),
    "chacha threads float": lambda m: m.ChaCha20.new(key=K, nonce=N8, threads=1.0),
    "chacha threads str": lambda m: m.ChaCha20.new(key=K, nonce=N8, threads="2"),
    "chacha threads bool": lambda m: m.ChaCha20.new(key=K, nonce=N8, threads=True),
    "chacha threads neg": lambda m: m.ChaCha20.new(key=K, nonce=N8, threads=-1),
    "chacha enc then dec": lambda m: (lambda c: (c.encrypt(b"a"), c.decrypt(b"a")))(
        m.ChaCha20.new(key=K, nonce=N8)),
    "chacha dec then enc": lambda m: (lambda c: (c.decrypt(b"a"), c.encrypt(b"a")))(
        m.ChaCha20.new(key=K, nonce=N8)),
    "chacha enc str": lambda m: m.ChaCha20.new(key=K, nonce=N8).encrypt("abc"),
    "chacha enc int": lambda m: m.ChaCha20.new(key=K, nonce=N8).encrypt(5),
    "chacha output bytes": lambda m: m.ChaCha20.new(key=K, nonce=N8).encrypt(b"abc", output=b"xyz"),
    "chacha output str": lambda m: m.ChaCha20.new(key=K, nonce=N8).encrypt(b"abc", output="xyz"),
    "chacha output short": lambda m: m.ChaCha20.new(key=K, nonce=N8).encrypt(
        b"abc", output=bytearray(2)),
    "chacha dec output short": lambda m: m.ChaCha20.new(key=K, nonce=N8).decrypt(
        b"abc", output=bytearray(2)),
    "chacha seek negative": lambda m: m.ChaCha20.new(key=K, nonce=N8).seek(-1),
    "chacha seek float": lambda m: m.ChaCha20.new(key=K, nonce=N8).seek(1.5),
    "chacha12 seek beyond": lambda m: m.ChaCha20.new(key=K, nonce=N12).seek(64 * 2**32),
    "xchacha seek beyond": lambda m: m.ChaCha20.new(key=K, nonce=N24).seek(64 * 2**32),
    "chacha8 seek beyond": lambda m: m.ChaCha20.new(key=K, nonce=N8).seek(64 * 2**64),
    "chacha12 exhausted": lambda m: _at(m, N12, 64 * 2**32 - 10).encrypt(b"a" * 11),
    "chacha12 exhausted dec": lambda m: _at(m, N12, 64 * 2**32 - 10).decrypt(b"a" * 11),
    "xchacha exhausted": lambda m: _at(m, N24, 64 * 2**32 - 10).encrypt(b"a" * 11),
    "chacha8 exhausted": lambda m: _at(m, N8, 64 * 2**64 - 10).encrypt(b"a" * 11),
    "chacha12 up to the end": lambda m: _at(m, N12, 64 * 2**32 - 10).encrypt(b"a" * 10),
    "hchacha bad": lambda m: m.ChaCha20._HChaCha20(K, b"x" * 15),
    "derive bad nonce": lambda m: m.ChaCha20._derive_Poly1305_key_pair(K, b"x" * 16),
    "derive bad key": lambda m: m.ChaCha20._derive_Poly1305_key_pair(b"k", b"x" * 12),
    "aead key len": lambda m: m.ChaCha20_Poly1305.new(key=b"k" * 31, nonce=N12),
    "aead nonce len": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=b"n" * 7),
    "aead nonce empty": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=b""),
    "aead nonce str": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce="n" * 12),
    "aead nonce str7": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce="n" * 7),
    "aead nonce str24": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce="n" * 24),
    "aead nonce int": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=12),
    "aead key str": lambda m: m.ChaCha20_Poly1305.new(key="k" * 32, nonce=N12),
    "aead unknown kw": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12, param=9),
    "aead update after enc": lambda m: _used(m, lambda c: c.encrypt(b"a")).update(b"x"),
    "aead update str": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).update("x"),
    "aead enc str": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).encrypt("x"),
    "aead dec after enc": lambda m: _used(m, lambda c: c.encrypt(b"a")).decrypt(b"x"),
    "aead enc after dec": lambda m: _used(m, lambda c: c.decrypt(b"a")).encrypt(b"x"),
    "aead enc after digest": lambda m: _used(m, lambda c: c.digest()).encrypt(b"x"),
    "aead digest after dec": lambda m: _used(m, lambda c: c.decrypt(b"a")).digest(),
    "aead verify after enc": lambda m: _used(m, lambda c: c.encrypt(b"a")).verify(b"x" * 16),
    "aead verify wrong": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).verify(b"x" * 16),
    "aead verify short": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).verify(b"x" * 15),
    "aead verify str": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).verify("x" * 16),
    "aead verify None": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).verify(None),
    "aead hexverify not hex": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).hexverify("zz"),
    "aead hexverify wrong": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).hexverify("00" * 16),
    "aead decrypt_and_verify wrong": lambda m: m.ChaCha20_Poly1305.new(
        key=K, nonce=N12).decrypt_and_verify(b"abc", b"x" * 16),
    "aead output bytes": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).encrypt(
        b"abc", output=b"xyz"),
    "aead output short": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).encrypt(
        b"abc", output=bytearray(2)),
    "aead dec output short": lambda m: m.ChaCha20_Poly1305.new(key=K, nonce=N12).decrypt(
        b"abc", output=bytearray(2)),
    "aead exhausted": lambda m: _aead_at_end(m, N12).encrypt(b"a" * 65),
    "aead8 exhausted": lambda m: _aead_at_end(m, N8).encrypt(b"a" * 65),
    "xaead exhausted": lambda m: _aead_at_end(m, N24).encrypt(b"a" * 65),
    "aead up to the end": lambda m: _aead_at_end(m, N12).encrypt(b"a" * 64),
    "poly no key": lambda m: m.Poly1305.new(cipher=m.ChaCha20),
    "poly key None": lambda m: m.Poly1305.new(key=None, cipher=m.ChaCha20),
    "poly no cipher": lambda m: m.Poly1305.new(key=K),
    "poly key short": lambda m: m.Poly1305.new(key=b"k" * 31, cipher=m.ChaCha20),
    "poly key str": lambda m: m.Poly1305.new(key="k" * 32, cipher=m.ChaCha20),
    "poly nonce 7": lambda m: m.Poly1305.new(key=K, cipher=m.ChaCha20, nonce=b"n" * 7),
    "poly nonce 24": lambda m: m.Poly1305.new(key=K, cipher=m.ChaCha20, nonce=b"n" * 24),
    "poly data str": lambda m: _poly(m, data="abc"),
    "poly update str": lambda m: _poly(m).update("abc"),
    "poly update after digest": lambda m: (lambda h: (h.digest(), h.update(b"x")))(_poly(m)),
    "poly verify wrong": lambda m: _poly(m).verify(b"x" * 16),
    "poly verify str": lambda m: _poly(m).verify("x" * 16),
    "poly verify None": lambda m: _poly(m).verify(None),
    "poly hexverify not hex": lambda m: _poly(m).hexverify("zz"),
    "poly hexverify odd": lambda m: _poly(m).hexverify("abc"),
    "poly hexverify bytes": lambda m: _poly(m).hexverify(b"00" * 16),
    "poly copy": lambda m: _poly(m).copy(),
    "poly MAC r short": lambda m: m.Poly1305.Poly1305_MAC(b"r" * 15, b"s" * 16, None),
    "poly MAC s short": lambda m: m.Poly1305.Poly1305_MAC(b"r" * 16, b"s" * 15, None),
    "poly AES nonce": lambda m: m.Poly1305.new(key=K, cipher=AES, nonce=b"n" * 15),
    "poly AES key": lambda m: m.Poly1305.new(key=b"k" * 31, cipher=AES),
    "poly cipher None": lambda m: m.Poly1305.new(key=K, cipher=None),
    "poly cipher DES3": lambda m: m.Poly1305.new(key=K, cipher=DES3),
}

#: Same exception class, different message (docs/compatibility.md, "Messages").
TYPE_ONLY = {
    # a str / int where bytes are expected: pycryptodome's message comes from
    # its ctypes/cffi layer ("Object type <class 'str'> cannot be passed to C code")
    "chacha key str", "chacha nonce str", "chacha enc str", "chacha enc int", "aead nonce str24",
    "aead key str", "aead update str", "aead enc str", "aead verify str", "poly key str",
    "poly data str", "poly update str", "poly verify str",
    # poly1305x's Poly1305.new takes more ciphers than AES and ChaCha20
    "poly cipher None", "poly cipher DES3",
    # poly1305x's Poly1305.new is compiled: Cython words a missing keyword its
    # own way ("new() needs keyword-only argument key")
    "poly no key", "poly no cipher",
}


def _outcome(fn, m):
    try:
        fn(m)
    except Exception as exc:
        return exc
    return None


@pytest.mark.parametrize("case", sorted(CASES))
def test_misuse_matches_pycryptodome(case):
    mods = originals()
    theirs = types.SimpleNamespace(**{s.split(".")[1]: mods["Crypto", s] for s in SUBS})
    ours = types.SimpleNamespace(**{s.split(".")[1]: OURS[s] for s in SUBS})
    expected, got = _outcome(CASES[case], theirs), _outcome(CASES[case], ours)
    if expected is None:
        assert got is None, repr(got)
        return
    assert isinstance(got, type(expected)), (repr(expected), repr(got))
    if case not in TYPE_ONLY:
        assert str(got) == str(expected)


def test_type_only_cases_exist():
    assert TYPE_ONLY <= set(CASES)


# ---------------------------------------------------------------------------
# Whole programs (subprocesses)
# ---------------------------------------------------------------------------

def _run(code, env_extra=None, cwd=None):
    env = dict(os.environ)
    env.pop("POLY1305X_INSTALL", None)
    env.update(env_extra or {})
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_program_that_imported_pycryptodome_first(tmp_path):
    (tmp_path / "somelib.py").write_text(textwrap.dedent("""
        # a library that bound pycryptodome's modules at its import
        from Crypto.Cipher import ChaCha20_Poly1305, ChaCha20
        from Crypto.Hash import Poly1305

        def seal(key, nonce, aad, msg):
            c = ChaCha20_Poly1305.new(key=key, nonce=nonce)
            c.update(aad)
            return type(c).__module__, c.encrypt_and_digest(msg)

        def mac(key, nonce, msg):
            h = Poly1305.new(key=key, cipher=ChaCha20, nonce=nonce, data=msg)
            return type(h).__module__, h.digest()
    """))
    out = _run("""
        import somelib
        key, nonce = bytes(range(32)), bytes(12)
        before = somelib.seal(key, nonce, b"aad", b"hello" * 20), somelib.mac(key, nonce, b"m")
        import poly1305x
        poly1305x.install()
        during = somelib.seal(key, nonce, b"aad", b"hello" * 20), somelib.mac(key, nonce, b"m")
        poly1305x.uninstall()
        after = somelib.seal(key, nonce, b"aad", b"hello" * 20), somelib.mac(key, nonce, b"m")
        print(before[0][0], before[1][0])
        print(during[0][0], during[1][0])
        print(after[0][0], after[1][0])
        assert before[0][1] == during[0][1] == after[0][1]
        assert before[1][1] == during[1][1] == after[1][1]
    """, cwd=str(tmp_path))
    assert out.split("\n")[:3] == [
        "Crypto.Cipher.ChaCha20_Poly1305 Crypto.Hash.Poly1305",
        "poly1305x._core._engine poly1305x._core._engine",
        "Crypto.Cipher.ChaCha20_Poly1305 Crypto.Hash.Poly1305",
    ]


def test_environment_hook():
    code = """
        from Crypto.Cipher import ChaCha20_Poly1305 as early
        import poly1305x
        from Crypto.Cipher import ChaCha20_Poly1305
        print(ChaCha20_Poly1305.__name__, type(early.new(key=bytes(32))).__module__)
    """
    assert _run(code, {"POLY1305X_INSTALL": "1"}).split() == [
        "poly1305x.ChaCha20_Poly1305", "poly1305x._core._engine"]
    assert _run(code, {"POLY1305X_INSTALL": "0"}).split() == [
        "Crypto.Cipher.ChaCha20_Poly1305", "Crypto.Cipher.ChaCha20_Poly1305"]


def _sitecustomize_recipe():
    text = open(os.path.join(ROOT, "docs", "compatibility.md")).read()
    blocks = re.findall(r"```python\n(# sitecustomize\.py\n.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/compatibility.md must hold one sitecustomize.py recipe"
    return blocks[0]


def test_sitecustomize_recipe_from_the_docs(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(_sitecustomize_recipe())
    code = """
        from Crypto.Cipher import ChaCha20
        print(ChaCha20.__name__, type(ChaCha20.new(key=bytes(32))).__module__)
    """
    path = {"PYTHONPATH": str(tmp_path)}
    assert _run(code, {**path, "POLY1305X_INSTALL": "1"}).split() == [
        "poly1305x.ChaCha20", "poly1305x._core._engine"]
    assert _run(code, path).split() == ["Crypto.Cipher.ChaCha20", "Crypto.Cipher.ChaCha20"]


def test_without_pycryptodome():
    out = _run("""
        import sys
        sys.modules["Crypto"] = None          # pycryptodome not installed
        import poly1305x
        print(poly1305x.install())            # pycryptodomex alone
        from Cryptodome.Cipher import ChaCha20
        print(ChaCha20.__name__)
    """)
    assert out.splitlines() == [
        "('Cryptodome.Hash.Poly1305', 'Cryptodome.Cipher.ChaCha20', "
        "'Cryptodome.Cipher.ChaCha20_Poly1305')", "poly1305x.ChaCha20"]
    # neither: a clear ImportError; the environment hook only warns, so that
    # `import poly1305x` keeps working
    out = _run("""
        import sys, warnings
        sys.modules["Crypto"] = sys.modules["Cryptodome"] = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import poly1305x
        print(len(caught), caught[0].category.__name__)
        print(caught[0].message)
        try:
            poly1305x.install()
        except ImportError as exc:
            print("ImportError:", exc)
        print(poly1305x._install.installed())
    """, {"POLY1305X_INSTALL": "1"})
    lines = out.splitlines()
    assert lines[0] == "1 RuntimeWarning"
    assert lines[1].startswith("POLY1305X_INSTALL is set, but poly1305x.install() stands in")
    assert lines[2].startswith("ImportError: poly1305x.install() stands in for pycryptodome, but "
                               "neither pycryptodome (package 'Crypto') nor pycryptodomex "
                               "(package 'Cryptodome') can be imported")
    assert "pip install pycryptodome" in lines[2]
    assert lines[3] == "()"
