"""Type stub for poly1305x.openssh._paramiko: chacha20-poly1305@openssh.com for paramiko."""
from typing import Any, Final

__all__ = ["CIPHER", "use_with_paramiko"]

CIPHER: Final[str]
MAX_PACKET: Final[int]
TAG: Final[int]
SUPPORTED: Final[str]
INSTALL_HINT: Final[str]
MAX_KEY_TEXT: Final[int]

def use_with_paramiko(enable: bool = True) -> bool:
    """Enable (or with ``False`` undo) chacha20-poly1305@openssh.com in
    paramiko on poly1305x; returns whether it was enabled before."""

# ChaChaPacketizer: paramiko.packet.Packetizer itself (imported on first access).
def __getattr__(name: str) -> Any: ...
