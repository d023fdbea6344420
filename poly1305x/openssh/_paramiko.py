"""chacha20-poly1305@openssh.com for paramiko, on poly1305x: ``use_with_paramiko()``.

paramiko (3.5 to 5.x) has no ChaCha20-Poly1305 transport cipher and cannot read
key files encrypted with it.  ``use_with_paramiko()`` adds both; the changes,
which ``use_with_paramiko(False)`` undoes exactly:

1. ``Transport._cipher_info`` gets a ``chacha20-poly1305@openssh.com`` entry
   (64 key bytes per direction, ``is_aead``) and ``Transport._preferred_ciphers``
   puts the cipher first, as OpenSSH does.
2. ``Packetizer.send_message`` and ``read_message`` (paramiko's own class, so
   a Transport's packetizer stays of the class paramiko or the user chose)
   run ``PacketCipher`` when this cipher was negotiated, and paramiko's own
   code otherwise: the length is decrypted and bounded before the rest is
   read, the tag checked before anything is decrypted ("Mismatched MAC"), the
   sequence number wraps at 2**32.  The bookkeeping (sequence numbers,
   compression, re-key counters) is paramiko's, through its private names.
3. ``Transport.preferred_ciphers`` leaves the cipher out for a transport
   whose ``packetizer_class=`` cannot reach that code: not a Packetizer
   subclass, or one that overrides either method without calling ``super()``;
   and, with ``Transport._parse_kex_init``, keeps it to connections where both
   sides do strict key exchange (Terrapin: ``_paramiko_kex``).
4. ``PKey._read_private_key``, ``Ed25519Key._parse_signing_key_data`` and
   ``PKey.from_path`` (``_paramiko_keys``) turn a key file encrypted with the cipher into the
   unencrypted file (``poly1305x.openssh.decrypt``, kdf rounds capped) before
   paramiko parses it; other files pass through untouched.  Every chacha
   file stops there, damaged or not: a failure is an SSHException, as plain
   paramiko raises for a file it cannot read, and paramiko's parsers never
   see the cipher.  The search for such a file is linear, in key text of up
   to ``MAX_KEY_TEXT`` (1 MiB) characters.

This module is the switch and the checks, importable without paramiko; what it
puts into paramiko is in the modules that import paramiko at their top,
imported when the switch is first turned on: ``_paramiko_peer`` (items 1-3)
and ``_paramiko_keys`` (item 4).
"""
from typing import Any, Final

from poly1305x.openssh._ssh import PacketCipher
from poly1305x._peers import install_hint, no_attribute
from poly1305x._swap import Switch
from poly1305x.openssh._container import CHACHA
from poly1305x.openssh import _paramiko_kex

__all__ = ["CIPHER", "use_with_paramiko"]

CIPHER: Final[str] = CHACHA
MAX_PACKET: Final[int] = 256 * 1024  # OpenSSH's PACKET_MAX_SIZE: bound an unauthenticated length
TAG: Final[int] = 16
SUPPORTED: Final[str] = "paramiko 3.5 to 5.x"
INSTALL_HINT: Final[str] = install_hint("paramiko")
# Key text longer than this is not searched for a chacha key (paramiko reads it
# as it would without poly1305x); 1 MiB, as OpenSSH's own limit on key files.
MAX_KEY_TEXT: Final[int] = 1 << 20

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

_switch = Switch()     # our methods and tables in paramiko, and back
_saved = None          # (paramiko, the originals our methods delegate to) while enabled


class _Engine:
    """What paramiko's ``Transport._get_engine`` builds from one direction's 64
    key bytes.  Only :class:`ChaChaPacketizer` can drive it; paramiko's AES-GCM
    path (``encrypt``/``decrypt``) gets a clear error instead."""

    __slots__ = ("cipher",)

    def __init__(self, key):
        self.cipher = PacketCipher(key)

    def encrypt(self, *args):
        from paramiko.ssh_exception import SSHException
        raise SSHException(f"{CIPHER} needs poly1305x's packet path: this Transport's "
                           "packetizer_class replaces Packetizer.send_message or "
                           "read_message without calling super()")

    decrypt = encrypt


