"""poly1305x.install() / uninstall(): the drop-in for unmodified pycryptodome
code, and how closely poly1305x's modules mirror pycryptodome's API (names,
signatures, attributes, exception classes and messages).

pycryptodome's own test files run against the installed modules in
tests/faces/test_pycryptodome_suite.py."""
import importlib
import os
import re
import subprocess
import sys
import textwrap
import threading

import pytest

import poly1305x
from poly1305x import _install
from poly1305x._core import _engine
from tests.faces.pycryptodome_modules import CLASSES, FAMILIES, OURS, SUBS, originals
from tests.support.helpers import run_threads

import Crypto  # noqa: E402
from Crypto.Cipher import AES  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
def snapshot():
    """Everything install() may touch, by identity."""
    state = {}
    for (fam, sub), mod in originals().items():
        parent = sys.modules[f"{fam}.{sub}".rpartition(".")[0]]
        state[fam, sub] = (sys.modules.get(f"{fam}.{sub}"), parent.__dict__.get(sub.split(".")[1]),
                           {k: v for k, v in vars(mod).items() if not k.startswith("__")})
    return state


@pytest.fixture
def install_undone():
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

def test_install_swaps_modules_and_package_attributes(install_undone):
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


def test_uninstall_restores_pycryptodome(install_undone):
    poly1305x.install()
    poly1305x.uninstall()
    from Crypto.Cipher import ChaCha20_Poly1305
    assert ChaCha20_Poly1305 is install_undone["Crypto", "Cipher.ChaCha20_Poly1305"][0]
    assert ChaCha20_Poly1305.__name__ == "Crypto.Cipher.ChaCha20_Poly1305"
    assert type(ChaCha20_Poly1305.new(key=bytes(32))).__module__ == "Crypto.Cipher.ChaCha20_Poly1305"


def test_module_bound_before_install_reaches_poly1305x(install_undone):
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


def test_new_function_bound_before_install_is_pycryptodome_s(install_undone):
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


def test_idempotent_and_rebound_names_left_alone(install_undone):
    first = poly1305x.install()
    records = list(_install._switch._records)
    assert poly1305x.install() == first and _install._switch._records == records
    orig = install_undone["Crypto", "Cipher.ChaCha20"][0]
    sentinel = object()
    orig.new = sentinel                      # someone else rebinds a patched name
    try:
        poly1305x.uninstall()
        poly1305x.uninstall()
        assert orig.new is sentinel          # not ours to restore
    finally:
        orig.new = install_undone["Crypto", "Cipher.ChaCha20"][2]["new"]
    assert not _install.installed()


def test_thread_safety(install_undone):
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


def test_message_too_long_is_pycryptodome_s_class(install_undone):
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
    cg = """
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
        print(ChaCha20Poly1305.__module__)
    """
    assert _run(cg, {**path, "POLY1305X_INSTALL": "cryptography"}).split() == [
        "poly1305x._install_cryptography"]


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
