"""The openssh-key-v1 container (OpenSSH's PROTOCOL.key): the clear header,
bcrypt_pbkdf, the ciphers of the private section, and the private section
itself."""
import secrets
from typing import Dict, Tuple

from poly1305x._errors import InvalidTag
from poly1305x._peers import install_hint, pycryptodome
from poly1305x.openssh._ssh import keyfile_open, keyfile_seal
from poly1305x.openssh._keys import read_private, read_public
from poly1305x.openssh._wire import (
    MAGIC, PASSPHRASE_TYPE, U32, WRONG_MAGIC, WRONG_PASSPHRASE, Reader, armour, string, unarmour,
    wipe,
)

INSTALL_HINT = install_hint("openssh")
CHACHA = "chacha20-poly1305@openssh.com"

#: bcrypt_pbkdf rounds above this are refused unless ``max_rounds`` says more.
#: ssh-keygen's default is 16 (about 0.15 s); 5000 rounds take about a minute.
DEFAULT_MAX_ROUNDS: int = 5000
SALT_SIZE = 16          # what ssh-keygen writes
MAX_SALT = 1024         # what we read

# name: (key length, iv length, block size, tag length)
CIPHERS: Dict[str, Tuple[int, int, int, int]] = {
    "none": (0, 0, 8, 0),
    CHACHA: (64, 0, 8, 16),
    "aes128-ctr": (16, 16, 16, 0),
    "aes192-ctr": (24, 16, 16, 0),
    "aes256-ctr": (32, 16, 16, 0),
    "aes128-cbc": (16, 16, 16, 0),
    "aes192-cbc": (24, 16, 16, 0),
    "aes256-cbc": (32, 16, 16, 0),
    "aes128-gcm@openssh.com": (16, 12, 16, 16),
    "aes256-gcm@openssh.com": (32, 12, 16, 16),
}


class File:
    """The clear part of a key file.  ``key_type`` and ``public`` come from
    the public-key blob ``pub``; ``encrypted`` and ``tag`` are views."""

    __slots__ = ("cipher", "kdf", "salt", "rounds", "pub", "ktype", "key_type", "public",
                 "encrypted", "tag")


def parse_outer(data, max_rounds):
    """Everything outside the encrypted part: cheap checks, before any kdf."""
    blob = unarmour(data)
    r = Reader(blob, "openssh-key-v1 header")
    if bytes(r.take(len(MAGIC), "magic")) != MAGIC:
        raise ValueError(WRONG_MAGIC)
    f = File()
    f.cipher = r.name("cipher name")
    if f.cipher not in CIPHERS:
        raise ValueError(f"unknown cipher {f.cipher!r} (known: {', '.join(CIPHERS)})")
    f.kdf = r.name("kdf name")
    opts = Reader(r.string("kdf options"), "kdf options")
    f.salt, f.rounds = None, 0
    if f.kdf == "none":
        if opts.left():
            opts._fail("kdf 'none' takes no options")
        if f.cipher != "none":
            raise ValueError(f"damaged key: cipher {f.cipher} without a kdf")
    elif f.kdf == "bcrypt":
        if f.cipher == "none":
            raise ValueError("damaged key: kdf bcrypt with cipher none")
        f.salt = bytes(opts.string("bcrypt salt"))
        f.rounds = opts.u32("bcrypt rounds")
        if opts.left():
            opts._fail(f"{opts.left()} stray bytes after the bcrypt options")
        if not 0 < len(f.salt) <= MAX_SALT:
            raise ValueError(f"damaged key: bcrypt salt of {len(f.salt)} bytes")
        if not 0 < f.rounds <= max_rounds:
            raise ValueError(f"refusing kdf rounds = {f.rounds} (allowed: 1..{max_rounds}; "
                             "pass max_rounds= to allow more)")
    else:
        raise ValueError(f"unknown kdf {f.kdf!r} (known: bcrypt, none)")
    nkeys = r.u32("number of keys")
    if nkeys != 1:
        raise ValueError(f"damaged key: {nkeys} keys in the file (OpenSSH writes exactly 1)")
    f.pub = bytes(r.string("public key"))
    f.key_type, f.public = read_public(f.pub)
    f.ktype = f.key_type.name
    keylen, ivlen, block, authlen = CIPHERS[f.cipher]
    f.encrypted = r.string("private section")
    if len(f.encrypted) < block or len(f.encrypted) % block:
        raise ValueError(f"damaged key: private section of {len(f.encrypted)} bytes is not a "
                         f"multiple of the {block}-byte cipher block")
    f.tag = r.take(authlen, "authentication tag")
    if r.left():
        raise ValueError(f"damaged key: {r.left()} bytes of trailing data after the key")
    return f


