"""OpenSSH private-key files, damaged: every byte flipped, every truncation,
swapped public sections, absurd KDF rounds, random damage.  Each failure is a
ValueError, and after decryption always the one fixed message (nothing of the
decrypted bytes in it).  Keys from tests/openssh/keyfiles.py."""
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poly1305x import openssh
from poly1305x.openssh import _container, _wire
from tests.openssh.keyfiles import CHACHA, PASS, WRONG
from tests.support.helpers import flipped

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


def test_absurd_rounds_refused_quickly(keys, monkeypatch):
    """Refused before the KDF runs (2**32 - 1 bcrypt rounds would take days)."""
    ran = []
    real_kdf = _container.kdf
    monkeypatch.setattr(_container, "kdf", lambda *a, **kw: ran.append(a) or real_kdf(*a, **kw))
    blob = binary(keys.small)
    for rounds in (0, 5001, 2 ** 31, 2 ** 32 - 1):
        with pytest.raises(ValueError, match="kdf rounds"):
            openssh.decrypt(armour(patch_kdf(blob, rounds=rounds)), "flip")
    assert ran == []
    with pytest.raises(ValueError, match="kdf rounds"):
        openssh.decrypt(armour(patch_kdf(blob, rounds=65)), "flip", max_rounds=64)
    assert ran == []
    with pytest.raises(ValueError, match=WRONG):    # allowed, but not this key's rounds
        openssh.decrypt(armour(patch_kdf(blob, rounds=2)), "flip")
    assert [a[2] for a in ran] == [2]               # the hook sees the KDF when it runs
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
