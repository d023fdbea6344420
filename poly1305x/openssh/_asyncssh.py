"""``use_with_asyncssh``: asyncssh's chacha20-poly1305@openssh.com on
poly1305x.

asyncssh looks every cipher up in one table, ``asyncssh.encryption._enc_params``
(name -> (Encryption class, cipher name)), both for the transport
(``connection.py``: one object per direction and key exchange) and for
OpenSSH key files (``public_key.py``: sequence number 0, no length field).
Its own class, ``ChachaEncryption``, builds three or four ``cryptography``
objects per packet.  Enabling replaces that one table entry with
:class:`PacketCipherEncryption`; disabling puts asyncssh's entry back.  The
table is private to asyncssh: the version check below refuses an asyncssh
whose table or ``Encryption`` interface is not the one this was written for.
"""
import threading

from poly1305x.openssh._ssh import PacketCipher, keyfile_open, keyfile_seal

NAME = b"chacha20-poly1305@openssh.com"
_HINT = "pip install poly1305x[asyncssh]"

_lock = threading.Lock()
_original = None        # asyncssh's table entry while ours is in place
_shim = None            # our Encryption subclass (made once, on first use)


def _encryption_module():
    try:
        # The whole package: its import registers the ciphers in the table
        # (asyncssh.encryption alone does not, in older versions).
        import asyncssh
        import asyncssh.encryption as enc
    except ImportError:
        raise ImportError(f"use_with_asyncssh needs asyncssh: {_HINT}") from None
    table = getattr(enc, "_enc_params", None)
    base = getattr(enc, "Encryption", None)
    entry = table.get(NAME) if isinstance(table, dict) else None
    # (needs_mac() came later, in 2.15: not required; ours has it.)
    methods = ("new", "get_mac_params", "encrypt_packet", "decrypt_header", "decrypt_packet")
    if (base is None or entry is None or not isinstance(entry, tuple) or len(entry) != 2
            or not all(hasattr(base, m) for m in methods)):
        raise RuntimeError(
            f"use_with_asyncssh: asyncssh {getattr(asyncssh, '__version__', '?')} does not "
            f"have the cipher table this adapter patches (asyncssh.encryption._enc_params["
            f"{NAME!r}] -> (Encryption subclass, cipher name)); tested with asyncssh 2.14-2.24")
    return enc, table


def _make_shim(Encryption):
    class PacketCipherEncryption(Encryption):
        """asyncssh ``Encryption`` for chacha20-poly1305@openssh.com on
        :class:`poly1305x.openssh.PacketCipher` (header_len 4: transport
        packets) and the key-file framing (header_len 0, sequence number 0)."""

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
            if not header:
                sealed = keyfile_seal(self._key, packet)
                return sealed[:-16], sealed[-16:]
            # The tag stays on the packet: asyncssh sends packet + mac, and
            # bytes + b"" is the same object, so nothing is copied again.
            return self._pc.seal(seq, header + packet), b""

        def decrypt_header(self, seq, first_block, header_len):
            length = self._pc.decrypt_length(seq, first_block)
            return first_block, length.to_bytes(4, "big")

        def decrypt_packet(self, seq, first, rest, header_len, mac):
            try:
                if header_len == 0:
                    return bytes(keyfile_open(self._key, first + rest + mac))
                return self._pc.open(seq, first + rest + mac)[header_len:]
            except ValueError:      # poly1305x.InvalidTag, or a length mismatch
                return None         # asyncssh: MACError, connection closed

    PacketCipherEncryption.__module__ = __name__
    return PacketCipherEncryption


def use_with_asyncssh(enable=True):
    """Make asyncssh's ``chacha20-poly1305@openssh.com`` run on poly1305x
    (``enable=True``): the SSH transport cipher of connections whose keys are
    exchanged afterwards, and the decryption and encryption of OpenSSH key
    files that use it.  ``enable=False`` puts asyncssh's own implementation
    back.  Idempotent; returns whether poly1305x was in use before the call.

    ImportError when asyncssh is not installed (``pip install
    'poly1305x[asyncssh]'``); RuntimeError on an asyncssh whose internal
    cipher table differs from the one this adapter was written for."""
    global _original, _shim
    enc, table = _encryption_module()
    with _lock:
        was_on = _original is not None and table.get(NAME, (None,))[0] is _shim
        if enable and not was_on:
            if _shim is None:
                _shim = _make_shim(enc.Encryption)
            _original = table[NAME]
            table[NAME] = (_shim, _original[1])
        elif not enable and was_on:
            table[NAME] = _original
            _original = None
        return was_on
