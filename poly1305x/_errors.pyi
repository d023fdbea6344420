"""Type stub for poly1305x._errors.  At run time each class also subclasses
the matching class of cryptography or pycryptodome when that is installed;
the stub states the bases that always hold."""

from typing import Optional

__all__ = ["AlreadyFinalized", "InvalidSignature", "InvalidTag", "MessageTooLongError",
           "NotContiguousError"]

class InvalidTag(ValueError):
    indices: Optional[list[int]]
class InvalidSignature(ValueError): ...
class AlreadyFinalized(Exception): ...
class MessageTooLongError(ValueError): ...
class NotContiguousError(BufferError, TypeError): ...
KEY_NOT_STR: str
