"""chacha20-poly1305@openssh.com for paramiko, on poly1305x: ``use_with_paramiko()``.

paramiko (3.5 to 5.x) has no ChaCha20-Poly1305 transport cipher and cannot read
key files encrypted with it.  ``use_with_paramiko()`` adds both, through four
changes that ``use_with_paramiko(False)`` undoes exactly:

1. ``Transport._cipher_info`` gets a ``chacha20-poly1305@openssh.com`` entry
   (64 key bytes per direction, ``is_aead``, so no MAC key is used) and
   ``Transport._preferred_ciphers`` puts the cipher first, as OpenSSH does.
   Both are class attributes that paramiko documents as its cipher table.
2. ``paramiko.transport.Packetizer``, the class a ``Transport`` instantiates
   when no ``packetizer_class=`` is given (``SSHClient`` never gives one), is
   replaced by :class:`ChaChaPacketizer`, a subclass.  It is the base
   Packetizer for every other cipher; for this one its ``send_message`` and
   ``read_message`` run ``PacketCipher``: the length is decrypted with the
   header key and bounded before the rest is read, the tag is checked before
   anything is decrypted (a bad tag is paramiko's "Mismatched MAC"
   SSHException), and the sequence number wraps at 2**32.  paramiko's own AEAD
   path cannot be reused: it sends the length in clear (AES-GCM style).  The
   bookkeeping around the cipher (sequence numbers, compression, re-key
   counters) is paramiko's, read and written through its private attribute
   names; ``use_with_paramiko()`` checks that they exist first.
3. ``PKey._read_private_key``, through which every paramiko key class reads an
   OpenSSH key file, first turns a file encrypted with
   chacha20-poly1305@openssh.com into the unencrypted file
   (``poly1305x.openssh.decrypt``); other files pass through untouched.
   ``Ed25519Key`` reads its file without the password and parses it in
   ``_parse_signing_key_data``, so that method does the same.
4. ``PKey.from_path`` loads such files through the same route (the original
   goes through cryptography, which does not know the cipher).

A ``Transport`` created with ``packetizer_class=`` of its own gets the cipher
only if that class derives from :class:`ChaChaPacketizer`.
"""
import io
import logging
import re
import struct
import threading

from poly1305x._errors import InvalidTag
from poly1305x.openssh._ssh import PacketCipher

__all__ = ["CIPHER", "use_with_paramiko"]

CIPHER = "chacha20-poly1305@openssh.com"
MAX_PACKET = 256 * 1024   # OpenSSH's PACKET_MAX_SIZE: bound an unauthenticated length
TAG = 16
SUPPORTED = "paramiko 3.5 to 5.x"
INSTALL_HINT = "pip install poly1305x[paramiko]"

# Packetizer state this module reads or writes (paramiko's name-mangled privates).
_P = "_Packetizer__"
_PACKETIZER_STATE = (
    "block_engine_out", "block_engine_in", "sequence_number_out", "sequence_number_in",
    "compress_engine_out", "compress_engine_in", "write_lock", "dump_packets",
    "need_rekey", "sent_bytes", "sent_packets", "received_bytes", "received_packets",
    "received_bytes_overflow", "received_packets_overflow",
)
_PACKETIZER_METHODS = ("read_all", "write_all", "_trigger_rekey", "_log",
                       "send_message", "read_message", "set_inbound_cipher",
                       "set_outbound_cipher")

_lock = threading.Lock()
_saved = None          # the originals while enabled, else None
_packetizer = None     # ChaChaPacketizer, built on first use (it needs paramiko)


