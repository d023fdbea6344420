"""OpenSSH private-key files (poly1305x.openssh): real keys made by ssh-keygen
during the run, checked against ssh-keygen itself, cryptography and asyncssh,
and a battery of damaged inputs.

ssh-keygen is required: without it these tests fail (CI installs
openssh-client); nothing here is skipped."""
import base64
import os
import shutil
import struct
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poly1305x import openssh
from poly1305x.openssh import _container, _wire
from poly1305x.openssh.__main__ import main as cli_main
from tests.support.helpers import flipped

SSH_KEYGEN = shutil.which("ssh-keygen")
CHACHA = "chacha20-poly1305@openssh.com"
WRONG = "incorrect passphrase or damaged key"

# (name, ssh-keygen -t/-b arguments, passphrase)
KEY_TYPES = [
    ("ed25519", ["-t", "ed25519"], "pässwörd ✓ 密码🔑"),
    ("rsa2048", ["-t", "rsa", "-b", "2048"], "correct horse battery staple"),
    ("ecdsa256", ["-t", "ecdsa", "-b", "256"], "Ünïcødé"),
    ("ecdsa384", ["-t", "ecdsa", "-b", "384"], "p"),
    ("ecdsa521", ["-t", "ecdsa", "-b", "521"], "спасибо"),
]
NAMES = [k[0] for k in KEY_TYPES]
PASS = {k[0]: k[2] for k in KEY_TYPES}
# A sample of the AES ciphers, each on a different key type.
AES_SAMPLE = [
    ("ed25519", "aes256-ctr"),
    ("rsa2048", "aes256-gcm@openssh.com"),
    ("ecdsa256", "aes128-cbc"),
    ("ecdsa384", "aes128-gcm@openssh.com"),
    ("ecdsa521", "aes192-ctr"),
    ("ed25519", "aes256-cbc"),
    ("ecdsa256", "aes128-ctr"),
    ("ed25519", "aes192-cbc"),
]


def keygen(*args, input=None):
    if SSH_KEYGEN is None:
        pytest.fail("ssh-keygen is not installed: these tests need it "
                    "(apt-get install openssh-client)")
    r = subprocess.run([SSH_KEYGEN, *args], capture_output=True, input=input, timeout=60)
    return r


