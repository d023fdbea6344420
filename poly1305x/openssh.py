"""OpenSSH support: encrypted private-key files and the
chacha20-poly1305@openssh.com packet cipher.

Key files (the ``openssh-key-v1`` format of OpenSSH's PROTOCOL.key)::

    from poly1305x import openssh
    plain_pem = openssh.decrypt(open("id_ed25519", "rb").read(), "passphrase")
    enc_pem = openssh.encrypt(plain_pem, "new passphrase")      # chacha20-poly1305
    key = openssh.load_private_key(enc_pem, "new passphrase")   # pycryptodome key
    line = openssh.public_key_line(enc_pem)                     # "ssh-ed25519 AAAA..."

Passphrase-protected keys need bcrypt_pbkdf, from the ``bcrypt`` package, and
the AES ciphers need pycryptodome or cryptography: ``pip install
poly1305x[openssh]``.  The module imports without them; the functions that need
them raise ImportError saying so.

Every problem with the input -- a wrong passphrase, a damaged, truncated or
padded-out file, an unknown cipher or kdf, absurd kdf rounds -- is a ValueError
with a message, raised before any key material is returned.

Transport packets: :class:`PacketCipher` (see its docstring and docs/openssh.md).

Command line: ``python -m poly1305x.openssh decrypt|encrypt|info KEYFILE``
(``--help`` for the options).
"""
import base64
import binascii
import hashlib
import os
import secrets
import struct
import sys

from poly1305x._errors import InvalidTag
from poly1305x._ssh import PacketCipher, keyfile_open, keyfile_seal

__all__ = [
    "CIPHERS", "DEFAULT_MAX_ROUNDS", "PacketCipher", "decrypt", "encrypt", "key_info",
    "load_private_key", "public_key_line",
]

MAGIC = b"openssh-key-v1\x00"
BEGIN = b"-----BEGIN OPENSSH PRIVATE KEY-----"
END = b"-----END OPENSSH PRIVATE KEY-----"
WRONG_PASSPHRASE = "incorrect passphrase or damaged key"
INSTALL_HINT = "pip install poly1305x[openssh]"

#: bcrypt_pbkdf rounds above this are refused unless ``max_rounds`` says more.
#: ssh-keygen's default is 16 (about 0.15 s); 5000 rounds take about a minute.
DEFAULT_MAX_ROUNDS = 5000
SALT_SIZE = 16          # what ssh-keygen writes
MAX_SALT = 1024         # what we read
MAX_KEY_FILE = 1 << 20  # bytes of PEM text; an RSA-16384 key is about 12 KiB
MAX_MPINT = 16384 // 8  # as OpenSSH (SSHBUF_MAX_BIGNUM): bounds the key checks' cost
_U32 = struct.Struct(">I")

# name: (key length, iv length, block size, tag length)
CIPHERS = {
    "none": (0, 0, 8, 0),
    "chacha20-poly1305@openssh.com": (64, 0, 8, 16),
    "aes128-ctr": (16, 16, 16, 0),
    "aes192-ctr": (24, 16, 16, 0),
    "aes256-ctr": (32, 16, 16, 0),
    "aes128-cbc": (16, 16, 16, 0),
    "aes192-cbc": (24, 16, 16, 0),
    "aes256-cbc": (32, 16, 16, 0),
    "aes128-gcm@openssh.com": (16, 12, 16, 16),
    "aes256-gcm@openssh.com": (32, 12, 16, 16),
}

_CURVES = {  # key type -> (curve name in the key, coordinate bytes, pycryptodome curve)
    "ecdsa-sha2-nistp256": (b"nistp256", 32, "p256"),
    "ecdsa-sha2-nistp384": (b"nistp384", 48, "p384"),
    "ecdsa-sha2-nistp521": (b"nistp521", 66, "p521"),
    "sk-ecdsa-sha2-nistp256@openssh.com": (b"nistp256", 32, "p256"),
}
_ORDERS = {
    b"nistp256": 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551,
    b"nistp384": int("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF"
                     "581A0DB248B0A77AECEC196ACCC52973", 16),
    b"nistp521": int("01FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"
                     "FFFFFFFFFFFA51868783BF2F966B7FCC0148F709A5D03BB5C9B8899C47AEBB6FB"
                     "71E91386409", 16),
}