class _Engine:
    """What paramiko's ``Transport._get_engine`` builds from one direction's 64
    key bytes.  Only :class:`ChaChaPacketizer` can drive it; paramiko's AES-GCM
    path (``encrypt``/``decrypt``) gets a clear error instead."""

    __slots__ = ("cipher",)

    def __init__(self, key):
        self.cipher = PacketCipher(key)

    def encrypt(self, *args):
        from paramiko.ssh_exception import SSHException
        raise SSHException(f"{CIPHER} needs poly1305x's packetizer: a Transport's "
                           "packetizer_class must derive from "
                           "poly1305x._paramiko.ChaChaPacketizer")

    decrypt = encrypt


def _make_packetizer(Packetizer, SSHException, Message, MSG_NAMES):
    class ChaChaPacketizer(Packetizer):
        """paramiko's Packetizer, plus chacha20-poly1305@openssh.com on
        ``poly1305x.PacketCipher`` when that cipher was negotiated."""

        def send_message(self, data):
            engine = self._Packetizer__block_engine_out
            if type(engine) is not _Engine:
                return super().send_message(data)
            data = data.asbytes()
            with self._Packetizer__write_lock:
                if self._Packetizer__compress_engine_out is not None:
                    data = self._Packetizer__compress_engine_out(data)
                # As OpenSSH pads for this cipher: 4..11 bytes, so that padlen,
                # payload and padding (not the length field) fill 8-byte blocks.
                # Zeros, as paramiko pads its CTR ciphers: the padding is
                # encrypted with the rest, and a urandom call per packet costs
                # more than sealing a small one.
                padding = 11 - (len(data) + 4) % 8
                packet = b"".join((struct.pack(">IB", len(data) + padding + 1, padding),
                                   data, bytes(padding)))
                if self._Packetizer__dump_packets:
                    self._log(logging.DEBUG,
                              f"Write packet <{_name(MSG_NAMES, data[0])}>, length {len(data)}")
                seq = self._Packetizer__sequence_number_out
                out = engine.cipher.seal(seq, packet)
                seq = (seq + 1) & 0xFFFFFFFF
                if seq == 0 and not self._initial_kex_done:
                    raise SSHException("Sequence number rolled over during initial kex!")
                self._Packetizer__sequence_number_out = seq
                self.write_all(out)
                self._count_sent(len(out))

        def read_message(self):
            engine = self._Packetizer__block_engine_in
            if type(engine) is not _Engine:
                return super().read_message()
            seq = self._Packetizer__sequence_number_in
            first = self.read_all(4, check_rekey=True)
            size = engine.cipher.decrypt_length(seq, first)
            # Not authenticated yet: bound it before waiting for that much.
            if size < 8 or size > MAX_PACKET or size % 8:
                raise SSHException(f"Invalid packet length {size}")
            wire = first + self.read_all(size + TAG)
            try:
                packet = engine.cipher.open(seq, wire)
            except InvalidTag:
                raise SSHException("Mismatched MAC") from None
            padding = packet[4]
            if padding < 4 or padding > size - 2:
                raise SSHException(f"Invalid padding length {padding}")
            payload = packet[5:4 + size - padding]
            if self._Packetizer__compress_engine_in is not None:
                payload = self._Packetizer__compress_engine_in(payload)
            msg = Message(payload[1:])
            msg.seqno = seq
            seq = (seq + 1) & 0xFFFFFFFF
            if seq == 0 and not self._initial_kex_done:
                raise SSHException("Sequence number rolled over during initial kex!")
            self._Packetizer__sequence_number_in = seq
            self._count_received(size + TAG + 4)
            cmd = payload[0]
            if self._Packetizer__dump_packets:
                self._log(logging.DEBUG,
                          f"Read packet <{_name(MSG_NAMES, cmd)}>, length {len(payload)}")
            return cmd, msg

        # paramiko's re-key accounting (from Packetizer.send_message and
        # read_message), unchanged.

        def _count_sent(self, raw):
            self._Packetizer__sent_bytes += raw
            self._Packetizer__sent_packets += 1
            if (self._Packetizer__sent_packets >= self.REKEY_PACKETS
                    or self._Packetizer__sent_bytes >= self.REKEY_BYTES) \
                    and not self._Packetizer__need_rekey:
                self._log(logging.DEBUG,
                          f"Rekeying (hit {self._Packetizer__sent_packets} packets, "
                          f"{self._Packetizer__sent_bytes} bytes sent)")
                self._Packetizer__received_bytes_overflow = 0
                self._Packetizer__received_packets_overflow = 0
                self._trigger_rekey()

        def _count_received(self, raw):
            self._Packetizer__received_bytes += raw
            self._Packetizer__received_packets += 1
            if self._Packetizer__need_rekey:
                self._Packetizer__received_bytes_overflow += raw
                self._Packetizer__received_packets_overflow += 1
                if (self._Packetizer__received_packets_overflow
                        >= self.REKEY_PACKETS_OVERFLOW_MAX
                        or self._Packetizer__received_bytes_overflow
                        >= self.REKEY_BYTES_OVERFLOW_MAX):
                    raise SSHException("Remote transport is ignoring rekey requests")
            elif (self._Packetizer__received_packets >= self.REKEY_PACKETS
                    or self._Packetizer__received_bytes >= self.REKEY_BYTES):
                self._log(logging.DEBUG,
                          f"Rekeying (hit {self._Packetizer__received_packets} packets, "
                          f"{self._Packetizer__received_bytes} bytes received)")
                self._Packetizer__received_bytes_overflow = 0
                self._Packetizer__received_packets_overflow = 0
                self._trigger_rekey()

    ChaChaPacketizer.__module__ = __name__
    ChaChaPacketizer.__qualname__ = "ChaChaPacketizer"
    return ChaChaPacketizer