def write_key(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return str(path)


def pub_of(line):
    """type and base64 of a public key line (comment dropped)."""
    if isinstance(line, bytes):
        line = line.decode()
    return " ".join(line.split()[:2])


class Keys:
    """Key files made once per session: for each type an unencrypted key and
    the same key re-encrypted by ssh-keygen -p with chacha20-poly1305 and with
    one AES cipher of the sample."""

    def __init__(self, root):
        self.root = root
        self.plain, self.chacha, self.aes, self.pub = {}, {}, {}, {}
        for name, targs, pw in KEY_TYPES:
            base = root / name
            r = keygen("-q", *targs, "-N", "", "-C", f"test {name} ¢omment", "-f", str(base))
            assert r.returncode == 0, r.stderr
            self.plain[name] = base.read_bytes()
            self.pub[name] = (root / (name + ".pub")).read_text()
            enc = root / (name + ".chacha")
            write_key(enc, self.plain[name])
            r = keygen("-q", "-p", "-P", "", "-N", pw, "-Z", CHACHA, "-a", "2", "-f", str(enc))
            assert r.returncode == 0, r.stderr
            self.chacha[name] = enc.read_bytes()
        for name, cipher in AES_SAMPLE:
            enc = root / f"{name}.{cipher}"
            write_key(enc, self.plain[name])
            r = keygen("-q", "-p", "-P", "", "-N", PASS[name], "-Z", cipher, "-a", "2",
                       "-f", str(enc))
            assert r.returncode == 0, r.stderr
            self.aes[name, cipher] = enc.read_bytes()
        # A small chacha key with one kdf round for the byte-by-byte tests.
        small = root / "small"
        r = keygen("-q", "-t", "ed25519", "-N", "flip", "-Z", CHACHA, "-a", "1", "-C", "x",
                   "-f", str(small))
        assert r.returncode == 0, r.stderr
        self.small = small.read_bytes()


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    return Keys(tmp_path_factory.mktemp("sshkeys"))


def test_ssh_keygen_present():
    assert SSH_KEYGEN, "ssh-keygen is required (CI installs openssh-client)"


def test_keys_are_what_we_asked_for(keys):
    for name in NAMES:
        info = openssh.key_info(keys.chacha[name])
        assert info["cipher"] == CHACHA and info["kdf"] == "bcrypt" and info["rounds"] == 2
        assert info["comment"] is None and info["encrypted"]
    for (name, cipher), data in keys.aes.items():
        assert openssh.key_info(data)["cipher"] == cipher


# ---------------------------------------------------------------------------
# Decryption, checked by ssh-keygen, cryptography and asyncssh
# ---------------------------------------------------------------------------

def without_checkint(pem):
    """The PEM with the check-integers zeroed (re-armoured)."""
    blob = bytearray(_wire.unarmour(pem))
    start = len(blob) - len(_container.parse_outer(pem, 64).encrypted)
    blob[start:start + 8] = bytes(8)
    return _wire.armour(bytes(blob))


def check_decrypted(tmp_path, name, pem, keys):
    from cryptography.hazmat.primitives import serialization

    assert pem.startswith(b"-----BEGIN OPENSSH PRIVATE KEY-----\n")
    info = openssh.key_info(pem)
    assert info["cipher"] == "none" and info["kdf"] == "none"
    assert info["comment"] == f"test {name} ¢omment"
    # Byte for byte what ssh-keygen itself wrote before encrypting, except for
    # the check-integer, which ssh-keygen -p renews.
    assert without_checkint(pem) == without_checkint(keys.plain[name])
    path = write_key(tmp_path / f"{name}.out", pem)
    r = keygen("-y", "-f", path)
    assert r.returncode == 0, r.stderr
    assert pub_of(r.stdout.decode()) == pub_of(keys.pub[name])
    k = serialization.load_ssh_private_key(pem, None)
    mine = k.public_key().public_bytes(serialization.Encoding.OpenSSH,
                                       serialization.PublicFormat.OpenSSH)
    assert mine.decode() == pub_of(keys.pub[name])


@pytest.mark.parametrize("name", NAMES)
def test_decrypt_chacha(keys, tmp_path, name):
    pem = openssh.decrypt(keys.chacha[name], PASS[name])
    check_decrypted(tmp_path, name, pem, keys)
    # bytes passphrase, and the PEM as str
    assert openssh.decrypt(keys.chacha[name].decode(), PASS[name].encode()) == pem


@pytest.mark.parametrize("name,cipher", AES_SAMPLE)
def test_decrypt_aes(keys, tmp_path, name, cipher):
    pem = openssh.decrypt(keys.aes[name, cipher], PASS[name])
    check_decrypted(tmp_path, name, pem, keys)


@pytest.mark.filterwarnings("ignore:Warning. bcrypt.kdf.. called with only")
@pytest.mark.parametrize("name", NAMES)
def test_asyncssh_differential(keys, name):
    """asyncssh reads the same chacha20-poly1305 key to the same private key
    and comment; it also reads what encrypt() writes."""
    import asyncssh

    theirs = asyncssh.import_private_key(keys.chacha[name], PASS[name])
    ours = asyncssh.import_private_key(openssh.decrypt(keys.chacha[name], PASS[name]))
    assert theirs.encode_ssh_private() == ours.encode_ssh_private()
    assert theirs.get_comment_bytes() == ours.get_comment_bytes()
    # our parse of the private section agrees with asyncssh's encoding of it
    _, _, key, plain = _container.load(keys.chacha[name], PASS[name], 100)
    typ = key.type.name.encode()
    assert bytes(key.body) == struct.pack(">I", len(typ)) + typ + theirs.encode_ssh_private()
    again = openssh.encrypt(keys.plain[name], PASS[name], rounds=1)
    back = asyncssh.import_private_key(again, PASS[name])
    assert back.encode_ssh_private() == theirs.encode_ssh_private()
    # and we read what asyncssh writes with chacha20-poly1305
    exported = theirs.export_private_key("openssh", PASS[name], cipher_name=CHACHA, rounds=1)
    assert openssh.load_private_key(exported, PASS[name]) == \
        openssh.load_private_key(keys.plain[name])


def test_unencrypted_passes_through(keys):
    for name in NAMES:
        assert openssh.decrypt(keys.plain[name]) == keys.plain[name]
        assert openssh.decrypt(keys.plain[name], "ignored") == keys.plain[name]


def test_binary_blob_accepted(keys):
    blob = _wire.unarmour(keys.small)
    assert openssh.decrypt(blob, "flip") == openssh.decrypt(keys.small, "flip")


# ---------------------------------------------------------------------------
# Encryption, checked by ssh-keygen
# ---------------------------------------------------------------------------

ENC_CASES = [(n, CHACHA) for n in NAMES] + [
    ("ed25519", "aes256-ctr"), ("rsa2048", "aes128-cbc"), ("ecdsa256", "aes256-gcm@openssh.com"),
    ("ecdsa384", "aes192-ctr"), ("ecdsa521", "aes128-gcm@openssh.com"),
    ("ed25519", "aes256-cbc"),
]


@pytest.mark.parametrize("name,cipher", ENC_CASES)
def test_encrypt_accepted_by_ssh_keygen(keys, tmp_path, name, cipher):
    pem = openssh.encrypt(keys.plain[name], PASS[name], cipher=cipher, rounds=2)
    info = openssh.key_info(pem)
    assert (info["cipher"], info["kdf"], info["rounds"]) == (cipher, "bcrypt", 2)
    path = write_key(tmp_path / "enc", pem)
    r = keygen("-y", "-P", PASS[name], "-f", path)
    assert r.returncode == 0, r.stderr
    assert pub_of(r.stdout.decode()) == pub_of(keys.pub[name])
    assert keygen("-y", "-P", "wrong", "-f", path).returncode != 0
    assert openssh.decrypt(pem, PASS[name]) == keys.plain[name]   # check-integer kept


def test_encrypt_fresh_salt_and_default_rounds(keys):
    a = openssh.encrypt(keys.plain["ed25519"], "pw", rounds=1)
    b = openssh.encrypt(keys.plain["ed25519"], "pw", rounds=1)
    assert a != b
    assert openssh.key_info(openssh.encrypt(keys.plain["ed25519"], "pw"))["rounds"] == 16


def test_encrypt_refusals(keys):
    with pytest.raises(ValueError, match="already encrypted"):
        openssh.encrypt(keys.chacha["ed25519"], "x")
    with pytest.raises(ValueError, match="unknown cipher"):
        openssh.encrypt(keys.plain["ed25519"], "x", cipher="des-cbc")
    with pytest.raises(ValueError, match="empty passphrase"):
        openssh.encrypt(keys.plain["ed25519"], "")
    for bad in (0, -1, 10 ** 6):
        with pytest.raises(ValueError, match="rounds"):
            openssh.encrypt(keys.plain["ed25519"], "x", rounds=bad)
    assert openssh.encrypt(keys.plain["ed25519"], None, cipher="none") == keys.plain["ed25519"]


def test_all_ciphers_round_trip_both_aes_backends(keys, monkeypatch):
    """Every cipher, through pycryptodome and through cryptography: each reads
    what the other wrote."""
    plain = keys.plain["ecdsa256"]
    written = {}
    for backend in ("pycryptodome", "cryptography"):
        if backend == "cryptography":
            from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            monkeypatch.setattr(_container, "aes_backend", lambda: (
                "cryptography", (Cipher, algorithms, modes, AESGCM)))
        for cipher in openssh.CIPHERS:
            pem = openssh.encrypt(plain, "ü", cipher=cipher, rounds=1)
            assert openssh.decrypt(pem, "ü") == plain
            if cipher != "none":
                with pytest.raises(ValueError):
                    openssh.decrypt(pem, "u")
            written[backend, cipher] = pem
    for cipher in openssh.CIPHERS:
        assert openssh.decrypt(written["pycryptodome", cipher], "ü") == plain


# ---------------------------------------------------------------------------
# load_private_key, public_key_line, key_info
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_load_private_key(keys, name):
    k = openssh.load_private_key(keys.chacha[name], PASS[name])
    assert k.has_private()
    assert pub_of(k.public_key().export_key(format="OpenSSH")) == pub_of(keys.pub[name])
    assert type(k).__name__ == ("RsaKey" if name.startswith("rsa") else "EccKey")


def test_load_dsa_key():
    import asyncssh

    pem = asyncssh.generate_private_key("ssh-dss", comment="dsa").export_private_key("openssh")
    assert openssh.decrypt(pem) == pem
    enc = openssh.encrypt(pem, "pw", rounds=1)
    k = openssh.load_private_key(enc, "pw")
    assert type(k).__name__ == "DsaKey" and k.has_private()
    assert openssh.public_key_line(enc, "pw").endswith(" dsa")


@pytest.mark.parametrize("name", NAMES)
def test_public_key_line_and_info(keys, tmp_path, name):
    want = keys.pub[name].strip()
    assert openssh.public_key_line(keys.plain[name]) == want
    assert openssh.public_key_line(keys.chacha[name], PASS[name]) == want
    assert openssh.public_key_line(keys.chacha[name]) == pub_of(want)   # comment is encrypted
    r = keygen("-l", "-E", "sha256", "-f", write_key(tmp_path / "p.pub", want.encode()))
    bits, fp = r.stdout.decode().split()[:2]
    info = openssh.key_info(keys.chacha[name])
    assert (str(info["bits"]), info["fingerprint"]) == (bits, fp)


# ---------------------------------------------------------------------------
# Bad input: every failure a ValueError
# ---------------------------------------------------------------------------

def binary(pem):
    return _wire.unarmour(pem)


def armour(blob):
    return _wire.armour(blob)


def header(cipher=b"none", kdf=b"none", kdfopts=b""):
    s = _wire.string
    return _wire.MAGIC + s(cipher) + s(kdf) + s(kdfopts)


@pytest.mark.parametrize("cipher", [CHACHA, "aes256-ctr", "aes128-cbc", "aes256-gcm@openssh.com"])
def test_wrong_passphrase(keys, cipher):
    pem = (keys.chacha["ed25519"] if cipher == CHACHA
           else openssh.encrypt(keys.plain["ed25519"], PASS["ed25519"], cipher=cipher, rounds=1))
    for wrong in ("wrong", PASS["ed25519"][:-1], PASS["ed25519"] + " ", "", b"\xff"):
        with pytest.raises(ValueError, match=WRONG):
            openssh.decrypt(pem, wrong)
    with pytest.raises(ValueError, match="passphrase is needed"):
        openssh.decrypt(pem, None)
    with pytest.raises(ValueError, match=WRONG):
        openssh.load_private_key(pem, "wrong")
    with pytest.raises(ValueError, match=WRONG):
        openssh.public_key_line(pem, "wrong")


def test_passphrase_is_utf8(keys):
    pw = PASS["ed25519"]
    assert openssh.decrypt(keys.chacha["ed25519"], pw.encode("utf-8")) == \
        openssh.decrypt(keys.chacha["ed25519"], pw)
    with pytest.raises(ValueError, match=WRONG):
        openssh.decrypt(keys.chacha["ed25519"], pw.encode("utf-16-le"))


@pytest.fixture
def cached_kdf(monkeypatch):
    """bcrypt_pbkdf memoised: the byte-by-byte tests run the kdf on the same
    salt hundreds of times (a changed salt or rounds field still misses)."""
    import functools

    monkeypatch.setattr(_container, "kdf", functools.lru_cache(maxsize=None)(_container.kdf))


def try_decrypt(data, pw="flip"):
    """decrypt, allowing only ValueError."""
    try:
        return openssh.decrypt(data, pw, max_rounds=64)
    except ValueError:
        return None


def test_every_byte_flipped_binary(keys, cached_kdf):
    """Each byte of a small chacha20-poly1305 key, changed in two ways: all
    rejected.  The tag covers the private section; the salt and rounds feed
    the key; the unencrypted public key is compared with the decrypted one;
    everything else is structure."""
    blob = binary(keys.small)
    assert openssh.decrypt(armour(blob), "flip")
    for i in range(len(blob)):
        for mask in (0x01, 0xA5):
            assert try_decrypt(armour(flipped(blob, i, mask))) is None, (i, mask)


def test_every_byte_flipped_pem_text(keys, cached_kdf):
    """Each character of the PEM text with its low bit flipped: rejected (bad
    base64, non-canonical base64, broken marker or a changed key)."""
    text = keys.small
    for i in range(len(text)):
        assert try_decrypt(flipped(text, i)) is None, (i, text[i:i + 1])


@pytest.mark.parametrize("cipher", ["none", "aes256-ctr", "aes128-cbc"])
def test_flips_without_authentication_never_crash(keys, cached_kdf, cipher):
    """Ciphers without a tag cannot notice every change (a changed comment is
    still a key), but no flip raises anything but ValueError, and most
    changes to key material are caught by the consistency checks."""
    pem = openssh.encrypt(keys.plain["ed25519"], "flip", cipher=cipher, rounds=1)
    blob = binary(pem)
    start = len(blob) - len(_container.parse_outer(pem, 64).encrypted)
    caught = 0
    for i in range(len(blob)):
        out = try_decrypt(armour(flipped(blob, i, 0x10)))
        if out is None:
            caught += 1
        else:
            assert i >= start, i        # only the private section can pass
            openssh.key_info(out)
    assert caught > len(blob) * 0.8


def test_truncation_at_every_length(keys, cached_kdf):
    blob = binary(keys.small)
    for n in range(len(blob)):
        assert try_decrypt(armour(blob[:n])) is None, n
        assert try_decrypt(blob[:n]) is None, n
    text = keys.small
    body_end = len(text.rstrip())
    for n in range(len(text)):
        got = try_decrypt(text[:n])
        assert (got is not None) == (n >= body_end), n


def test_trailing_data(keys):
    blob = binary(keys.small)
    for extra in (b"\x00", b"x" * 16):
        with pytest.raises(ValueError, match="trailing data"):
            openssh.decrypt(armour(blob + extra), "flip")
    for junk in (b"junk\n", b"-----BEGIN OPENSSH PRIVATE KEY-----\n", b"\x00"):
        with pytest.raises(ValueError, match="trailing data"):
            openssh.decrypt(keys.small + junk, "flip")
    assert openssh.decrypt(b"\n  " + keys.small + b"\n\n \t\r\n", "flip")


def patch_kdf(blob, salt=None, rounds=None):
    r = _wire.Reader(blob, "t")
    r.take(len(_wire.MAGIC), "m")
    r.string("c")
    r.string("k")
    start = r.pos
    opts = _wire.Reader(r.string("o"), "o")
    old_salt, old_rounds = bytes(opts.string("s")), opts.u32("r")
    s = _wire.string
    new = s(s(old_salt if salt is None else salt)
            + struct.pack(">I", old_rounds if rounds is None else rounds))
    return blob[:start] + new + bytes(r.rest())


def test_absurd_rounds_refused_quickly(keys):
    import time

    blob = binary(keys.small)
    for rounds in (0, 5001, 2 ** 31, 2 ** 32 - 1):
        t = time.perf_counter()
        with pytest.raises(ValueError, match="kdf rounds"):
            openssh.decrypt(armour(patch_kdf(blob, rounds=rounds)), "flip")
        assert time.perf_counter() - t < 1
    with pytest.raises(ValueError, match="kdf rounds"):
        openssh.decrypt(armour(patch_kdf(blob, rounds=65)), "flip", max_rounds=64)
    with pytest.raises(ValueError, match=WRONG):    # allowed, but not this key's rounds
        openssh.decrypt(armour(patch_kdf(blob, rounds=2)), "flip")
    for salt in (b"", b"s" * 2000):
        with pytest.raises(ValueError, match="salt"):
            openssh.decrypt(armour(patch_kdf(blob, salt=salt)), "flip")


def test_wrong_magic_and_other_formats(keys):
    blob = binary(keys.small)
    for magic in (b"openssh-key-v2\x00", b"openssh-key-v1\x01", b"OPENSSH-KEY-V1\x00"):
        with pytest.raises(ValueError, match="magic"):
            openssh.decrypt(armour(magic + blob[15:]), "flip")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    pkcs8 = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())
    with pytest.raises(ValueError, match="not an OpenSSH private key"):
        openssh.decrypt(pkcs8, None)
    for junk in (b"", b"   ", "ключ", b"\xff\xfe", keys.pub["ed25519"]):
        with pytest.raises(ValueError):
            openssh.decrypt(junk, "x")
    with pytest.raises(TypeError):
        openssh.decrypt(12345, "x")


