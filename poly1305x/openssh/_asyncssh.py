"""``use_with_asyncssh``: asyncssh's chacha20-poly1305@openssh.com on
poly1305x.

asyncssh looks every cipher up in one table (name -> (Encryption class,
cipher name)), for the transport and for OpenSSH key files alike.  Its own
class, ``ChachaEncryption``, builds three or four ``cryptography`` objects
per packet.  Enabling replaces that one table entry with
:class:`~poly1305x.openssh._asyncssh_peer.PacketCipherEncryption`; disabling
puts asyncssh's entry back.  The asyncssh side (the import, the version check
of its private table, the class) is ``_asyncssh_peer``, imported here on
first use.
"""
from poly1305x._swap import Switch

_switch = Switch()      # our entry in asyncssh's cipher table, and back


def use_with_asyncssh(enable: bool = True) -> bool:
    """Make asyncssh's ``chacha20-poly1305@openssh.com`` run on poly1305x
    (``enable=True``): the SSH transport cipher of connections whose keys are
    exchanged afterwards, and the decryption and encryption of OpenSSH key
    files that use it.  ``enable=False`` puts asyncssh's own implementation
    back.  Idempotent; returns whether poly1305x was in use before the call.

    ImportError when asyncssh is not installed (``pip install -e
    '.[asyncssh]'`` in a checkout); RuntimeError on an asyncssh whose internal
    cipher table differs from the one this adapter was written for."""
    with _switch.lock:          # the table is read under the lock too
        from poly1305x.openssh import _asyncssh_peer as peer
        table = peer.cipher_table()

        def bindings():
            return [(table, peer.NAME, (peer.PacketCipherEncryption, table[peer.NAME][1]))]

        return _switch.set(enable, bindings)
