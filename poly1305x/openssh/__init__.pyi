"""Type stub for poly1305x.openssh: OpenSSH key files and the packet cipher."""
from typing import Any, Dict, Optional, Tuple, Union

from poly1305x.openssh._ssh import PacketCipher as PacketCipher

__all__ = [
    "CIPHERS", "DEFAULT_MAX_ROUNDS", "PacketCipher", "decrypt", "encrypt", "key_info",
    "load_private_key", "load_ssh_private_key", "public_key_line", "use_with_asyncssh",
    "use_with_paramiko",
]

_Data = Union[str, bytes, bytearray, memoryview]
_Passphrase = Union[str, bytes, bytearray, memoryview]

CIPHERS: Dict[str, Tuple[int, int, int, int]]
DEFAULT_MAX_ROUNDS: int

def decrypt(data: _Data, passphrase: Optional[_Passphrase] = ..., *,
            max_rounds: int = ...) -> bytes: ...
def encrypt(data: _Data, passphrase: Optional[_Passphrase],
            cipher: str = ..., rounds: int = ...) -> bytes: ...
def load_private_key(data: _Data, passphrase: Optional[_Passphrase] = ..., *,
                     max_rounds: int = ...) -> Any: ...
def public_key_line(data: _Data, passphrase: Optional[_Passphrase] = ..., *,
                    max_rounds: int = ...) -> str: ...
def key_info(data: _Data) -> Dict[str, Any]: ...
def load_ssh_private_key(data: Union[bytes, bytearray, memoryview],
                         password: Optional[bytes] = ..., backend: Any = ..., *,
                         unsafe_skip_rsa_key_validation: bool = ...,
                         max_rounds: int = ...) -> Any: ...
def use_with_asyncssh(enable: bool = ...) -> bool: ...
def use_with_paramiko(enable: bool = ...) -> bool: ...
