"""OpenSSH support: encrypted private-key files and the
chacha20-poly1305@openssh.com packet cipher.

Key files (the ``openssh-key-v1`` format of OpenSSH's PROTOCOL.key)::

    from poly1305x import openssh
    plain_pem = openssh.decrypt(open("id_ed25519", "rb").read(), "passphrase")
    enc_pem = openssh.encrypt(plain_pem, "new passphrase")      # chacha20-poly1305
    key = openssh.load_private_key(enc_pem, "new passphrase")   # pycryptodome key
    line = openssh.public_key_line(enc_pem)                     # "ssh-ed25519 AAAA..."

Passphrase-protected keys need bcrypt_pbkdf, from the ``bcrypt`` package, and
the AES ciphers need pycryptodome or cryptography: ``pip install -e
'.[openssh]'`` in a checkout.  The module imports without them; the functions that need
them raise ImportError saying so.

Every problem with the input -- a wrong passphrase, a damaged, truncated or
padded-out file, an unknown cipher or kdf, absurd kdf rounds -- is a ValueError
with a message, raised before any key material is returned.

Transport packets: :class:`PacketCipher` (see its docstring and docs/openssh.md).
:func:`use_with_asyncssh` runs asyncssh's chacha20-poly1305@openssh.com on it;
:func:`load_ssh_private_key` is ``cryptography``'s key loader for every cipher.

Command line: ``python -m poly1305x.openssh decrypt|encrypt|info KEYFILE``
(``--help`` for the options).

The package: ``_wire`` (SSH wire types, PEM armour), ``_keys`` (the table of
key types), ``_container`` (the file format, bcrypt_pbkdf, the ciphers),
``_cryptography`` and ``_asyncssh`` (the peers), ``__main__`` (the command
line); the packet cipher itself is compiled, in ``poly1305x.openssh._ssh``.
"""
import base64
import hashlib
from typing import Any, Dict, Optional, Union

from poly1305x.openssh._ssh import PacketCipher
from poly1305x.openssh._asyncssh import use_with_asyncssh
from poly1305x.openssh._container import (
    CIPHERS, DEFAULT_MAX_ROUNDS, INSTALL_HINT, load, parse_outer, parse_private,
    serialize, unencrypted_pem,
)
from poly1305x.openssh._cryptography import load_ssh_private_key
from poly1305x.openssh._keys import _modules
from poly1305x.openssh._paramiko import use_with_paramiko
from poly1305x.openssh._wire import PASSPHRASE_TYPE, WRONG_PASSPHRASE, wipe

__all__ = [
    "CIPHERS", "DEFAULT_MAX_ROUNDS", "PacketCipher", "decrypt", "encrypt", "key_info",
    "load_private_key", "load_ssh_private_key", "public_key_line", "use_with_asyncssh",
    "use_with_paramiko",
]

_Data = Union[str, bytes, bytearray, memoryview]        # a key file: PEM text
_Passphrase = Union[str, bytes, bytearray, memoryview]  # str: encoded as UTF-8


def decrypt(data: _Data, passphrase: Optional[_Passphrase] = None, *,
            max_rounds: int = DEFAULT_MAX_ROUNDS) -> bytes:
    """Decrypt an OpenSSH private key.

    ``data`` is the key file (PEM text as str or bytes); ``passphrase`` is str
    (encoded as UTF-8) or bytes, and may be None for a key that is not
    encrypted.  Returns the same key, unencrypted (cipher and kdf "none", same
    comment, padded to 8 bytes as ssh-keygen does), as PEM bytes.

    Raises ValueError for a wrong passphrase ("incorrect passphrase or damaged
    key") and for any damaged, truncated or unsupported input; kdf rounds above
    ``max_rounds`` are refused without running the kdf."""
    return unencrypted_pem(data, passphrase, max_rounds)[0]