# ---------------------------------------------------------------------------
# Wire format
# ---------------------------------------------------------------------------

class _Reader:
    """Reads SSH wire types from a bytes-like object; every shortfall is a
    ValueError naming the part being read."""

    __slots__ = ("buf", "pos", "what")

    def __init__(self, buf, what):
        self.buf = memoryview(buf)
        self.pos = 0
        self.what = what

    def _fail(self, detail):
        raise ValueError(f"damaged or truncated key: {self.what}: {detail}")

    def take(self, n, name):
        if n > len(self.buf) - self.pos:
            self._fail(f"{name} runs past the end ({n} bytes wanted, "
                       f"{len(self.buf) - self.pos} left)")
        start = self.pos
        self.pos += n
        return self.buf[start:self.pos]

    def u32(self, name):
        return _U32.unpack(self.take(4, name))[0]

    def u8(self, name):
        return self.take(1, name)[0]

    def string(self, name):
        return self.take(self.u32(name + " length"), name)

    def raw_string(self, name):
        """A string with its length prefix, as bytes."""
        start = self.pos
        self.string(name)
        return self.buf[start:self.pos]

    def mpint(self, name):
        """(value, raw bytes with the length prefix); negative values refused."""
        start = self.pos
        body = self.string(name)
        if len(body) and body[0] & 0x80:
            self._fail(f"{name} is negative")
        if len(body) > MAX_MPINT + 1 or (len(body) == MAX_MPINT + 1 and body[0]):
            self._fail(f"{name} is longer than {8 * MAX_MPINT} bits")
        return int.from_bytes(body, "big"), self.buf[start:self.pos]

    def name(self, name, limit=64):
        body = self.string(name)
        if len(body) > limit:
            self._fail(f"{name} is {len(body)} bytes long")
        try:
            return bytes(body).decode("ascii")
        except UnicodeDecodeError:
            self._fail(f"{name} is not ASCII")

    def left(self):
        return len(self.buf) - self.pos

    def rest(self):
        return self.take(self.left(), "rest")


def _s(data):
    return _U32.pack(len(data)) + bytes(data)


# ---------------------------------------------------------------------------
# PEM armour
# ---------------------------------------------------------------------------

_SPACE = b" \t\r\n"


def _as_bytes(data):
    if isinstance(data, str):
        try:
            return data.encode("ascii")
        except UnicodeEncodeError:
            raise ValueError("not an OpenSSH private key: the PEM text has non-ASCII "
                             "characters") from None
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"key data must be str or bytes, not {type(data).__name__}")


def _unarmour(data):
    """The binary openssh-key-v1 blob from PEM text (str or bytes), or from
    the binary blob itself."""
    raw = _as_bytes(data)
    if raw.startswith(MAGIC):
        return raw
    if len(raw) > MAX_KEY_FILE:
        raise ValueError(f"not an OpenSSH private key: more than {MAX_KEY_FILE} bytes")
    text = raw.lstrip(_SPACE)
    if not text.startswith(BEGIN):
        if b"-----BEGIN " in text[:100]:
            kind = text[text.index(b"-----BEGIN ") + 11:].split(b"-----")[0][:40]
            raise ValueError("not an OpenSSH private key (openssh-key-v1): the file is "
                             f"a PEM {kind.decode('ascii', 'replace')!r}")
        raise ValueError("not an OpenSSH private key: no '-----BEGIN OPENSSH PRIVATE "
                         "KEY-----' line")
    end = text.find(END)
    if end < 0:
        raise ValueError("damaged or truncated key: no '-----END OPENSSH PRIVATE KEY-----' line")
    if text[end + len(END):].strip(_SPACE):
        raise ValueError("trailing data after the '-----END OPENSSH PRIVATE KEY-----' line")
    body = text[len(BEGIN):end]
    if body[:1] not in (b"\n", b"\r") or body.rstrip(b" \t")[-1:] not in (b"\n",):
        raise ValueError("damaged key: the BEGIN and END lines must be lines of their own")
    b64 = body.translate(None, _SPACE)
    try:
        blob = base64.b64decode(b64, validate=True)
    except binascii.Error as exc:
        raise ValueError(f"damaged key: bad base64 ({exc})") from None
    # Non-canonical base64 (stray bits in the last character) would hide a
    # changed character: refuse it.
    if base64.b64encode(blob) != b64:
        raise ValueError("damaged key: non-canonical base64")
    if not blob.startswith(MAGIC):
        raise ValueError("not an OpenSSH private key: wrong magic (not openssh-key-v1)")
    return blob