def kdf(passphrase, salt, rounds, n):
    """bcrypt_pbkdf (from the ``bcrypt`` package)."""
    try:
        import bcrypt
    except ImportError:
        raise ImportError("encrypted OpenSSH keys need bcrypt_pbkdf from the 'bcrypt' "
                          f"package: {INSTALL_HINT}") from None
    if isinstance(passphrase, str):
        passphrase = passphrase.encode("utf-8")
    elif isinstance(passphrase, (bytearray, memoryview)):
        passphrase = bytes(passphrase)
    elif not isinstance(passphrase, bytes):
        raise TypeError(PASSPHRASE_TYPE)
    if not passphrase:
        raise ValueError(WRONG_PASSPHRASE)
    return bcrypt.kdf(password=passphrase, salt=salt, desired_key_bytes=n, rounds=rounds,
                      ignore_few_rounds=True)


def aes_backend():
    """("pycryptodome", AES module) or ("cryptography", (Cipher, algorithms,
    modes, AESGCM))."""
    mods = pycryptodome("Cipher.AES")
    if mods is not None:
        return "pycryptodome", mods[0]
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        return "cryptography", (Cipher, algorithms, modes, AESGCM)
    except ImportError:
        raise ImportError("AES-encrypted OpenSSH keys need pycryptodome or cryptography: "
                          f"{INSTALL_HINT}") from None


def _aes_pycryptodome(AES, mode, key, iv, data, tag, encrypt, out):
    if mode == "ctr":
        c = AES.new(key, AES.MODE_CTR, nonce=b"", initial_value=iv)
    elif mode == "cbc":
        c = AES.new(key, AES.MODE_CBC, iv=iv)
    else:
        c = AES.new(key, AES.MODE_GCM, nonce=iv, mac_len=16)
    if encrypt:
        c.encrypt(data, output=out)
        return out, (c.digest() if mode == "gcm" else b"")
    c.decrypt(data, output=out)
    if mode == "gcm":
        try:
            c.verify(bytes(tag))
        except ValueError:
            wipe(out)
            raise ValueError(WRONG_PASSPHRASE) from None
    return out, b""


def _aes_cryptography(lib, mode, key, iv, data, tag, encrypt, out):
    Cipher, algorithms, modes, AESGCM = lib
    if mode == "gcm":
        try:
            if encrypt:
                ct = AESGCM(key).encrypt(iv, bytes(data), None)
                out[:] = ct[:-16]
                return out, ct[-16:]
            out[:] = AESGCM(key).decrypt(iv, bytes(data) + bytes(tag), None)
            return out, b""
        except InvalidTag:
            raise ValueError(WRONG_PASSPHRASE) from None
        except Exception as exc:
            if type(exc).__name__ == "InvalidTag":
                raise ValueError(WRONG_PASSPHRASE) from None
            raise
    m = modes.CTR(iv) if mode == "ctr" else modes.CBC(iv)
    ctx = Cipher(algorithms.AES(key), m)
    ctx = ctx.encryptor() if encrypt else ctx.decryptor()
    buf = bytearray(len(data) + 15)
    n = ctx.update_into(data, buf)
    out[:] = buf[:n]
    wipe(buf)
    ctx.finalize()
    return out, b""


def aes(cipher, key, iv, data, tag, encrypt):
    """AES-CTR/CBC/GCM over data; returns (output bytearray, tag or b'').
    Decryption with GCM verifies the tag (ValueError on a mismatch)."""
    kind, lib = aes_backend()
    mode = cipher.split("-")[1].split("@")[0]
    run = _aes_pycryptodome if kind == "pycryptodome" else _aes_cryptography
    return run(lib, mode, key, iv, data, tag, encrypt, bytearray(len(data)))


def _split_kdf(cipher, derived):
    keylen, ivlen, _, _ = CIPHERS[cipher]
    return derived[:keylen], derived[keylen:keylen + ivlen]