def encrypt(data: _Data, passphrase: Optional[_Passphrase],
            cipher: str = "chacha20-poly1305@openssh.com", rounds: int = 16) -> bytes:
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
            raise TypeError(PASSPHRASE_TYPE)
    f = parse_outer(data, DEFAULT_MAX_ROUNDS)
    if f.cipher != "none":
        raise ValueError(f"the key is already encrypted ({f.cipher}): decrypt it first")
    plain = bytearray(f.encrypted)
    try:
        check, key = parse_private(plain, f)
        return serialize(check, key, cipher, passphrase, rounds)
    finally:
        wipe(plain)


def load_private_key(data: _Data, passphrase: Optional[_Passphrase] = None, *,
                     max_rounds: int = DEFAULT_MAX_ROUNDS) -> Any:
    """The key as a pycryptodome object: ``Crypto.PublicKey.RSA.RsaKey``,
    ``ECC.EccKey`` (NIST curves and Ed25519) or ``DSA.DsaKey``.  Security-key
    (sk-) keys have no pycryptodome form: ValueError."""
    if _modules() is None:
        raise ImportError(f"load_private_key needs pycryptodome: {INSTALL_HINT}")
    f, check, key, plain = load(data, passphrase, max_rounds)
    try:
        if key.type.security_key:
            raise ValueError(f"{f.ktype} keys live on a security key; pycryptodome cannot "
                             "hold them")
        obj = _pycryptodome_key(key, check)
        if obj is None:
            raise ValueError(WRONG_PASSPHRASE)     # the one post-decryption message
        return obj
    finally:
        key.body = None
        wipe(plain)


def _pycryptodome_key(key: Any, check: int) -> Any:
    """pycryptodome's object for a checked key, or None where pycryptodome
    refuses it (its message, about decrypted values, is not passed on)."""
    try:
        return key.type.pycryptodome(key.fields, serialize(check, key, "none", None, 0))
    except (ValueError, IndexError, TypeError):
        return None


def public_key_line(data: _Data, passphrase: Optional[_Passphrase] = None, *,
                    max_rounds: int = DEFAULT_MAX_ROUNDS) -> str:
    """The ``authorized_keys`` line of a private key file: ``"<type> <base64>
    <comment>"`` (as ``ssh-keygen -y`` prints it).  The public key is stored
    unencrypted, but the comment is not: for an encrypted key and no
    passphrase the line has no comment; with a passphrase the key is
    decrypted and checked, and the comment added."""
    f = parse_outer(data, max_rounds)
    comment = b""
    if f.cipher == "none" or passphrase is not None:
        f, _, key, plain = load(data, passphrase, max_rounds)
        comment = key.comment
        key.body = None
        wipe(plain)
    line = f"{f.ktype} {base64.b64encode(f.pub).decode('ascii')}"
    if comment:
        line += " " + comment.decode("utf-8", "replace")
    return line


def key_info(data: _Data) -> Dict[str, Any]:
    """What can be read without the passphrase: a dict with ``type``, ``bits``,
    ``fingerprint`` (SHA256, as ``ssh-keygen -l``), ``cipher``, ``kdf``,
    ``rounds``, ``encrypted``, ``public_key`` (type and base64) and ``comment``
    (None when encrypted: the comment is inside the encrypted part).  Cheap:
    it runs no kdf and no key consistency check."""
    f = parse_outer(data, 1 << 32)
    comment = None
    if f.cipher == "none":
        plain = bytearray(f.encrypted)
        try:
            comment = parse_private(plain, f, check=False)[1].comment
            comment = comment.decode("utf-8", "replace")
        finally:
            wipe(plain)
    fp = base64.b64encode(hashlib.sha256(f.pub).digest()).decode("ascii").rstrip("=")
    return {
        "type": f.ktype, "bits": f.key_type.bits(f.public), "fingerprint": "SHA256:" + fp,
        "cipher": f.cipher, "kdf": f.kdf, "rounds": f.rounds or None,
        "encrypted": f.cipher != "none",
        "public_key": f"{f.ktype} {base64.b64encode(f.pub).decode('ascii')}",
        "comment": comment,
    }
