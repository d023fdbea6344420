"""Type stub for poly1305x.openssh._ssh: OpenSSH's chacha20-poly1305@openssh.com."""
from typing import Union

from typing_extensions import Self, disjoint_base

__all__ = ["PacketCipher", "keyfile_open", "keyfile_seal", "KEY_SIZE", "TAG_SIZE"]

_Buffer = Union[bytes, bytearray, memoryview]

KEY_SIZE: int
TAG_SIZE: int

@disjoint_base
class PacketCipher:
    """chacha20-poly1305@openssh.com for SSH transport packets (one direction).

    ``key64``: K_2 = key64[0:32] keys the payload and the Poly1305 key, K_1 =
    key64[32:64] the 4-byte length field.  Immutable after construction; safe
    to share between threads.  ``seqnr`` is the caller's uint32 packet counter
    (0..2**32-1, wrapped by the caller; anything else is a ValueError)."""

    def __new__(cls, key64: _Buffer) -> Self: ...
    @property
    def backend(self) -> str: ...
    def seal(self, seqnr: int, packet: _Buffer) -> bytes:
        """packet (length field first) -> encrypted length || encrypted rest || tag."""
    def decrypt_length(self, seqnr: int, first4: _Buffer) -> int:
        """The unauthenticated packet_length from the first 4 received bytes."""
    def open(self, seqnr: int, data: _Buffer) -> bytes:
        """Decrypt and verify (poly1305x.InvalidTag on failure, and no plaintext
        released); returns the plaintext packet including its 4-byte length field."""

def keyfile_seal(key64: _Buffer, data: _Buffer) -> bytes: ...
def keyfile_open(key64: _Buffer, data: _Buffer) -> bytearray: ...