def _armour(blob):
    b64 = base64.b64encode(blob)
    out = bytearray(BEGIN + b"\n")
    for i in range(0, len(b64), 70):
        out += b64[i:i + 70]
        out += b"\n"
    out += END + b"\n"
    return bytes(out)


# ---------------------------------------------------------------------------
# Key types: the private fields, and the public blob they imply
# ---------------------------------------------------------------------------

class _Key:
    """A parsed private key: `body` is the type string and the private fields as
    they were in the file; `pub` the public-key blob they imply."""

    __slots__ = ("type", "body", "pub", "fields", "comment")


def _check_point(r, curve, q, size):
    if len(q) != 1 + 2 * size or q[0] != 4:
        r._fail(f"the {curve.decode()} public point is not an uncompressed point")


def _read_private(r, check):
    """Parse one private key (type string + fields) from r.  With check, also
    test that the private and public halves belong together (where that can be
    computed), so that a key damaged under an unauthenticated cipher is caught."""
    k = _Key()
    start = r.pos
    ktype = r.name("key type")
    k.type = ktype
    f = {}
    if ktype == "ssh-ed25519":
        pk = r.string("ed25519 public key")
        sk = r.string("ed25519 private key")
        if len(pk) != 32 or len(sk) != 64 or sk[32:] != pk:
            r._fail("the ed25519 key has the wrong length or mismatched halves")
        pub = _s(b"ssh-ed25519") + _s(pk)
        f.update(pk=bytes(pk), seed=bytes(sk[:32]))
    elif ktype == "ssh-rsa":
        n, rn = r.mpint("RSA n")
        e, re_ = r.mpint("RSA e")
        d, _ = r.mpint("RSA d")
        iqmp, _ = r.mpint("RSA iqmp")
        p, _ = r.mpint("RSA p")
        q, _ = r.mpint("RSA q")
        pub = _s(b"ssh-rsa") + bytes(re_) + bytes(rn)
        f.update(n=n, e=e, d=d, iqmp=iqmp, p=p, q=q)
        if check and not (n > 1 and e > 1 and p > 1 and q > 1 and p * q == n
                          and (e * d) % (p - 1) == 1 % (p - 1)
                          and (e * d) % (q - 1) == 1 % (q - 1)
                          and (iqmp * q) % p == 1):
            r._fail("the RSA private values do not match the public key")
    elif ktype in _CURVES:
        curve, size, _ = _CURVES[ktype]
        name = r.string("curve name")
        if bytes(name) != curve:
            r._fail(f"curve {bytes(name)!r} does not match key type {ktype}")
        q = r.string("ECDSA public point")
        _check_point(r, curve, q, size)
        pub = _s(ktype.encode()) + _s(curve) + _s(q)
        if ktype.startswith("sk-"):
            app = r.string("security-key application")
            pub += _s(app)
            r.u8("security-key flags")
            r.string("security-key handle")
            r.string("security-key reserved")
        else:
            d, _ = r.mpint("ECDSA private scalar")
            if check and not 0 < d < _ORDERS[curve]:
                r._fail("the ECDSA private scalar is out of range")
            f.update(d=d)
        f.update(q=bytes(q))
    elif ktype == "ssh-dss":
        p, rp = r.mpint("DSA p")
        q, rq = r.mpint("DSA q")
        g, rg = r.mpint("DSA g")
        y, ry = r.mpint("DSA y")
        x, _ = r.mpint("DSA x")
        pub = _s(b"ssh-dss") + bytes(rp) + bytes(rq) + bytes(rg) + bytes(ry)
        f.update(p=p, q=q, g=g, y=y, x=x)
        if check and not (p > 2 and 0 < x < q and 1 < g < p and pow(g, x, p) == y):
            r._fail("the DSA private value does not match the public key")
    elif ktype == "sk-ssh-ed25519@openssh.com":
        pk = r.string("ed25519 public key")
        if len(pk) != 32:
            r._fail("the ed25519 public key is not 32 bytes")
        app = r.string("security-key application")
        r.u8("security-key flags")
        r.string("security-key handle")
        r.string("security-key reserved")
        pub = _s(ktype.encode()) + _s(pk) + _s(app)
    else:
        raise ValueError(f"unsupported key type {ktype!r}")
    k.body = r.buf[start:r.pos]
    k.pub = pub
    k.fields = f
    if check:
        _check_curve_key(k)
    return k


