"""The key-file half of ``use_with_paramiko()`` (poly1305x.openssh._paramiko):
paramiko's ``PKey._read_private_key``, ``Ed25519Key._parse_signing_key_data``
and ``PKey.from_path`` turn a key file encrypted with
chacha20-poly1305@openssh.com into the unencrypted file before paramiko
parses it; other files pass through untouched (the rules: _paramiko's
docstring, item 4).  Imported by ``use_with_paramiko()`` on first use
(through ``_paramiko_peer``), never at package import: it imports paramiko at
the top.  The three methods are this module's functions; :func:`bindings`
puts them in, delegating to the methods found there when enabled."""
import io
import re
import struct
from pathlib import Path

from poly1305x.openssh._container import CHACHA as CIPHER
from poly1305x.openssh._paramiko import MAX_KEY_TEXT
from poly1305x.openssh._wire import BEGIN, END, unarmour

import paramiko
import paramiko.ed25519key
import paramiko.pkey
from paramiko.ssh_exception import PasswordRequiredException, SSHException

_BEGIN = BEGIN.decode("ascii")
_END = END.decode("ascii")
_NOT_B64 = re.compile("[^A-Za-z0-9+/]")
_MAGIC = b"openssh-key-v1\0" + struct.pack(">I", len(CIPHER)) + CIPHER.encode()
# paramiko's key classes pass this tag to _read_private_key
_TAGS = {"RSA": ("ssh-rsa",), "EC": ("ecdsa-sha2-",), "OPENSSH": ("ssh-ed25519",)}


def _chacha_block(data):
    """The armoured key (str) or openssh-key-v1 blob (bytes) in ``data`` when
    it is a key file whose cipher is chacha20-poly1305@openssh.com, whatever
    else is wrong with it; else None.  Linear in len(data): one ``str.find``
    for each marker, the cipher name from the first 64 base64 characters."""
    import binascii
    if isinstance(data, str):
        if len(data) > MAX_KEY_TEXT:
            return None
        i = data.find(_BEGIN)
        j = data.find(_END, i + len(_BEGIN)) if i >= 0 else -1
        if j < 0:
            return None
        block = data[i:j + len(_END)]
        # the first 64 base64 letters: whatever else a decoder skips is skipped
        head = _NOT_B64.sub("", block[len(_BEGIN):len(_BEGIN) + 400])[:64]
        try:
            prefix = binascii.a2b_base64(head)
        except (binascii.Error, ValueError):
            return None
        return block if prefix.startswith(_MAGIC) else None
    return bytes(data) if bytes(data[:len(_MAGIC)]) == _MAGIC else None


class BadKeyFileError(SSHException, ValueError):
    """A chacha key file that cannot be read: an SSHException (what paramiko's
    callers catch, and what plain paramiko raises for such a file) that is
    also a ValueError (poly1305x's rule for a bad passphrase or a damaged
    file)."""


def _bad_key(exc):
    if isinstance(exc, ValueError):
        return BadKeyFileError(str(exc))
    return BadKeyFileError(f"not a valid {CIPHER} key file")


def _key_type(block):
    """The key type of a chacha key file; SSHException when it is damaged."""
    from poly1305x import openssh
    try:
        return openssh.key_info(block)["type"]
    except Exception as exc:        # noqa: BLE001 - paramiko's callers catch SSHException
        raise _bad_key(exc) from None


def _decrypt_key(block, password, tag=None):
    """The unencrypted armoured file for a chacha key file: poly1305x's
    decrypt (kdf rounds capped at DEFAULT_MAX_ROUNDS), every failure an
    SSHException as paramiko raises for a file it cannot read."""
    from poly1305x import openssh
    key_type = _key_type(block)
    if tag in _TAGS and not key_type.startswith(_TAGS[tag]):
        raise SSHException(f"encountered {key_type} key, expected {tag} key")
    if password is None:
        raise PasswordRequiredException("private key file is encrypted")
    try:
        return openssh.decrypt(block, password).decode("ascii")
    except Exception as exc:        # noqa: BLE001 - as above
        raise _bad_key(exc) from None


ORIGINAL: dict = {}     # the methods found when enabled, which these delegate to


def _read_private_key(self, tag, f, password=None):
    text = f.read()
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    block = _chacha_block(text)
    # Ed25519Key reads without the password and hands the raw file to
    # _parse_signing_key_data (below) together with the password.
    if block is not None and not (tag == "OPENSSH" and password is None):
        text = _decrypt_key(block, password, tag)
        password = None
    return ORIGINAL["_read_private_key"](self, tag, io.StringIO(text), password)


def _parse_signing_key_data(self, data, password):
    # Every chacha blob stops here: paramiko's own parser would find the
    # cipher in Transport._cipher_info and run bcrypt with the file's rounds.
    block = _chacha_block(data)
    if block is not None:
        data = unarmour(_decrypt_key(block, password))
    return ORIGINAL["_parse_signing_key_data"](self, data, password)


def from_path(path, password=None):
    path = str(path)
    key_path = path[:-len("-cert.pub")] if path.endswith("-cert.pub") else path
    key_path = Path(key_path).expanduser()
    try:
        block = _chacha_block(key_path.read_bytes().decode("utf-8", "replace"))
    except OSError:
        block = None
    if block is None:
        return ORIGINAL["from_path"](path, password)
    key_type = _key_type(block)
    classes = {"ssh-rsa": paramiko.RSAKey, "ssh-ed25519": paramiko.Ed25519Key}
    key_class = classes.get(key_type)
    if key_class is None and key_type.startswith("ecdsa-sha2-"):
        key_class = paramiko.ECDSAKey
    if key_class is None:
        raise paramiko.pkey.UnknownKeyType(key_type=key_type)
    plain = _decrypt_key(block, password)
    key = key_class.from_private_key(io.StringIO(plain))
    cert_path = Path(str(key_path) + "-cert.pub")
    if cert_path.exists():
        key.load_certificate(str(cert_path))
    return key


def bindings(saved):
    """The Switch bindings of the key-file half; ``saved``: paramiko's
    methods as found now (use_with_paramiko's record), which ours call."""
    for name in ("_read_private_key", "_parse_signing_key_data", "from_path"):
        ORIGINAL[name] = saved[name]
    for ours, original in ((_read_private_key, saved["_read_private_key"]),
                           (from_path, saved["from_path"])):
        ours.__doc__ = original.__doc__
        ours.__wrapped__ = original
    return [(paramiko.pkey.PKey, "_read_private_key", _read_private_key),
            (paramiko.ed25519key.Ed25519Key, "_parse_signing_key_data", _parse_signing_key_data),
            (paramiko.pkey.PKey, "from_path", staticmethod(from_path))]
