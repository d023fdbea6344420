"""poly1305x.openssh.load_ssh_private_key raises cryptography's exception
classes: UnsupportedAlgorithm for an unknown cipher, kdf or key
type, and on every damaged file what cryptography's own load_ssh_private_key
raises on the same bytes.  Files cryptography reads (none, aes256-ctr/cbc/gcm)
are compared directly; chacha20-poly1305 and aes128-ctr files, which
cryptography refuses as a whole, get the same damage as an aes256 file (an
AEAD one for chacha) and must raise what cryptography raised there."""
import pytest
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization

from poly1305x import openssh
from poly1305x.openssh import _wire
from tests.openssh.keyfiles import make_key_files

PASSWORD = b"corpus pw"
READABLE = ["none", "aes256-ctr", "aes256-cbc", "aes256-gcm@openssh.com"]
OURS_ONLY = {"chacha20-poly1305@openssh.com": "aes256-gcm@openssh.com",
             "aes128-ctr": "aes256-ctr", "aes192-cbc": "aes256-cbc"}
TYPES = {"ed25519": ["-t", "ed25519"], "ecdsa256": ["-t", "ecdsa", "-b", "256"],
         "rsa": ["-t", "rsa", "-b", "2048"]}

pytestmark = pytest.mark.filterwarnings(
    "ignore::cryptography.utils.CryptographyDeprecationWarning")


@pytest.fixture(scope="module")
def corpus_pems(tmp_path_factory):
    return make_key_files(tmp_path_factory.mktemp("corpus"), TYPES,
                          READABLE[1:] + list(OURS_ONLY), PASSWORD.decode(), "corpus")


def fields(pem):
    """The container's fields: [cipher, kdf, kdfopts, nkeys, pub, private, tail]."""
    r = _wire.Reader(_wire.unarmour(pem)[len(_wire.MAGIC):], "t")
    out = [bytes(r.string("x")) for _ in range(3)]
    out += [r.u32("n"), bytes(r.string("pub")), bytes(r.string("private")), bytes(r.rest())]
    return out


def build(f):
    cipher, kdf, opts, nkeys, pub, private, tail = f
    s = _wire.string
    return _wire.armour(_wire.MAGIC + s(cipher) + s(kdf) + s(opts) + _wire.U32.pack(nkeys)
                        + s(pub) + s(private) + tail)


def _set(i, value):
    def change(f):
        f = list(f)
        f[i] = value(f[i]) if callable(value) else value
        return f
    return change


#: Named damage to the fields, the same for every cipher.
DAMAGE = {
    "cipher unknown": _set(0, b"aes512-ctr"),
    "cipher empty": _set(0, b""),
    "cipher none": _set(0, b"none"),
    "kdf unknown": _set(1, b"scrypt"),
    "kdf none": _set(1, b"none"),
    "kdf options empty": _set(2, b""),
    "kdf options stray byte": _set(2, lambda o: o + b"\0"),
    "kdf options salt length": _set(2, lambda o: o[:3] + bytes([o[3] ^ 1]) + o[4:] if o else b"\0"),
    "no keys": _set(3, 0),
    "two keys": _set(3, 2),
    "key type unknown": _set(4, lambda p: _wire.string(b"ssh-foo") + p[4 + p[3]:]),
    "public truncated": _set(4, lambda p: p[:-1]),
    "public stray byte": _set(4, lambda p: p + b"\0"),
    "private one block short": _set(5, lambda e: e[:-16]),
    "private odd length": _set(5, lambda e: e[:-1]),
    "private empty": _set(5, b""),
    "tail extra byte": _set(6, lambda t: t + b"\0"),
    "tail one byte short": _set(6, lambda t: t[:-1]),
    "private flipped": _set(5, lambda e: e[:20] + bytes([e[20] ^ 0x40]) + e[21:]),
}


def outcome(load, data, password):
    try:
        key = load(data, password)
    except Exception as exc:    # the class is what is compared
        return exc
    return key