def test_unknown_cipher_kdf_and_key_count(keys):
    blob = binary(keys.plain["ed25519"])
    rest = blob[len(header()):]
    with pytest.raises(ValueError, match="unknown cipher 'des-cbc'"):
        openssh.decrypt(armour(header(cipher=b"des-cbc") + rest), None)
    with pytest.raises(ValueError, match="unknown kdf 'scrypt'"):
        openssh.decrypt(armour(header(kdf=b"scrypt") + rest), None)
    with pytest.raises(ValueError, match="without a kdf"):
        openssh.decrypt(armour(header(cipher=CHACHA.encode()) + rest), None)
    with pytest.raises(ValueError, match="takes no options"):
        openssh.decrypt(armour(header(kdfopts=b"x") + rest), None)
    two = header() + struct.pack(">I", 2) + rest[4:]
    with pytest.raises(ValueError, match="2 keys"):
        openssh.decrypt(armour(two), None)


def swap_public(pem, other_pem):
    """pem with its unencrypted public key replaced by other_pem's."""
    blob = binary(pem)
    r = _wire.Reader(blob, "t")
    r.take(len(_wire.MAGIC), "m")
    for _ in range(3):
        r.string("x")
    r.u32("n")
    start = r.pos
    r.string("pub")
    other_pub = _wire.string(_container.parse_outer(other_pem, 64).pub)
    return armour(blob[:start] + other_pub + blob[r.pos:])