def _name(names, cmd):
    return names.get(cmd, f"${cmd:x}")


def __getattr__(name):
    # ChaChaPacketizer derives from paramiko's Packetizer: built on first access.
    if name == "ChaChaPacketizer":
        return _packetizer_class(_import_paramiko())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _import_paramiko():
    try:
        import paramiko
        import paramiko.packet
        import paramiko.ed25519key
        import paramiko.pkey
        import paramiko.transport
    except ImportError as exc:
        raise ImportError(f"use_with_paramiko needs paramiko: {INSTALL_HINT}") from exc
    return paramiko


def _packetizer_class(paramiko):
    global _packetizer
    if _packetizer is None:
        from paramiko.common import MSG_NAMES
        from paramiko.message import Message
        from paramiko.ssh_exception import SSHException
        _packetizer = _make_packetizer(paramiko.packet.Packetizer, SSHException, Message,
                                       MSG_NAMES)
    return _packetizer


def _check(paramiko):
    """RuntimeError naming what is missing when this paramiko's internals are
    not the ones the patches are written for."""
    import inspect
    problems = []
    T = paramiko.transport.Transport
    P = paramiko.packet.Packetizer
    if not isinstance(getattr(T, "_cipher_info", None), dict):
        problems.append("Transport._cipher_info is not a dict")
    elif not any(v.get("is_aead") for v in T._cipher_info.values()):
        problems.append("Transport._cipher_info has no AEAD ('is_aead') cipher")
    if not isinstance(getattr(T, "_preferred_ciphers", None), tuple):
        problems.append("Transport._preferred_ciphers is not a tuple")
    for name in ("_get_engine", "_activate_inbound", "_activate_outbound"):
        if not callable(getattr(T, name, None)):
            problems.append(f"Transport.{name} is missing")
    try:
        if "packetizer_class" not in inspect.signature(T.__init__).parameters:
            problems.append("Transport() takes no packetizer_class")
    except (TypeError, ValueError):
        problems.append("Transport.__init__ has no signature")
    if getattr(paramiko.transport, "Packetizer", None) is not P:
        problems.append("paramiko.transport.Packetizer is not paramiko.packet.Packetizer")
    for name in _PACKETIZER_METHODS:
        if not callable(getattr(P, name, None)):
            problems.append(f"Packetizer.{name} is missing")
    state = vars(P(None))
    for name in _PACKETIZER_STATE:
        if _P + name not in state:
            problems.append(f"Packetizer has no private attribute __{name}")
    if "_initial_kex_done" not in state:
        problems.append("Packetizer has no _initial_kex_done")
    for name in ("_read_private_key", "from_path"):
        if not callable(getattr(paramiko.pkey.PKey, name, None)):
            problems.append(f"PKey.{name} is missing")
    if "_parse_signing_key_data" not in vars(paramiko.ed25519key.Ed25519Key):
        problems.append("Ed25519Key._parse_signing_key_data is missing")
    if problems:
        version = getattr(paramiko, "__version__", "?")
        raise RuntimeError(f"use_with_paramiko: paramiko {version} is not supported "
                           f"(tested with {SUPPORTED}): " + "; ".join(problems))