def _pycryptodome():
    for name in ("Crypto", "Cryptodome"):
        try:
            mod = __import__(name + ".PublicKey.ECC", fromlist=["ECC"])
            return mod, __import__(name + ".PublicKey.RSA", fromlist=["RSA"]), \
                __import__(name + ".PublicKey.DSA", fromlist=["DSA"])
        except ImportError:
            continue
    return None


def _check_curve_key(k):
    """Ed25519/ECDSA: the public key computed from the private one must be the
    stored one (when pycryptodome is there to compute it)."""
    if k.type not in ("ssh-ed25519",) and not (k.type in _CURVES and "d" in k.fields):
        return
    mods = _pycryptodome()
    if mods is None:
        return
    ECC = mods[0]
    try:
        if k.type == "ssh-ed25519":
            ok = ECC.construct(curve="Ed25519", seed=k.fields["seed"]).public_key() \
                .export_key(format="raw") == k.fields["pk"]
        else:
            curve, size, pyc = _CURVES[k.type]
            key = ECC.construct(curve=pyc, d=k.fields["d"])
            q = k.fields["q"]
            ok = (int(key.pointQ.x) == int.from_bytes(q[1:1 + size], "big")
                  and int(key.pointQ.y) == int.from_bytes(q[1 + size:], "big"))
    except ValueError:
        ok = False
    if not ok:
        raise ValueError("damaged key: the private key does not match its public key")


def _read_public(blob):
    """Structural check of a public-key blob; returns the key type."""
    r = _Reader(blob, "public key")
    ktype = r.name("key type")
    if ktype == "ssh-ed25519":
        if len(r.string("ed25519 public key")) != 32:
            r._fail("the ed25519 public key is not 32 bytes")
    elif ktype == "ssh-rsa":
        r.mpint("RSA e")
        r.mpint("RSA n")
    elif ktype in _CURVES:
        curve, size, _ = _CURVES[ktype]
        if bytes(r.string("curve name")) != curve:
            r._fail("curve does not match key type")
        _check_point(r, curve, r.string("ECDSA public point"), size)
        if ktype.startswith("sk-"):
            r.string("security-key application")
    elif ktype == "ssh-dss":
        for part in "pqgy":
            r.mpint("DSA " + part)
    elif ktype == "sk-ssh-ed25519@openssh.com":
        if len(r.string("ed25519 public key")) != 32:
            r._fail("the ed25519 public key is not 32 bytes")
        r.string("security-key application")
    else:
        raise ValueError(f"unsupported key type {ktype!r}")
    if r.left():
        r._fail(f"{r.left()} stray bytes after the public key")
    return ktype


# ---------------------------------------------------------------------------
# The container
# ---------------------------------------------------------------------------

class _File:
    __slots__ = ("cipher", "kdf", "salt", "rounds", "pub", "ktype", "encrypted", "tag")


def _parse_outer(data, max_rounds):
    """Everything outside the encrypted part: cheap checks, before any kdf."""
    blob = _unarmour(data)
    r = _Reader(blob, "openssh-key-v1 header")
    if bytes(r.take(len(MAGIC), "magic")) != MAGIC:
        raise ValueError("not an OpenSSH private key: wrong magic (not openssh-key-v1)")
    f = _File()
    f.cipher = r.name("cipher name")
    if f.cipher not in CIPHERS:
        raise ValueError(f"unknown cipher {f.cipher!r} (known: {', '.join(CIPHERS)})")
    f.kdf = r.name("kdf name")
    opts = _Reader(r.string("kdf options"), "kdf options")
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
    f.ktype = _read_public(f.pub)
    keylen, ivlen, block, authlen = CIPHERS[f.cipher]
    f.encrypted = r.string("private section")
    if len(f.encrypted) < block or len(f.encrypted) % block:
        raise ValueError(f"damaged key: private section of {len(f.encrypted)} bytes is not a "
                         f"multiple of the {block}-byte cipher block")
    f.tag = r.take(authlen, "authentication tag")
    if r.left():
        raise ValueError(f"damaged key: {r.left()} bytes of trailing data after the key")
    return f