def test_public_key_mismatch_detected(keys):
    """The unencrypted public key replaced by another valid key of the same
    type: the tag cannot see it, the comparison with the private key does."""
    swapped = swap_public(keys.small, keys.plain["ed25519"])
    with pytest.raises(ValueError, match=WRONG):
        openssh.decrypt(swapped, "flip")
    # public_key_line() without a passphrase cannot tell; with one it can
    assert openssh.public_key_line(swapped).startswith("ssh-ed25519 ")
    with pytest.raises(ValueError, match=WRONG):
        openssh.public_key_line(swapped, "flip")
    with pytest.raises(ValueError, match=WRONG):
        openssh.load_private_key(swapped, "flip")


def test_decrypted_bytes_are_wiped(keys, monkeypatch):
    """The decrypted private section is zeroed after use, on success and
    when a check after decryption fails."""
    captured = []
    real = _container.keyfile_open

    def spy(key, data):
        out = real(key, data)
        captured.append(out)
        return out

    monkeypatch.setattr(_container, "keyfile_open", spy)
    assert openssh.decrypt(keys.small, "flip")
    assert openssh.load_private_key(keys.small, "flip")
    assert openssh.public_key_line(keys.small, "flip")
    with pytest.raises(ValueError):
        openssh.decrypt(swap_public(keys.small, keys.plain["ed25519"]), "flip")
    assert len(captured) == 4
    assert all(len(b) > 64 and not any(b) for b in captured)