def compare(ours, theirs, what):
    if isinstance(theirs, Exception):
        assert isinstance(ours, type(theirs)), (what, repr(ours), repr(theirs))
    elif isinstance(ours, Exception):
        # poly1305x is stricter (e.g. ECDSA d against the public point)
        assert type(ours) is ValueError, (what, repr(ours))
    else:
        pb = (serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
              serialization.NoEncryption())
        assert ours.private_bytes(*pb) == theirs.private_bytes(*pb), what


def theirs_load(data, password):
    return serialization.load_ssh_private_key(data, password)


def ours_load(data, password):
    return openssh.load_ssh_private_key(data, password)


def passwords(cipher):
    return [None, b"", b"wrong", PASSWORD] if cipher != "none" else [None, PASSWORD]


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("cipher", READABLE)
def test_named_damage_as_cryptography(corpus_pems, name, cipher):
    base = fields(corpus_pems[name, cipher])
    cases = {"undamaged": corpus_pems[name, cipher]}
    cases.update((what, build(change(base))) for what, change in DAMAGE.items())
    for what, data in cases.items():
        for pw in passwords(cipher):
            compare(outcome(ours_load, data, pw), outcome(theirs_load, data, pw),
                    (what, pw))


@pytest.mark.parametrize("name", list(TYPES))
@pytest.mark.parametrize("cipher,twin", sorted(OURS_ONLY.items()))
def test_named_damage_on_our_ciphers_as_on_a_twin(corpus_pems, name, cipher, twin):
    """The same damage on a file only poly1305x reads: the class cryptography
    raised for it on the twin (aes256-gcm for the AEAD, else aes256)."""
    mine, other = fields(corpus_pems[name, cipher]), fields(corpus_pems[name, twin])
    for what, change in DAMAGE.items():
        if what in ("cipher unknown", "cipher empty", "cipher none", "undamaged"):
            continue
        for pw in passwords(cipher):
            theirs = outcome(theirs_load, build(change(other)), pw)
            ours = outcome(ours_load, build(change(mine)), pw)
            compare(ours, theirs, (what, pw))
    # the undamaged files load, with the wrong password failing as on the twin
    assert not isinstance(outcome(ours_load, corpus_pems[name, cipher], PASSWORD), Exception)
    compare(outcome(ours_load, corpus_pems[name, cipher], b"wrong"),
            outcome(theirs_load, corpus_pems[name, twin], b"wrong"), "wrong password")


@pytest.mark.parametrize("cipher", READABLE)
def test_byte_flips_as_cryptography(corpus_pems, cipher):
    """Each byte of the header, and a stride through the rest, flipped in
    the binary container (kdf rounds excepted: cryptography would run them)."""
    pem = corpus_pems["ed25519", cipher]
    blob = _wire.unarmour(pem)
    f = fields(pem)
    rounds_at = len(_wire.MAGIC) + 12 + len(f[0]) + len(f[1]) + len(f[2]) - 4
    header = len(blob) - len(f[5]) - len(f[6])
    for i in sorted(set(range(header)) | set(range(header, len(blob), 5))):
        if cipher != "none" and rounds_at <= i < rounds_at + 4:
            continue
        bad = bytearray(blob)
        bad[i] ^= 1 << (i % 8)
        data = _wire.armour(bytes(bad))
        pw = PASSWORD if cipher != "none" else None
        compare(outcome(ours_load, data, pw), outcome(theirs_load, data, pw), i)


def test_unknown_cipher_and_kdf_are_unsupported_algorithm(corpus_pems):
    """The finding: ValueError before, where cryptography (and the
    documentation) say UnsupportedAlgorithm."""
    base = fields(corpus_pems["ed25519", "chacha20-poly1305@openssh.com"])
    for what in ("cipher unknown", "kdf unknown"):
        with pytest.raises(UnsupportedAlgorithm):
            openssh.load_ssh_private_key(build(DAMAGE[what](base)), PASSWORD)
