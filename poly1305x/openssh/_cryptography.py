"""``load_ssh_private_key``: cryptography's OpenSSH key loader, for every
cipher poly1305x can decrypt (cryptography itself reads aes256-ctr/cbc/gcm
only)."""
import binascii
import re
from typing import Any, Optional, Union

from poly1305x._errors import InvalidTag
from poly1305x._peers import install_hint
from poly1305x.openssh._container import (
    CIPHERS, DEFAULT_MAX_ROUNDS, WRONG_PASSPHRASE, parse_outer, unencrypted_pem,
)
from poly1305x.openssh._keys import KEY_TYPES, read_public
from poly1305x.openssh._wire import BEGIN, END, MAGIC, Reader

_HINT = install_hint("openssh", "cryptography")


def _cryptography():
    try:
        from cryptography.exceptions import UnsupportedAlgorithm
        from cryptography.hazmat.primitives.serialization import load_ssh_private_key
    except ImportError:
        raise ImportError("poly1305x.openssh.load_ssh_private_key returns cryptography key "
                          f"objects and needs the 'cryptography' package: {_HINT}") from None
    return load_ssh_private_key, UnsupportedAlgorithm


_PEM = re.compile(re.escape(BEGIN) + b"(.*?)" + re.escape(END), re.DOTALL)


def _check_like_cryptography(data, password, UnsupportedAlgorithm):
    """cryptography's checks of everything before its kdf, in its order and
    with its exception classes, so that a damaged file raises here what
    cryptography raises on the same bytes: ValueError for structure
    (binascii.Error for bad base64, as there), UnsupportedAlgorithm for an
    unknown key type, cipher or kdf, TypeError for a password that is
    missing or not wanted.  Our own, stricter parse runs after it.  Returns
    whether the key is encrypted."""
    m = _PEM.search(bytes(data))
    if not m:
        raise ValueError("not an OpenSSH private key (no BEGIN ... END OPENSSH PRIVATE KEY "
                         "block)")
    blob = binascii.a2b_base64(m.group(1))
    if not blob.startswith(MAGIC):
        raise ValueError("not an OpenSSH private key (no openssh-key-v1 magic)")
    r = Reader(memoryview(blob)[len(MAGIC):], "openssh-key-v1 header")
    cipher, kdf = bytes(r.string("cipher name")), bytes(r.string("kdf name"))
    opts = Reader(r.string("kdf options"), "kdf options")
    if r.u32("number of keys") != 1:
        raise ValueError("damaged key: the number of keys is not 1")
    pub = r.string("public key")
    key_type = bytes(Reader(pub, "public key").string("key type"))
    if key_type.decode("latin-1") not in KEY_TYPES:
        raise UnsupportedAlgorithm("unsupported key type in the public key")
    read_public(pub)
    if cipher == b"none" and kdf == b"none":
        if password:
            raise TypeError("Password was given but private key is not encrypted.")
        _, _, block, authlen = CIPHERS["none"]
    else:
        if cipher == b"none" or cipher.decode("latin-1") not in CIPHERS:
            raise UnsupportedAlgorithm(f"unsupported cipher (known: {', '.join(CIPHERS)})")
        if kdf != b"bcrypt":
            raise UnsupportedAlgorithm("unsupported kdf (known: bcrypt, none)")
        _, _, block, authlen = CIPHERS[cipher.decode("ascii")]
    private = r.string("private section")
    if r.left() != authlen:
        raise ValueError("damaged key: wrong length of the data after the private section")
    if not len(private) or len(private) % block:
        raise ValueError("damaged key: the private section is not whole cipher blocks")
    if cipher == b"none":
        return False
    opts.string("bcrypt salt")
    opts.u32("bcrypt rounds")
    if opts.left():
        raise ValueError("damaged key: stray bytes after the bcrypt options")
    if not password:
        raise TypeError("Key is password-protected, but password was not provided.")
    return True


def load_ssh_private_key(data: Union[bytes, bytearray, memoryview],
                         password: Optional[bytes] = None, backend: Any = None, *,
                         unsafe_skip_rsa_key_validation: bool = False,
                         max_rounds: int = DEFAULT_MAX_ROUNDS) -> Any:
    """Load an OpenSSH private key (``-----BEGIN OPENSSH PRIVATE KEY-----``) as
    a ``cryptography`` private-key object: a one-line swap for
    ``cryptography.hazmat.primitives.serialization.load_ssh_private_key``
    that also reads keys encrypted with ``chacha20-poly1305@openssh.com``
    (``ssh-keygen -Z chacha20-poly1305@openssh.com``), aes128/192-ctr,
    aes128/192-cbc and aes128-gcm, besides the three cryptography reads itself
    (aes256-ctr, aes256-cbc, aes256-gcm).

    Same signature, return types and exceptions as cryptography's function:
    ``data`` bytes-like, ``password`` bytes or None; TypeError when an
    encrypted key gets no password (or an unencrypted one gets one);
    ValueError for a wrong password or a damaged file (with an AEAD cipher,
    chacha20-poly1305 or AES-GCM, a wrong password raises
    :class:`poly1305x.InvalidTag`, which is both a ValueError and
    ``cryptography.exceptions.InvalidTag``, as cryptography raises for
    aes256-gcm); UnsupportedAlgorithm for an unknown cipher, kdf or key type
    and for a key type cryptography does not model.  A damaged file raises
    what cryptography raises on the same bytes (its header checks are
    repeated in its order first); on top of them poly1305x refuses, with
    ValueError, some files cryptography would take (non-canonical base64,
    kdf rounds above ``max_rounds``, a private key that does not match its
    public half).  ``max_rounds`` (keyword only,
    default 5000) bounds the bcrypt rounds an untrusted file may ask for.

    The decrypted key is handed to cryptography's own loader, so the result
    is exactly what cryptography builds from the same key saved unencrypted.
    ImportError, naming the extra, when ``cryptography`` is not installed."""
    crypto_load, UnsupportedAlgorithm = _cryptography()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("data must be bytes-like")
    if password is not None and not isinstance(password, bytes):
        raise TypeError("password must be bytes")
    kwargs = {"unsafe_skip_rsa_key_validation": unsafe_skip_rsa_key_validation}
    encrypted = _check_like_cryptography(data, password, UnsupportedAlgorithm)
    f = parse_outer(data, max_rounds)      # ours: stricter, and bounds the kdf rounds
    if not encrypted:
        return crypto_load(data, password, backend, **kwargs)
    try:
        pem, _ = unencrypted_pem(data, password, max_rounds)
    except ValueError as exc:
        # cryptography reports a failed AEAD tag (aes256-gcm) as InvalidTag;
        # poly1305x's InvalidTag is that class and a ValueError at once.
        if CIPHERS[f.cipher][3] and str(exc) == WRONG_PASSPHRASE:
            raise InvalidTag(WRONG_PASSPHRASE) from None
        raise
    return crypto_load(pem, None, backend, **kwargs)