def test_inconsistent_private_key_detected(keys):
    """An unencrypted RSA key whose d was altered (no tag to notice): the
    consistency check refuses it."""
    blob = bytearray(binary(keys.plain["rsa2048"]))
    f = _container.parse_outer(keys.plain["rsa2048"], 64)
    start = len(blob) - len(f.encrypted)
    r = _wire.Reader(blob[start:], "p")
    r.u32("c"), r.u32("c"), r.string("t"), r.mpint("n"), r.mpint("e")
    blob[start + r.pos + 40] ^= 1       # inside d
    with pytest.raises(ValueError, match=WRONG):
        openssh.decrypt(armour(bytes(blob)), None)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_damage_only_valueerror(data):
    """Random changes (insertions, deletions, overwrites) to an unencrypted
    and a chacha key: ValueError or, for the unauthenticated key, a key."""
    pem = _RANDOM_KEYS[data.draw(st.integers(0, 1))]
    blob = bytearray(binary(pem))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(blob)))
        op = data.draw(st.sampled_from(["set", "ins", "del"]))
        b = data.draw(st.integers(0, 255))
        if op == "set" and i < len(blob):
            blob[i] = b
        elif op == "ins":
            blob.insert(i, b)
        elif i < len(blob):
            del blob[i]
    out = try_decrypt(armour(bytes(blob)), "pw")
    if pem is _RANDOM_KEYS[1] and out is not None:
        assert bytes(blob) == binary(pem)