def _kdf(passphrase, salt, rounds, n):
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
        raise TypeError("passphrase must be str or bytes")
    if not passphrase:
        raise ValueError(WRONG_PASSPHRASE)
    return bcrypt.kdf(password=passphrase, salt=salt, desired_key_bytes=n, rounds=rounds,
                      ignore_few_rounds=True)


def _aes_backend():
    for name in ("Crypto", "Cryptodome"):
        try:
            return "pycryptodome", __import__(name + ".Cipher.AES", fromlist=["AES"])
        except ImportError:
            continue
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        return "cryptography", (Cipher, algorithms, modes, AESGCM)
    except ImportError:
        raise ImportError("AES-encrypted OpenSSH keys need pycryptodome or cryptography: "
                          f"{INSTALL_HINT}") from None


def _aes(cipher, key, iv, data, tag, encrypt):
    """AES-CTR/CBC/GCM over data; returns (output bytearray, tag or b'').
    Decryption with GCM verifies the tag (ValueError on a mismatch)."""
    kind, lib = _aes_backend()
    mode = cipher.split("-")[1].split("@")[0]
    out = bytearray(len(data))
    if kind == "pycryptodome":
        AES = lib
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
                _wipe(out)
                raise ValueError(WRONG_PASSPHRASE) from None
        return out, b""
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
    _wipe(buf)
    ctx.finalize()
    return out, b""


def _wipe(buf):
    if isinstance(buf, bytearray):
        buf[:] = bytes(len(buf))


def _split_kdf(cipher, derived):
    keylen, ivlen, _, _ = CIPHERS[cipher]
    return derived[:keylen], derived[keylen:keylen + ivlen]


def _decrypt_private(f, passphrase):
    """The decrypted private section as a bytearray (the caller wipes it)."""
    if f.cipher == "none":
        return bytearray(f.encrypted)
    if passphrase is None:
        raise ValueError("the key is encrypted: a passphrase is needed")
    keylen, ivlen, _, _ = CIPHERS[f.cipher]
    derived = _kdf(passphrase, f.salt, f.rounds, keylen + ivlen)
    if f.cipher == "chacha20-poly1305@openssh.com":
        try:
            return keyfile_open(derived, bytes(f.encrypted) + bytes(f.tag))
        except InvalidTag:
            raise ValueError(WRONG_PASSPHRASE) from None
    key, iv = _split_kdf(f.cipher, derived)
    return _aes(f.cipher, key, iv, f.encrypted, f.tag, False)[0]


def _parse_private(plain, f):
    """(checkint, key, comment) from the decrypted private section."""
    r = _Reader(plain, "private section")
    c1 = r.u32("check-integer")
    c2 = r.u32("check-integer")
    if c1 != c2:
        raise ValueError(WRONG_PASSPHRASE)
    key = _read_private(r, check=True)
    comment = bytes(r.string("comment"))
    pad = r.rest()
    for i, b in enumerate(pad):
        if b != (i + 1) & 0xFF:
            raise ValueError("damaged key: bad padding after the private key")
    if key.pub != f.pub:
        raise ValueError("damaged key: the public key does not match the private key")
    key.comment = comment
    return c1, key


def _load(data, passphrase, max_rounds):
    """(file, checkint, key); key.body is a view of the decrypted section,
    which the caller wipes through plain."""
    f = _parse_outer(data, max_rounds)
    plain = _decrypt_private(f, passphrase)
    try:
        check, key = _parse_private(plain, f)
    except BaseException:
        _wipe(plain)
        raise
    return f, check, key, plain


def _container(cipher, kdf, kdfopts, pub, private_len, encrypted, tag):
    out = bytearray(MAGIC)
    out += _s(cipher.encode())
    out += _s(kdf.encode())
    out += _s(kdfopts)
    out += _U32.pack(1)
    out += _s(pub)
    out += _U32.pack(private_len)
    out += encrypted
    out += tag
    return out


