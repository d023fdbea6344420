"""How closely poly1305x's modules mirror pycryptodome's API: names,
signatures and attributes, and on misuse the same exception class (an
instance of pycryptodome's) with the same message.  install() itself is
tested in tests/faces/test_install.py."""
import inspect
import types

import pytest
from Crypto.Cipher import AES, DES3

from tests.faces.pycryptodome_modules import CLASSES, OURS, SUBS, originals

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
