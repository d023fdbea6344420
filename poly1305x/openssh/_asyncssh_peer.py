"""asyncssh's side of ``use_with_asyncssh``: imported by
:func:`poly1305x.openssh.use_with_asyncssh` on first use, never at package
import.  It imports asyncssh at the top, reads its cipher table
(:func:`cipher_table`, which refuses an asyncssh whose table or
``Encryption`` interface is not the one this was written for), and defines
:class:`PacketCipherEncryption`, the table entry the switch puts in.

asyncssh looks every cipher up in one table, ``asyncssh.encryption._enc_params``
(name -> (Encryption class, cipher name)), both for the transport
(``connection.py``: one object per direction and key exchange) and for
OpenSSH key files (``public_key.py``: sequence number 0, no length field).
"""
from poly1305x import ChaCha20
from poly1305x._peers import install_hint
from poly1305x.mac import Poly1305
from poly1305x.openssh._ssh import PacketCipher, keyfile_open, keyfile_seal

try:
    # The whole package: its import registers the ciphers in the table
    # (asyncssh.encryption alone does not, in older versions).
    import asyncssh
    import asyncssh.encryption as _enc
except ImportError:
    raise ImportError(f"use_with_asyncssh needs asyncssh: {install_hint('asyncssh')}") from None

NAME = b"chacha20-poly1305@openssh.com"
_SEQ_MAX = 0xFFFFFFFF   # PacketCipher's sequence numbers; asyncssh's are UInt64


def cipher_table():
    """asyncssh's cipher table, read now (under the switch's lock), once its
    shape is the one this was written for; RuntimeError otherwise."""
    table = getattr(_enc, "_enc_params", None)
    base = getattr(_enc, "Encryption", None)
    entry = table.get(NAME) if isinstance(table, dict) else None
    # (needs_mac() came later, in 2.15: not required; ours has it.)
    methods = ("new", "get_mac_params", "encrypt_packet", "decrypt_header", "decrypt_packet")
    if (base is None or entry is None or not isinstance(entry, tuple) or len(entry) != 2
            or not all(hasattr(base, m) for m in methods)):
        raise RuntimeError(
            f"use_with_asyncssh: asyncssh {getattr(asyncssh, '__version__', '?')} does not "
            f"have the cipher table this adapter patches (asyncssh.encryption._enc_params["
            f"{NAME!r}] -> (Encryption subclass, cipher name)); tested with asyncssh 2.14-2.24")
    return table


def _stream(key32, seq, counter):
    """ChaCha20 keyed by key32, nonce seq (8 bytes, big-endian, as asyncssh's
    UInt64) from block counter (0 or 1): the stream asyncssh's ChachaCipher
    uses."""
    c = ChaCha20.new(key=key32, nonce=seq.to_bytes(8, "big"))
    if counter:
        c.seek(64 * counter)
    return c


def _tag(key32, seq, data):
    return Poly1305.generate_tag(_stream(key32, seq, 0).encrypt(bytes(32)), data)


class PacketCipherEncryption(_enc.Encryption):
    """asyncssh ``Encryption`` for chacha20-poly1305@openssh.com on
    poly1305x, argument for argument as asyncssh's ``ChachaEncryption``:
    ``encrypt_packet(seq, header, packet)`` returns (encrypted header +
    packet, 16-byte tag); ``decrypt_header(seq, first, header_len)``
    returns (first, the decrypted first header_len bytes);
    ``decrypt_packet(seq, first, rest, header_len, mac)`` checks ``mac``
    (exactly the bytes given) over ``first + rest`` and returns the
    decrypted bytes after the header, or None.  Nothing else is checked
    here, as there: packet lengths are asyncssh's connection's business.

    The usual inputs (a 4-byte header holding len(packet), and the key-file
    framing: no header, sequence number 0) run on
    :class:`poly1305x.openssh.PacketCipher` and ``keyfile_open``/``seal``;
    any other input takes the same construction on poly1305x's ChaCha20
    and Poly1305, so that the result is the same for every input."""

    def __init__(self, key):
        self._key = bytes(key)
        self._pc = PacketCipher(self._key)

    @classmethod
    def new(cls, cipher_name, key, iv, mac_alg=b"", mac_key=b"", etm=False):
        return cls(key)

    @classmethod
    def needs_mac(cls):
        return False

    @classmethod
    def get_mac_params(cls, mac_alg):
        return 0, 16, True      # no MAC key; a 16-byte tag; length not in clear

    def encrypt_packet(self, seq, header, packet):
        if len(header) == 4 and int.from_bytes(header, "big") == len(packet) \
                and seq <= _SEQ_MAX:
            sealed = self._pc.seal(seq, header + packet)
        elif not header and seq == 0:
            sealed = keyfile_seal(self._key, packet)
        else:
            data = (_stream(self._key[32:], seq, 0).encrypt(bytes(header))
                    + _stream(self._key[:32], seq, 1).encrypt(bytes(packet)))
            return data, _tag(self._key[:32], seq, data)
        return sealed[:-16], sealed[-16:]

    def decrypt_header(self, seq, first_block, header_len):
        header = bytes(first_block[:header_len])
        if len(header) == 4 and seq <= _SEQ_MAX:
            return first_block, self._pc.decrypt_length(seq, header).to_bytes(4, "big")
        return first_block, _stream(self._key[32:], seq, 0).encrypt(header)

    def decrypt_packet(self, seq, first, rest, header_len, mac):
        if len(mac) != 16:
            return None         # as Poly1305.verify_tag: no 16-byte tag matches
        header = bytes(first[:header_len])
        body = bytes(first[header_len:]) + bytes(rest)
        try:
            if len(header) == 4 and seq <= _SEQ_MAX and \
                    self._pc.decrypt_length(seq, header) == len(body):
                return self._pc.open(seq, header + body + bytes(mac))[4:]
            if not header and seq == 0:
                return bytes(keyfile_open(self._key, body + bytes(mac)))
        except ValueError:      # poly1305x.InvalidTag
            return None         # asyncssh: MACError, connection closed
        try:
            Poly1305.verify_tag(_stream(self._key[:32], seq, 0).encrypt(bytes(32)),
                                header + body, bytes(mac))
        except ValueError:
            return None
        return _stream(self._key[:32], seq, 1).decrypt(body)