def _private_section(check, key, block):
    sec = bytearray(_U32.pack(check) * 2)
    sec += key.body
    sec += _s(key.comment)
    i = 1
    while len(sec) % block:
        sec.append(i)
        i += 1
    return sec


def _serialize(check, key, cipher, passphrase, rounds):
    """PEM bytes of key under cipher (none: unencrypted)."""
    keylen, ivlen, block, _ = CIPHERS[cipher]
    sec = _private_section(check, key, block)
    try:
        if cipher == "none":
            blob = _container("none", "none", b"", key.pub, len(sec), sec, b"")
        else:
            salt = secrets.token_bytes(SALT_SIZE)
            derived = _kdf(passphrase, salt, rounds, keylen + ivlen)
            if cipher == "chacha20-poly1305@openssh.com":
                sealed = keyfile_seal(derived, sec)
                enc, tag = sealed[:-16], sealed[-16:]
            else:
                k, iv = _split_kdf(cipher, derived)
                enc, tag = _aes(cipher, k, iv, sec, b"", True)
            blob = _container(cipher, "bcrypt", _s(salt) + _U32.pack(rounds), key.pub,
                              len(sec), enc, tag)
        try:
            return _armour(blob)
        finally:
            _wipe(blob)
    finally:
        _wipe(sec)


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

def decrypt(data, passphrase=None, *, max_rounds=DEFAULT_MAX_ROUNDS):
    """Decrypt an OpenSSH private key.

    ``data`` is the key file (PEM text as str or bytes); ``passphrase`` is str
    (encoded as UTF-8) or bytes, and may be None for a key that is not
    encrypted.  Returns the same key, unencrypted (cipher and kdf "none", same
    comment, padded to 8 bytes as ssh-keygen does), as PEM bytes.

    Raises ValueError for a wrong passphrase ("incorrect passphrase or damaged
    key") and for any damaged, truncated or unsupported input; kdf rounds above
    ``max_rounds`` are refused without running the kdf."""
    f, check, key, plain = _load(data, passphrase, max_rounds)
    try:
        return _serialize(check, key, "none", None, 0)
    finally:
        key.body = None
        _wipe(plain)


def encrypt(data, passphrase, cipher="chacha20-poly1305@openssh.com", rounds=16):
    """Encrypt an unencrypted OpenSSH private key (PEM, str or bytes) with
    ``passphrase`` under ``cipher`` (any of :data:`CIPHERS`; "none" writes the
    key unencrypted), with ``rounds`` of bcrypt_pbkdf and a fresh random salt.
    The check-integer is kept, so that ``decrypt(encrypt(k, p), p) == k`` byte
    for byte.  Returns PEM bytes, as ``ssh-keygen -p`` would write."""
    if cipher not in CIPHERS:
        raise ValueError(f"unknown cipher {cipher!r} (known: {', '.join(CIPHERS)})")
    if isinstance(rounds, bool) or not isinstance(rounds, int):
        raise TypeError("rounds must be an int")
    if not 0 < rounds <= DEFAULT_MAX_ROUNDS:
        raise ValueError(f"rounds must be in 1..{DEFAULT_MAX_ROUNDS}")
    if cipher != "none":
        if passphrase is None or len(passphrase) == 0:
            raise ValueError("an empty passphrase: give one, or use cipher='none' for an "
                             "unencrypted key")
        if not isinstance(passphrase, (str, bytes, bytearray, memoryview)):
            raise TypeError("passphrase must be str or bytes")
    f = _parse_outer(data, DEFAULT_MAX_ROUNDS)
    if f.cipher != "none":
        raise ValueError(f"the key is already encrypted ({f.cipher}): decrypt it first")
    plain = _decrypt_private(f, None)
    try:
        check, key = _parse_private(plain, f)
        return _serialize(check, key, cipher, passphrase, rounds)
    finally:
        _wipe(plain)