_BEGIN = "-----BEGIN OPENSSH PRIVATE KEY-----"
_END = "-----END OPENSSH PRIVATE KEY-----"
_BLOCK = re.compile(re.escape(_BEGIN) + ".*?" + re.escape(_END), re.S)
# paramiko's key classes pass this tag to _read_private_key
_TAGS = {"RSA": ("ssh-rsa",), "EC": ("ecdsa-sha2-",), "OPENSSH": ("ssh-ed25519",)}


def _chacha_key(data):
    """(key file, key type) when data (text around an armoured OpenSSH key, or
    the binary openssh-key-v1 blob) is a key encrypted with
    chacha20-poly1305@openssh.com, else None."""
    from poly1305x import openssh
    if isinstance(data, str):
        m = _BLOCK.search(data)
        if m is None:
            return None
        data = m.group(0)
    elif bytes(data[:15]) != b"openssh-key-v1\0":
        return None
    try:
        info = openssh.key_info(data)
    except ValueError:
        return None         # paramiko reports what is wrong with it
    return (data, info["type"]) if info["cipher"] == CIPHER else None


def _decrypt_key(block, key_type, password, tag=None):
    from poly1305x import openssh
    from paramiko.ssh_exception import PasswordRequiredException, SSHException
    if tag in _TAGS and not key_type.startswith(_TAGS[tag]):
        raise SSHException(f"encountered {key_type} key, expected {tag} key")
    if password is None:
        raise PasswordRequiredException("private key file is encrypted")
    try:
        return openssh.decrypt(block, password).decode("ascii")
    except ValueError as exc:
        raise _key_error(SSHException)(str(exc)) from None


_key_errors = {}


def _key_error(SSHException):
    """SSHException (what paramiko's callers catch) that is also a ValueError
    (poly1305x's rule for a bad passphrase or a damaged file)."""
    cls = _key_errors.get(SSHException)
    if cls is None:
        cls = _key_errors[SSHException] = type(
            "BadKeyFileError", (SSHException, ValueError), {"__module__": __name__})
    return cls