def _composes(cls):
    """Whether a Transport whose packetizer is of class ``cls`` can run the
    cipher: ``cls`` derives from paramiko's Packetizer, and where it overrides
    ``send_message`` or ``read_message`` the override calls ``super()`` (so
    that it reaches the chacha path).  A class that replaces either method
    outright frames packets itself: chacha is left out of its offer."""
    if _saved is None:
        return False
    paramiko, saved = _saved
    if not isinstance(cls, type) or not issubclass(cls, paramiko.packet.Packetizer):
        return False
    for name in ("send_message", "read_message"):
        for klass in cls.__mro__:
            if klass is paramiko.packet.Packetizer:
                break
            fn = vars(klass).get(name)
            if fn is not None:
                code = getattr(fn, "__code__", None)
                if code is None or "super" not in code.co_names:
                    return False
    return True


def __getattr__(name: str) -> Any:
    # Earlier versions replaced paramiko's Packetizer with a subclass of this
    # name; now paramiko's own class carries the cipher while enabled.
    if name == "ChaChaPacketizer":
        return _import_paramiko().packet.Packetizer
    raise no_attribute(__name__, name)


def _import_paramiko() -> Any:
    """paramiko, through its side of the adapter (_paramiko_peer, which imports
    it at the top); ImportError with the install hint when it is missing."""
    from poly1305x.openssh import _paramiko_peer
    return _paramiko_peer.paramiko


def _check(paramiko: Any) -> None:
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
    if not isinstance(vars(T).get("preferred_ciphers"), property):
        problems.append("Transport.preferred_ciphers is not a property")
    for name in ("send_message", "read_message"):
        if name not in vars(P):
            problems.append(f"Packetizer.{name} is inherited")
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
    problems += _paramiko_kex.problems(paramiko)
    if problems:
        version = getattr(paramiko, "__version__", "?")
        raise RuntimeError(f"use_with_paramiko: paramiko {version} is not supported "
                           f"(tested with {SUPPORTED}): " + "; ".join(problems))


def use_with_paramiko(enable: bool = True, *, allow_without_strict_kex: bool = False) -> bool:
    """Give paramiko the ``chacha20-poly1305@openssh.com`` transport cipher, run
    on poly1305x's ``PacketCipher`` and offered first (client and server mode),
    and the loading of private keys encrypted with it (``enable=True``); or undo
    all of it (``enable=False``).  Affects connections made afterwards;
    idempotent.

    The cipher is negotiated only on a connection where both sides do strict
    key exchange (Terrapin, CVE-2023-48795: poly1305x.openssh._paramiko_kex);
    else the next cipher both sides offer, or, against a peer that offers it
    without strict kex, paramiko's IncompatiblePeer.
    ``allow_without_strict_kex=True`` lifts that rule (the latest enabling
    call's value holds for key exchanges that start afterwards).

    Returns whether it was enabled before the call.  ImportError when paramiko
    is missing (``pip install -e '.[paramiko]'``); RuntimeError, before
    anything is changed, on a paramiko whose internals differ from the ones
    this is written for (paramiko 3.5 to 5.x)."""
    global _saved
    with _switch.lock:
        was_on = _switch.engaged()
        if enable and not was_on:
            paramiko = _import_paramiko()
            _check(paramiko)
            T, PKey = paramiko.transport.Transport, paramiko.pkey.PKey
            P = paramiko.packet.Packetizer
            saved = {
                "_preferred_ciphers": T.__dict__["_preferred_ciphers"],
                "_cipher_info": T.__dict__["_cipher_info"],
                "send_message": P.__dict__["send_message"],
                "read_message": P.__dict__["read_message"],
                "preferred_ciphers": T.__dict__["preferred_ciphers"],
                "_parse_kex_init": T.__dict__["_parse_kex_init"],
                "_read_private_key": PKey.__dict__["_read_private_key"],
                "from_path": PKey.from_path,
                "from_path_raw": PKey.__dict__["from_path"],
                "_parse_signing_key_data":
                    paramiko.ed25519key.Ed25519Key.__dict__["_parse_signing_key_data"],
            }
            info = dict(saved["_cipher_info"])
            info[CIPHER] = {"class": _Engine, "block-size": 8, "key-size": 64,
                            "iv-size": 0, "is_aead": True}
            from poly1305x.openssh import _paramiko_peer
            bindings = _paramiko_peer.bindings(
                saved, info,
                (CIPHER,) + tuple(c for c in saved["_preferred_ciphers"] if c != CIPHER))
            _saved = (paramiko, saved)
            try:
                _switch.swap(bindings)
            except BaseException:
                _saved = None
                raise
        elif not enable and was_on:
            _switch.restore()
            _saved = None
            _paramiko_kex.rule.allow_without_strict_kex = False
        if enable:
            _paramiko_kex.rule.allow_without_strict_kex = bool(allow_without_strict_kex)
        return was_on