def load_private_key(data, passphrase=None, *, max_rounds=DEFAULT_MAX_ROUNDS):
    """The key as a pycryptodome object: ``Crypto.PublicKey.RSA.RsaKey``,
    ``ECC.EccKey`` (NIST curves and Ed25519) or ``DSA.DsaKey``.  Security-key
    (sk-) keys have no pycryptodome form: ValueError."""
    mods = _pycryptodome()
    if mods is None:
        raise ImportError(f"load_private_key needs pycryptodome: {INSTALL_HINT}")
    ECC, RSA, DSA = mods
    f, check, key, plain = _load(data, passphrase, max_rounds)
    try:
        if f.ktype.startswith("sk-"):
            raise ValueError(f"{f.ktype} keys live on a security key; pycryptodome cannot "
                             "hold them")
        if f.ktype == "ssh-dss":
            v = key.fields
            return DSA.construct((v["y"], v["g"], v["p"], v["q"], v["x"]))
        pem = _serialize(check, key, "none", None, 0)
        return (RSA if f.ktype == "ssh-rsa" else ECC).import_key(pem)
    finally:
        key.body = None
        _wipe(plain)


def public_key_line(data, passphrase=None, *, max_rounds=DEFAULT_MAX_ROUNDS):
    """The ``authorized_keys`` line of a private key file: ``"<type> <base64>
    <comment>"`` (as ``ssh-keygen -y`` prints it).  The public key is stored
    unencrypted, but the comment is not: for an encrypted key and no
    passphrase the line has no comment; with a passphrase the key is
    decrypted and checked, and the comment added."""
    f = _parse_outer(data, max_rounds)
    comment = b""
    if f.cipher == "none" or passphrase is not None:
        f, _, key, plain = _load(data, passphrase, max_rounds)
        comment = key.comment
        key.body = None
        _wipe(plain)
    line = f"{f.ktype} {base64.b64encode(f.pub).decode('ascii')}"
    if comment:
        line += " " + comment.decode("utf-8", "replace")
    return line


def key_info(data):
    """What can be read without the passphrase: a dict with ``type``, ``bits``,
    ``fingerprint`` (SHA256, as ``ssh-keygen -l``), ``cipher``, ``kdf``,
    ``rounds``, ``encrypted``, ``public_key`` (type and base64) and ``comment``
    (None when encrypted: the comment is inside the encrypted part)."""
    f = _parse_outer(data, 1 << 32)
    r = _Reader(f.pub, "public key")
    r.name("key type")
    if f.ktype == "ssh-rsa":
        r.mpint("e")
        bits = r.mpint("n")[0].bit_length()
    elif f.ktype == "ssh-dss":
        bits = r.mpint("p")[0].bit_length()
    elif f.ktype in _CURVES:
        bits = {32: 256, 48: 384, 66: 521}[_CURVES[f.ktype][1]]
    else:
        bits = 256
    comment = None
    if f.cipher == "none":
        plain = bytearray(f.encrypted)
        try:
            comment = _parse_private(plain, f)[1].comment.decode("utf-8", "replace")
        finally:
            _wipe(plain)
    fp = base64.b64encode(hashlib.sha256(f.pub).digest()).decode("ascii").rstrip("=")
    return {
        "type": f.ktype, "bits": bits, "fingerprint": "SHA256:" + fp,
        "cipher": f.cipher, "kdf": f.kdf, "rounds": f.rounds or None,
        "encrypted": f.cipher != "none",
        "public_key": f"{f.ktype} {base64.b64encode(f.pub).decode('ascii')}",
        "comment": comment,
    }


# ---------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------

def _read_passphrase(args, prompt, confirm=False):
    if args.passphrase_env:
        value = os.environ.get(args.passphrase_env)
        if value is None:
            raise ValueError(f"environment variable {args.passphrase_env} is not set")
        return value
    if args.passphrase_fd is not None:
        chunks = []
        while True:
            chunk = os.read(args.passphrase_fd, 4096)
            if not chunk:
                break
            chunks.append(chunk)
            if b"\n" in chunk:
                break
        line = b"".join(chunks).split(b"\n", 1)[0]
        if line.endswith(b"\r"):
            line = line[:-1]
        return line
    import getpass
    first = getpass.getpass(prompt)
    if confirm and getpass.getpass("Enter same passphrase again: ") != first:
        raise ValueError("the passphrases do not match")
    return first