def decrypt_private(f, passphrase):
    """The decrypted private section as a bytearray (the caller wipes it)."""
    if f.cipher == "none":
        return bytearray(f.encrypted)
    if passphrase is None:
        raise ValueError("the key is encrypted: a passphrase is needed")
    keylen, ivlen, _, _ = CIPHERS[f.cipher]
    derived = kdf(passphrase, f.salt, f.rounds, keylen + ivlen)
    if f.cipher == CHACHA:
        try:
            return keyfile_open(derived, bytes(f.encrypted) + bytes(f.tag))
        except InvalidTag:
            raise ValueError(WRONG_PASSPHRASE) from None
    key, iv = _split_kdf(f.cipher, derived)
    return aes(f.cipher, key, iv, f.encrypted, f.tag, False)[0]


def parse_private(plain, f, check=True):
    """(checkint, key) from the decrypted private section; ``check`` runs the
    key's consistency check (see KeyType.consistent).

    The one rule for text derived from the private section (docs/security.md):
    every failure here is ValueError(WRONG_PASSPHRASE), for every cipher, with
    no cause, no context and no other argument.  The section is secret, and
    under aes-ctr/cbc an attacker who flips ciphertext bits chooses what the
    parser reads: a message naming a length or a value would print key bytes."""
    try:
        return _parse_private(plain, f, check)
    except MemoryError:
        raise
    except Exception:
        pass
    # Raised outside the handler: the detailed exception (and the frames that
    # hold decrypted values) is released, not kept as __context__.
    raise ValueError(WRONG_PASSPHRASE)


def _parse_private(plain, f, check):
    """Check-integers first, then the key's type and public fields against the
    file's public section (read_private), then the rest."""
    r = Reader(plain, "private section")
    c1 = r.u32("check-integer")
    c2 = r.u32("check-integer")
    if c1 != c2:
        raise ValueError(WRONG_PASSPHRASE)
    key = read_private(r, check, f.key_type, f.public)
    key.comment = bytes(r.string("comment"))
    pad = r.rest()
    for i, b in enumerate(pad):
        if b != (i + 1) & 0xFF:
            raise ValueError("bad padding")
    if key.pub != f.pub:
        raise ValueError("public key mismatch")
    return c1, key


def load(data, passphrase, max_rounds):
    """(file, checkint, key, plain); key.body is a view of the decrypted
    section, which the caller wipes through plain."""
    f = parse_outer(data, max_rounds)
    plain = decrypt_private(f, passphrase)
    try:
        check, key = parse_private(plain, f)
    except BaseException:
        wipe(plain)
        raise
    return f, check, key, plain


def _container(cipher, kdf_name, kdfopts, pub, private_len, encrypted, tag):
    out = bytearray(MAGIC)
    out += string(cipher.encode())
    out += string(kdf_name.encode())
    out += string(kdfopts)
    out += U32.pack(1)
    out += string(pub)
    out += U32.pack(private_len)
    out += encrypted
    out += tag
    return out


def _private_section(check, key, block):
    sec = bytearray(U32.pack(check) * 2)
    sec += key.body
    sec += string(key.comment)
    i = 1
    while len(sec) % block:
        sec.append(i)
        i += 1
    return sec


def serialize(check, key, cipher, passphrase, rounds):
    """PEM bytes of key under cipher (none: unencrypted)."""
    keylen, ivlen, block, _ = CIPHERS[cipher]
    sec = _private_section(check, key, block)
    try:
        if cipher == "none":
            blob = _container("none", "none", b"", key.pub, len(sec), sec, b"")
        else:
            salt = secrets.token_bytes(SALT_SIZE)
            derived = kdf(passphrase, salt, rounds, keylen + ivlen)
            if cipher == CHACHA:
                sealed = keyfile_seal(derived, sec)
                enc, tag = sealed[:-16], sealed[-16:]
            else:
                k, iv = _split_kdf(cipher, derived)
                enc, tag = aes(cipher, k, iv, sec, b"", True)
            blob = _container(cipher, "bcrypt", string(salt) + U32.pack(rounds), key.pub,
                              len(sec), enc, tag)
        try:
            return armour(blob)
        finally:
            wipe(blob)
    finally:
        wipe(sec)


def unencrypted_pem(data, passphrase, max_rounds):
    """The key of data as unencrypted PEM (what decrypt() returns), and its
    File; the decrypted section is wiped before returning."""
    f, check, key, plain = load(data, passphrase, max_rounds)
    try:
        return serialize(check, key, "none", None, 0), f
    finally:
        key.body = None
        wipe(plain)
