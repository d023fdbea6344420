"""The key-file error oracle: aes-ctr/cbc are unauthenticated, so a
bit flipped in the ciphertext of the private section makes the parser read
attacker-chosen garbage, lengths taken from secret bytes included.  Whatever
goes wrong after decryption must be the one fixed message, for every key type
and every unauthenticated cipher, through every entry point: decrypt,
load_private_key, public_key_line, load_ssh_private_key and the command line.
No message, argument, cause or context may carry a byte or a number from the
decrypted section."""
import re
import struct

import pytest

from poly1305x import openssh
from poly1305x.openssh import _container, _wire
from poly1305x.openssh.__main__ import main as cli
from tests.openssh.keyfiles import ALL_TYPES as TYPES
from tests.openssh.keyfiles import make_key_files

WRONG = "incorrect passphrase or damaged key"
PASSWORD = "oracle pw"
UNAUTHENTICATED = ["aes128-ctr", "aes192-ctr", "aes256-ctr",
                   "aes128-cbc", "aes192-cbc", "aes256-cbc"]

pytestmark = [pytest.mark.filterwarnings(
    "ignore::cryptography.utils.CryptographyDeprecationWarning"),
    pytest.mark.usefixtures("cached_kdf")]    # tests/openssh/conftest.py


@pytest.fixture(scope="module")
def oracle_pems(tmp_path_factory):
    """{(type, cipher): PEM} from ssh-keygen (-p -Z re-encrypts the key)."""
    return make_key_files(tmp_path_factory.mktemp("oracle"), TYPES, UNAUTHENTICATED, PASSWORD,
                          "{name} oracle")


def section(pem):
    """(blob, offset of the encrypted private section, its length)."""
    blob = bytearray(_wire.unarmour(pem))
    f = _container.parse_outer(pem, 64)
    n = len(f.encrypted)
    return blob, len(blob) - n - len(f.tag), n


def plaintext(pem):
    f = _container.parse_outer(pem, 64)
    return bytes(_container.decrypt_private(f, PASSWORD))


def positions(n):
    """Every byte of the head of the section (check-integers, type, public
    fields, the first secret lengths), then a stride through the rest."""
    return sorted(set(range(min(n, 200))) | set(range(200, n, 11)))


def secret_tokens(plain):
    """What a leaking message would show of the decrypted section: each
    4-byte word as a decimal number, and hex and repr of each 4-byte window."""
    tokens = set()
    for i in range(len(plain) - 3):
        w = plain[i:i + 4]
        value = struct.unpack(">I", w)[0]
        if value >= 100:
            tokens.add(str(value))
        tokens.add(w.hex())
        tokens.add(repr(w)[2:-1])
    return tokens


def chain(exc):
    """exc and every exception it carries (cause, context)."""
    seen = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        exc = exc.__cause__ or exc.__context__
    return seen


def check_failure(exc, tokens, where):
    assert str(exc) == WRONG, (where, str(exc))
    assert exc.args == (WRONG,), (where, exc.args)
    assert chain(exc) == [exc], (where, chain(exc))
    text = str(exc) + repr(exc.args)
    assert not [t for t in tokens if t in text], where


def entry_points():
    from cryptography.hazmat.primitives import serialization  # noqa: F401 - the extra
    return {
        "decrypt": lambda pem: openssh.decrypt(pem, PASSWORD),
        "load_private_key": lambda pem: openssh.load_private_key(pem, PASSWORD),
        "public_key_line": lambda pem: openssh.public_key_line(pem, PASSWORD),
        "load_ssh_private_key": lambda pem: openssh.load_ssh_private_key(
            pem, PASSWORD.encode()),
    }


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("cipher", UNAUTHENTICATED)
def test_bit_flip_oracle_gives_one_message(oracle_pems, name, cipher):
    """Each flipped ciphertext byte (a different bit each position): success
    (a flip in the comment) or the one message, from every entry point."""
    pem = oracle_pems[name, cipher]
    tokens = secret_tokens(plaintext(pem))
    blob, start, n = section(pem)
    calls = entry_points()
    failures = 0
    for i in positions(n):
        bad = bytearray(blob)
        bad[start + i] ^= 1 << (i % 8)
        bad_pem = _wire.armour(bytes(bad))
        for where, call in calls.items():
            try:
                call(bad_pem)
            except ValueError as exc:
                failures += 1
                check_failure(exc, tokens, f"{where} at byte {i}")
    assert failures > len(positions(n))     # most flips break the key


@pytest.mark.parametrize("name", list(TYPES))
def test_command_line_prints_no_decrypted_value(oracle_pems, name, tmp_path, monkeypatch, capsys):
    """``decrypt`` and ``info --check`` on flipped aes256-ctr and aes128-cbc
    files: exit 1, stderr exactly the one message, nothing on stdout."""
    monkeypatch.setenv("ORACLE_PW", PASSWORD)
    for cipher in ("aes256-ctr", "aes128-cbc"):
        pem = oracle_pems[name, cipher]
        tokens = secret_tokens(plaintext(pem))
        blob, start, n = section(pem)
        for i in positions(n)[::7]:
            bad = bytearray(blob)
            bad[start + i] ^= 0x80 >> (i % 8)
            path = tmp_path / f"k{i}"
            path.write_bytes(_wire.armour(bytes(bad)))
            for argv in (["decrypt", str(path), "--passphrase-env", "ORACLE_PW", "-o", "-"],
                         ["info", "--check", str(path), "--passphrase-env", "ORACLE_PW"]):
                rc = cli(argv)
                out, err = capsys.readouterr()
                if rc == 0:
                    continue
                assert (rc, out, err) == (1, "", f"error: {WRONG}\n"), (argv, i, err)
                assert not [t for t in tokens if t in err]


def test_length_read_from_secret_bytes(oracle_pems):
    """The reproducer: under aes-ctr, flip the high byte of the ed25519
    private-key length (its offset follows from the public section alone), so
    that the parser reads a length that runs far past the end.  Before, the
    message printed that length."""
    pem = oracle_pems["ed25519", "aes256-ctr"]
    blob, start, n = section(pem)
    plain = plaintext(pem)
    r = _wire.Reader(plain, "t")
    r.u32("c"), r.u32("c"), r.string("type"), r.string("pk")
    at = r.pos                       # the sk length word
    bad = bytearray(blob)
    bad[start + at] ^= 0xF0
    with pytest.raises(ValueError) as info:
        openssh.decrypt(_wire.armour(bytes(bad)), PASSWORD)
    check_failure(info.value, secret_tokens(plain), "sk length")
    assert not re.search(r"\d", str(info.value))