def _write_private(path, pem, force):
    if path == "-":
        sys.stdout.buffer.write(pem)
        sys.stdout.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not force:
        # O_EXCL: never replace an existing file (or follow a planted symlink).
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise ValueError(f"{path} exists; pass --force to overwrite it") from None
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
        return
    tmp = os.path.join(directory, f".{os.path.basename(path)}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _main(argv=None):
    import argparse

    p = argparse.ArgumentParser(
        prog="python -m poly1305x.openssh",
        description="Decrypt, encrypt or inspect OpenSSH private key files.  The "
                    "passphrase is read from a no-echo prompt, or from --passphrase-env / "
                    "--passphrase-fd for scripts; never from the command line.")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp, output=True):
        sp.add_argument("keyfile", help="the private key file")
        g = sp.add_mutually_exclusive_group()
        g.add_argument("--passphrase-env", metavar="VAR",
                       help="read the passphrase from environment variable VAR")
        g.add_argument("--passphrase-fd", metavar="FD", type=int,
                       help="read the passphrase from file descriptor FD (up to the "
                            "first newline)")
        if output:
            sp.add_argument("-o", "--output", metavar="FILE",
                            help="where to write the key (mode 0600; '-' for standard "
                                 "output); default: replace KEYFILE, which needs --force")
            sp.add_argument("-f", "--force", action="store_true",
                            help="overwrite an existing output file")
        sp.add_argument("--max-rounds", type=int, default=DEFAULT_MAX_ROUNDS,
                        help=f"refuse keys with more kdf rounds (default {DEFAULT_MAX_ROUNDS})")

    common(sub.add_parser("decrypt", help="write the key without a passphrase"))
    e = sub.add_parser("encrypt", help="protect an unencrypted key with a passphrase")
    common(e)
    e.add_argument("-Z", "--cipher", default="chacha20-poly1305@openssh.com",
                   choices=[c for c in CIPHERS if c != "none"])
    e.add_argument("-a", "--rounds", type=int, default=16, help="bcrypt_pbkdf rounds (16)")
    i = sub.add_parser("info", help="show the key's type, fingerprint and encryption "
                                    "(no passphrase needed)")
    common(i, output=False)
    i.add_argument("--check", action="store_true",
                   help="also decrypt (asking for the passphrase) and check the whole key")
    args = p.parse_args(argv)

    try:
        with open(args.keyfile, "rb") as fh:
            data = fh.read(MAX_KEY_FILE + 1)
    except OSError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    try:
        if args.command == "info":
            info = key_info(data)
            if args.check:
                pw = None
                if info["encrypted"]:
                    pw = _read_passphrase(args, f"Enter passphrase for {args.keyfile}: ")
                parts = public_key_line(data, pw, max_rounds=args.max_rounds).split(" ", 2)
                info["comment"] = parts[2] if len(parts) > 2 else ""
                info["check"] = "ok"
            for k in ("type", "bits", "fingerprint", "cipher", "kdf", "rounds", "comment",
                      "check", "public_key"):
                if k in info:
                    v = info[k]
                    if k == "comment" and v is None:
                        v = "(encrypted)"
                    print(f"{k + ':':13}{'' if v is None else v}")
            return 0
        output = args.output or args.keyfile
        if output == args.keyfile and not args.force:
            raise ValueError(f"{output} exists; pass --force to overwrite it, or -o FILE")
        if output != "-" and not args.force and os.path.lexists(output):
            raise ValueError(f"{output} exists; pass --force to overwrite it")
        if args.command == "decrypt":
            f = _parse_outer(data, args.max_rounds)
            pw = None
            if f.cipher != "none":
                pw = _read_passphrase(args, f"Enter passphrase for {args.keyfile}: ")
            pem = decrypt(data, pw, max_rounds=args.max_rounds)
        else:
            f = _parse_outer(data, args.max_rounds)
            if f.cipher != "none":
                raise ValueError(f"{args.keyfile} is already encrypted ({f.cipher}); "
                                 "decrypt it first")
            pw = _read_passphrase(args, "Enter new passphrase: ", confirm=True)
            pem = encrypt(data, pw, cipher=args.cipher, rounds=args.rounds)
        _write_private(output, pem, args.force)
        if output != "-":
            print(f"wrote {output}", file=sys.stderr)
        return 0
    except (ValueError, ImportError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("", file=sys.stderr)
        return 130


from poly1305x._paramiko import use_with_paramiko  # noqa: E402  (needs paramiko only when called)

if __name__ == "__main__":
    sys.exit(_main())
