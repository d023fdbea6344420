"""paramiko's side of ``use_with_paramiko()`` (poly1305x.openssh._paramiko):
imported by it on first use, never at package import.  It imports paramiko at
the top and holds, as this module's functions, what the switch puts into
paramiko's classes: ``Packetizer.send_message`` and ``read_message`` (the
packet path, items 2 of _paramiko's docstring), the getter of
``Transport.preferred_ciphers`` (item 3) and ``Transport._parse_kex_init``
(Terrapin: _paramiko_kex).  Each delegates to the method it replaced, as
found when enabled (:data:`ORIGINAL`, filled by :func:`bindings`); the
key-file half is _paramiko_keys."""
import logging
import struct

from poly1305x._errors import InvalidTag
from poly1305x._peers import install_hint

try:
    import paramiko
    import paramiko.ed25519key
    import paramiko.packet
    import paramiko.pkey
    import paramiko.ssh_exception
    import paramiko.transport
    from paramiko.common import MSG_NAMES
    from paramiko.message import Message
    from paramiko.ssh_exception import SSHException
except ImportError:       # (the missing module stays the exception's context)
    raise ImportError(f"use_with_paramiko needs paramiko: {install_hint('paramiko')}")

from poly1305x.openssh import _paramiko_keys
from poly1305x.openssh._paramiko import CIPHER, MAX_PACKET, TAG, _composes, _Engine
from poly1305x.openssh._paramiko_kex import CVE, offers_chacha, rule

ORIGINAL: dict = {}     # the methods found when enabled, which these delegate to


def send_message(self, data):
    engine = self._Packetizer__block_engine_out
    if type(engine) is not _Engine:
        return ORIGINAL["send_message"](self, data)
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
            self._log(logging.DEBUG, f"Write packet <{_name(data[0])}>, length {len(data)}")
        seq = self._Packetizer__sequence_number_out
        out = engine.cipher.seal(seq, packet)
        seq = (seq + 1) & 0xFFFFFFFF
        if seq == 0 and not self._initial_kex_done:
            raise SSHException("Sequence number rolled over during initial kex!")
        self._Packetizer__sequence_number_out = seq
        self.write_all(out)
        _count_sent(self, len(out))


def read_message(self):
    engine = self._Packetizer__block_engine_in
    if type(engine) is not _Engine:
        return ORIGINAL["read_message"](self)
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
    _count_received(self, size + TAG + 4)
    cmd = payload[0]
    if self._Packetizer__dump_packets:
        self._log(logging.DEBUG, f"Read packet <{_name(cmd)}>, length {len(payload)}")
    return cmd, msg


def _name(cmd):
    return MSG_NAMES.get(cmd, f"${cmd:x}")


# paramiko's re-key accounting (from Packetizer.send_message and read_message),
# unchanged.

def _count_sent(self, raw):
    self._Packetizer__sent_bytes += raw
    self._Packetizer__sent_packets += 1
    if (self._Packetizer__sent_packets >= self.REKEY_PACKETS
            or self._Packetizer__sent_bytes >= self.REKEY_BYTES) \
            and not self._Packetizer__need_rekey:
        _rekey(self, self._Packetizer__sent_packets, self._Packetizer__sent_bytes, "sent")


def _count_received(self, raw):
    self._Packetizer__received_bytes += raw
    self._Packetizer__received_packets += 1
    if self._Packetizer__need_rekey:
        self._Packetizer__received_bytes_overflow += raw
        self._Packetizer__received_packets_overflow += 1
        if (self._Packetizer__received_packets_overflow >= self.REKEY_PACKETS_OVERFLOW_MAX
                or self._Packetizer__received_bytes_overflow
                >= self.REKEY_BYTES_OVERFLOW_MAX):
            raise SSHException("Remote transport is ignoring rekey requests")
    elif (self._Packetizer__received_packets >= self.REKEY_PACKETS
            or self._Packetizer__received_bytes >= self.REKEY_BYTES):
        _rekey(self, self._Packetizer__received_packets, self._Packetizer__received_bytes,
               "received")


def _rekey(self, packets, nbytes, way):
    self._log(logging.DEBUG, f"Rekeying (hit {packets} packets, {nbytes} bytes {way})")
    self._Packetizer__received_bytes_overflow = 0
    self._Packetizer__received_packets_overflow = 0
    self._trigger_rekey()


def preferred_ciphers(self):
    """paramiko's list, without the cipher for a transport that may not
    negotiate it (offers_chacha) or cannot run it (_composes)."""
    ciphers = ORIGINAL["preferred_ciphers"].fget(self)
    if CIPHER in ciphers and (not offers_chacha(self)
                              or not _composes(type(getattr(self, "packetizer", None)))):
        ciphers = tuple(c for c in ciphers if c != CIPHER)
    return ciphers


def _parse_kex_init(self, m):
    """paramiko's ``Transport._parse_kex_init``, then: the cipher chosen in
    either direction on a connection without strict kex is refused (unless
    opted in)."""
    ORIGINAL["_parse_kex_init"](self, m)
    if (CIPHER in (self.local_cipher, self.remote_cipher)
            and not rule.allow_without_strict_kex and not self.agreed_on_strict_kex):
        raise paramiko.ssh_exception.IncompatiblePeer(
            f"the peer chose {CIPHER} without strict key exchange, which Terrapin "
            f"({CVE}) attacks; refused (use_with_paramiko(allow_without_strict_kex=True) "
            "accepts it)")


def bindings(saved, cipher_info, preferred):
    """The Switch bindings of use_with_paramiko: ``saved``, paramiko's
    methods and tables as found now (which ours call); ``cipher_info`` and
    ``preferred``, Transport's new cipher table and order."""
    ORIGINAL.update((k, saved[k]) for k in
                    ("send_message", "read_message", "preferred_ciphers", "_parse_kex_init"))
    for ours in (send_message, read_message, _parse_kex_init):
        original = saved[ours.__name__]
        ours.__doc__ = original.__doc__
        ours.__wrapped__ = original
    T, P = paramiko.transport.Transport, paramiko.packet.Packetizer
    prop = saved["preferred_ciphers"]
    return [
        (T, "_cipher_info", cipher_info),
        (T, "_preferred_ciphers", preferred),
        (P, "send_message", send_message),
        (P, "read_message", read_message),
        (T, "preferred_ciphers", property(preferred_ciphers, prop.fset, prop.fdel, prop.__doc__)),
        (T, "_parse_kex_init", _parse_kex_init),
    ] + _paramiko_keys.bindings(saved)
