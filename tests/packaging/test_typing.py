"""Types as a user's type checker sees them: the pure-Python modules
carry their annotations inline, a .pyi sits only beside a compiled module,
mypy.stubtest finds the stubs and the runtime in agreement, and mypy --strict
accepts right calls into hpke, mls, noise, openssh and the exceptions and
rejects wrong ones."""
import pathlib
import re
import subprocess
import sys
import textwrap

import poly1305x

PKG = pathlib.Path(poly1305x.__file__).resolve().parent
HERE = pathlib.Path(__file__).resolve().parent
# the checkout (pyproject.toml: the mypy configuration), wherever this file sits in tests/
ROOT = next(p for p in HERE.parents if (p / "pyproject.toml").exists())
ALLOWLIST = next((ROOT / "tests").rglob("stubtest_allowlist.txt"))


def _mypy(*args, cwd):
    return subprocess.run([sys.executable, "-m", "mypy", *args], cwd=str(cwd),
                          capture_output=True, text=True, timeout=600)


def test_stubs_only_beside_compiled_modules():
    """A .pyi beside a .py is a second copy of its signatures: the module
    carries them inline instead.  Every .pyi is a compiled module's."""
    stubs = sorted(PKG.rglob("*.pyi"))
    assert stubs
    beside_py = [p.relative_to(PKG).as_posix() for p in stubs if p.with_suffix(".py").exists()]
    assert not beside_py, beside_py
    src = ROOT / "poly1305x"
    if src.is_dir():            # a checkout: each stub's module is compiled from a .pyx
        for p in src.rglob("*.pyi"):
            assert p.with_suffix(".pyx").exists(), p
    assert (PKG / "py.typed").exists()


def test_stubtest_is_clean(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "poly1305x", "--mypy-config-file",
         str(ROOT / "pyproject.toml"), "--allowlist", str(ALLOWLIST)],
        cwd=str(tmp_path), capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]


_RIGHT = """
from typing import Any, Optional

from typing_extensions import assert_type

import poly1305x
from poly1305x import hpke, mls, noise, openssh
from poly1305x.openssh import __main__ as cli


def right() -> None:
    key = hpke.ChaCha20Poly1305Key(bytearray(32))
    assert_type(key.seal(b"pt", bytes(12)), bytes)
    assert_type(key.backend, str)
    assert_type(hpke.seal(bytes(32), bytes(12), None, b"pt"), bytes)
    ctx = hpke.Context(bytes(32), memoryview(bytes(range(1, 13))), seq=3)
    assert_type(ctx.seq, int)
    assert_type(ctx.compute_nonce(1), bytes)
    assert_type(hpke.use_with_rfc9180(False), bool)
    assert_type(hpke.NN, int)
    bad: ValueError = poly1305x.InvalidTag()
    assert_type(poly1305x.InvalidTag().indices, Optional[list[int]])
    long: ValueError = poly1305x.MessageTooLongError()
    done: Exception = poly1305x.AlreadyFinalized()
    assert_type(mls.CHACHA20POLY1305_SUITES, frozenset[int])
    p = mls.CryptoProvider(0x0003)
    assert_type(p.aead_encrypt(b"k", b"n", b"p", b"a"), bytes)
    assert_type(p.hpke_seal(b"", b"", b"", b""), tuple[bytes, bytes])
    assert_type(p.uses_poly1305x, bool)
    c = noise.ChaChaPolyCipher()
    c.initialize(bytes(32))
    assert_type(c.encrypt(None, 0, None, b"x"), bytes)
    assert_type(c.rekey(None), bytes)
    assert_type(noise.encrypt_many(object(), [b"x"]), list[bytes])
    assert_type(noise.use_with_noiseprotocol(False), bool)
    assert_type(openssh.decrypt("", b"pw", max_rounds=20), bytes)
    assert_type(openssh.encrypt(b"", "pw", rounds=16), bytes)
    assert_type(openssh.key_info(""), dict[str, Any])
    assert_type(openssh.public_key_line(b""), str)
    assert_type(openssh.CIPHERS, dict[str, tuple[int, int, int, int]])
    assert_type(openssh.use_with_paramiko(False), bool)
    assert_type(openssh.use_with_asyncssh(False), bool)
    assert_type(cli.main(["info", "k"]), int)
"""

# Each line is one wrong call: mypy must report an error on every one.
_WRONG = """
import poly1305x
from poly1305x import hpke, mls, noise, openssh
from poly1305x.openssh import __main__ as cli


def wrong() -> None:
    hpke.ChaCha20Poly1305Key("key")
    hpke.Context(bytes(32), bytes(12), seq="0")
    hpke.use_with_rfc9180(enable="yes")
    s: str = hpke.seal(bytes(32), bytes(12), None, b"")
    hpke.Context(bytes(32), bytes(12)).seal(b"aad")
    mls.CryptoProvider(suite_id="3")
    t: str = mls.CryptoProvider().aead_decrypt(b"", b"", b"", b"")
    noise.ChaChaPolyCipher().encrypt(None, "0", None, b"")
    noise.encrypt_many(object(), b"x")
    noise.NoSuchName
    openssh.encrypt(b"", None, rounds="16")
    openssh.decrypt(b"", max_rounds="5")
    n: int = openssh.public_key_line(b"")
    openssh.use_with_paramiko(True, 2)
    cli.main(1)
    poly1305x.InvalidTag().indices = "x"
"""


def test_mypy_strict_takes_right_calls_and_catches_wrong_ones(tmp_path):
    (tmp_path / "right.py").write_text(textwrap.dedent(_RIGHT), encoding="utf-8")
    (tmp_path / "wrong.py").write_text(textwrap.dedent(_WRONG), encoding="utf-8")
    r = _mypy("--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
              "right.py", "wrong.py", cwd=tmp_path)
    out = r.stdout + r.stderr
    errors = re.findall(r"^(right|wrong)\.py:(\d+): error:", out, re.M)
    assert not [e for e in errors if e[0] == "right"], out
    lines = textwrap.dedent(_WRONG).splitlines()
    calls = {i + 1 for i, line in enumerate(lines) if line.startswith("    ")}
    flagged = {int(n) for f, n in errors if f == "wrong"}
    missed = sorted(calls - flagged)
    assert not missed, [lines[i - 1].strip() for i in missed]
    assert r.returncode == 1, out