def _make_random_keys():
    import asyncssh

    plain = asyncssh.generate_private_key("ssh-ed25519", comment="r").export_private_key(
        "openssh")
    return [plain, openssh.encrypt(plain, "pw", rounds=1)]


_RANDOM_KEYS = _make_random_keys()


# ---------------------------------------------------------------------------
# Optional dependency and command line
# ---------------------------------------------------------------------------

def test_imports_without_bcrypt(keys, tmp_path):
    path = write_key(tmp_path / "k", keys.small)
    plain = write_key(tmp_path / "p", keys.plain["ed25519"])
    code = (
        "import sys; sys.modules['bcrypt'] = None\n"
        "from poly1305x import openssh\n"
        "print(openssh.decrypt(open(sys.argv[2], 'rb').read()) is not None)\n"
        "try:\n"
        "    openssh.decrypt(open(sys.argv[1], 'rb').read(), 'flip')\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code, path, plain], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "True" in r.stdout
    assert "pip install -e '.[openssh]'" in r.stdout


def cli(*args, env=None, **kw):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "poly1305x.openssh", *args],
                          capture_output=True, env=e, timeout=60, **kw)


def test_cli_decrypt_encrypt_info(keys, tmp_path):
    src = write_key(tmp_path / "id", keys.chacha["ed25519"])
    out = str(tmp_path / "id.plain")
    env = {"KEYPASS": PASS["ed25519"]}
    r = cli("decrypt", src, "-o", out, "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0, r.stderr
    assert os.stat(out).st_mode & 0o777 == 0o600
    plain = open(out, "rb").read()
    assert without_checkint(plain) == without_checkint(keys.plain["ed25519"])
    # never overwrite without --force (output file, or the key itself)
    r = cli("decrypt", src, "-o", out, "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 1 and b"--force" in r.stderr
    r = cli("decrypt", src, "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 1 and b"--force" in r.stderr
    assert open(src, "rb").read() == keys.chacha["ed25519"]
    os.chmod(out, 0o644)
    r = cli("decrypt", src, "-o", out, "--force", "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0, r.stderr
    assert os.stat(out).st_mode & 0o777 == 0o600
    # wrong passphrase: exit 1, clear message, nothing written
    bad = str(tmp_path / "bad")
    r = cli("decrypt", src, "-o", bad, "--passphrase-env", "KEYPASS", env={"KEYPASS": "no"})
    assert r.returncode == 1 and WRONG.encode() in r.stderr
    assert not os.path.exists(bad)
    # encrypt with the passphrase on a file descriptor (a pipe)
    enc = str(tmp_path / "id.enc")
    rfd, wfd = os.pipe()
    os.write(wfd, "neue Päss\nignored".encode())
    os.close(wfd)
    try:
        r = cli("encrypt", out, "-o", enc, "-a", "2", "-Z", "aes256-gcm@openssh.com",
                "--passphrase-fd", str(rfd), pass_fds=(rfd,))
    finally:
        os.close(rfd)
    assert r.returncode == 0, r.stderr
    assert os.stat(enc).st_mode & 0o777 == 0o600
    r2 = keygen("-y", "-P", "neue Päss", "-f", enc)
    assert r2.returncode == 0 and pub_of(r2.stdout.decode()) == pub_of(keys.pub["ed25519"])
    # in place with --force
    r = cli("encrypt", out, "--force", "-a", "1", "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0, r.stderr
    assert openssh.decrypt(open(out, "rb").read(), PASS["ed25519"]) == plain
    # info, without and with --check
    r = cli("info", src)
    assert r.returncode == 0, r.stderr
    text = r.stdout.decode()
    assert openssh.key_info(keys.chacha["ed25519"])["fingerprint"] in text
    assert CHACHA in text and "(encrypted)" in text
    r = cli("info", src, "--check", "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0 and "test ed25519 ¢omment" in r.stdout.decode()
    # to standard output
    r = cli("decrypt", src, "-o", "-", "--passphrase-env", "KEYPASS", env=env)
    assert r.returncode == 0 and r.stdout == plain
    # a damaged file
    junk = write_key(tmp_path / "junk", b"hello")
    r = cli("info", junk)
    assert r.returncode == 1 and b"not an OpenSSH private key" in r.stderr
    # no option takes a passphrase on the command line
    assert cli("decrypt", src, "--passphrase", "x").returncode == 2


def test_cli_prompts_with_getpass(keys, tmp_path, monkeypatch):
    import getpass

    src = write_key(tmp_path / "id", keys.plain["ecdsa256"])
    answers = iter(["Ünïcødé", "Ünïcødé", "a", "b"])
    prompts = []

    def fake(prompt=""):
        prompts.append(prompt)
        return next(answers)

    monkeypatch.setattr(getpass, "getpass", fake)
    # getpass is for a terminal (without one, standard input is read directly)
    import poly1305x.openssh.__main__ as cli_module
    monkeypatch.setattr(cli_module, "_have_terminal", lambda: True)
    out = str(tmp_path / "enc")
    assert cli_main(["encrypt", src, "-o", out, "-a", "1"]) == 0
    assert openssh.decrypt(open(out, "rb").read(), "Ünïcødé") == keys.plain["ecdsa256"]
    assert len(prompts) == 2
    assert cli_main(["encrypt", src, "-o", str(tmp_path / "x"), "-a", "1"]) == 1
    assert not os.path.exists(tmp_path / "x")


def test_base64_is_canonical_and_wrapped(keys):
    pem = openssh.encrypt(keys.plain["rsa2048"], "x", rounds=1)
    lines = pem.split(b"\n")
    assert all(len(line) == 70 for line in lines[1:-3])
    assert base64.b64encode(binary(pem)) == b"".join(lines[1:-2])