def _patch_keys(paramiko, saved):
    PKey = paramiko.pkey.PKey
    read_original = saved["_read_private_key"]
    from_path_original = saved["from_path"]
    parse_original = saved["_parse_signing_key_data"]

    def _read_private_key(self, tag, f, password=None):
        text = f.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        found = _chacha_key(text)
        # Ed25519Key reads without the password and hands the raw file to
        # _parse_signing_key_data (patched below) together with the password.
        if found is not None and not (tag == "OPENSSH" and password is None):
            text = _decrypt_key(found[0], found[1], password, tag)
            password = None
        return read_original(self, tag, io.StringIO(text), password)

    def _parse_signing_key_data(self, data, password):
        found = _chacha_key(data)
        if found is not None:
            from poly1305x.openssh._wire import unarmour
            data = unarmour(_decrypt_key(found[0], found[1], password))
        return parse_original(self, data, password)

    def from_path(path, password=None):
        from pathlib import Path
        path = str(path)
        key_path = path[:-len("-cert.pub")] if path.endswith("-cert.pub") else path
        key_path = Path(key_path).expanduser()
        try:
            found = _chacha_key(key_path.read_bytes().decode("utf-8", "replace"))
        except OSError:
            found = None
        if found is None:
            return from_path_original(path, password)
        classes = {"ssh-rsa": paramiko.RSAKey, "ssh-ed25519": paramiko.Ed25519Key}
        key_class = classes.get(found[1])
        if key_class is None and found[1].startswith("ecdsa-sha2-"):
            key_class = paramiko.ECDSAKey
        if key_class is None:
            raise paramiko.pkey.UnknownKeyType(key_type=found[1])
        plain = _decrypt_key(found[0], found[1], password)
        key = key_class.from_private_key(io.StringIO(plain))
        cert_path = Path(str(key_path) + "-cert.pub")
        if cert_path.exists():
            key.load_certificate(str(cert_path))
        return key

    _read_private_key.__doc__ = read_original.__doc__
    _read_private_key.__wrapped__ = read_original
    from_path.__doc__ = from_path_original.__doc__
    from_path.__wrapped__ = from_path_original
    PKey._read_private_key = _read_private_key
    paramiko.ed25519key.Ed25519Key._parse_signing_key_data = _parse_signing_key_data
    PKey.from_path = staticmethod(from_path)


def use_with_paramiko(enable=True):
    """Give paramiko the ``chacha20-poly1305@openssh.com`` transport cipher, run
    on poly1305x's ``PacketCipher`` and offered first (client and server mode),
    and the loading of private keys encrypted with it (``enable=True``); or undo
    all of it (``enable=False``).  Affects connections made afterwards;
    idempotent.

    Returns whether it was enabled before the call.  ImportError when paramiko
    is missing (``pip install poly1305x[paramiko]``); RuntimeError, before
    anything is changed, on a paramiko whose internals differ from the ones
    this is written for (paramiko 3.5 to 5.x)."""
    global _saved
    with _lock:
        was_on = _saved is not None
        if enable and not was_on:
            paramiko = _import_paramiko()
            _check(paramiko)
            T, PKey = paramiko.transport.Transport, paramiko.pkey.PKey
            packetizer = _packetizer_class(paramiko)
            saved = {
                "_preferred_ciphers": T.__dict__["_preferred_ciphers"],
                "_cipher_info": T.__dict__["_cipher_info"],
                "Packetizer": paramiko.transport.Packetizer,
                "_read_private_key": PKey.__dict__["_read_private_key"],
                "from_path": PKey.from_path,
                "from_path_raw": PKey.__dict__["from_path"],
                "_parse_signing_key_data":
                    paramiko.ed25519key.Ed25519Key.__dict__["_parse_signing_key_data"],
            }
            info = dict(saved["_cipher_info"])
            info[CIPHER] = {"class": _Engine, "block-size": 8, "key-size": 64,
                            "iv-size": 0, "is_aead": True}
            T._cipher_info = info
            T._preferred_ciphers = (CIPHER,) + tuple(
                c for c in saved["_preferred_ciphers"] if c != CIPHER)
            paramiko.transport.Packetizer = packetizer
            _patch_keys(paramiko, saved)
            _saved = (paramiko, saved)
        elif not enable and was_on:
            paramiko, saved = _saved
            T, PKey = paramiko.transport.Transport, paramiko.pkey.PKey
            T._preferred_ciphers = saved["_preferred_ciphers"]
            T._cipher_info = saved["_cipher_info"]
            paramiko.transport.Packetizer = saved["Packetizer"]
            PKey._read_private_key = saved["_read_private_key"]
            PKey.from_path = saved["from_path_raw"]
            paramiko.ed25519key.Ed25519Key._parse_signing_key_data = \
                saved["_parse_signing_key_data"]
            _saved = None
        return was_on
