"""SSH wire types (RFC 4251 section 5) and the PEM armour of openssh-key-v1
files.  Every shortfall is a ValueError naming the part being read."""
import base64
import binascii
import struct

MAGIC = b"openssh-key-v1\x00"
BEGIN = b"-----BEGIN OPENSSH PRIVATE KEY-----"
END = b"-----END OPENSSH PRIVATE KEY-----"
MAX_KEY_FILE = 1 << 20  # bytes of PEM text; an RSA-16384 key is about 12 KiB
MAX_MPINT = 16384 // 8  # as OpenSSH (SSHBUF_MAX_BIGNUM): bounds the key checks' cost
U32 = struct.Struct(">I")
#: The one message for every failure after decryption (see _container.parse_private).
WRONG_PASSPHRASE = "incorrect passphrase or damaged key"
WRONG_MAGIC = "not an OpenSSH private key: wrong magic (not openssh-key-v1)"
PASSPHRASE_TYPE = "passphrase must be str or bytes"


class Reader:
    """Reads SSH wire types from a bytes-like object."""

    __slots__ = ("buf", "pos", "what")

    def __init__(self, buf, what):
        self.buf = memoryview(buf)
        self.pos = 0
        self.what = what

    def _fail(self, detail):
        raise ValueError(f"damaged or truncated key: {self.what}: {detail}")

    def take(self, n, name):
        if n > len(self.buf) - self.pos:
            self._fail(f"{name} runs past the end ({n} bytes wanted, "
                       f"{len(self.buf) - self.pos} left)")
        start = self.pos
        self.pos += n
        return self.buf[start:self.pos]

    def u32(self, name):
        return U32.unpack(self.take(4, name))[0]

    def u8(self, name):
        return self.take(1, name)[0]

    def string(self, name):
        return self.take(self.u32(name + " length"), name)

    def mpint(self, name):
        """(value, raw bytes with the length prefix); negative values refused."""
        start = self.pos
        body = self.string(name)
        if len(body) and body[0] & 0x80:
            self._fail(f"{name} is negative")
        if len(body) > MAX_MPINT + 1 or (len(body) == MAX_MPINT + 1 and body[0]):
            self._fail(f"{name} is longer than {8 * MAX_MPINT} bits")
        return int.from_bytes(body, "big"), self.buf[start:self.pos]

    def name(self, name, limit=64):
        body = bytes(self.string(name))
        if len(body) > limit:
            self._fail(f"{name} is {len(body)} bytes long")
        if not body.isascii():
            self._fail(f"{name} is not ASCII")
        return body.decode("ascii")

    def left(self):
        return len(self.buf) - self.pos

    def rest(self):
        return self.take(self.left(), "rest")


def string(data):
    """An SSH string: uint32 length, then the bytes."""
    return U32.pack(len(data)) + bytes(data)


def wipe(buf):
    """Zero a bytearray in place (other types are immutable: nothing to do)."""
    if isinstance(buf, bytearray):
        buf[:] = bytes(len(buf))


_SPACE = b" \t\r\n"


def _as_bytes(data):
    if isinstance(data, str):
        try:
            return data.encode("ascii")
        except UnicodeEncodeError:
            raise ValueError("not an OpenSSH private key: the PEM text has non-ASCII "
                             "characters") from None
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    raise TypeError(f"key data must be str or bytes, not {type(data).__name__}")


def unarmour(data):
    """The binary openssh-key-v1 blob from PEM text (str or bytes), or from
    the binary blob itself."""
    raw = _as_bytes(data)
    if raw.startswith(MAGIC):
        return raw
    if len(raw) > MAX_KEY_FILE:
        raise ValueError(f"not an OpenSSH private key: more than {MAX_KEY_FILE} bytes")
    text = raw.lstrip(_SPACE)
    if not text.startswith(BEGIN):
        if b"-----BEGIN " in text[:100]:
            kind = text[text.index(b"-----BEGIN ") + 11:].split(b"-----")[0][:40]
            raise ValueError("not an OpenSSH private key (openssh-key-v1): the file is "
                             f"a PEM {kind.decode('ascii', 'replace')!r}")
        raise ValueError("not an OpenSSH private key: no '-----BEGIN OPENSSH PRIVATE "
                         "KEY-----' line")
    end = text.find(END)
    if end < 0:
        raise ValueError("damaged or truncated key: no '-----END OPENSSH PRIVATE KEY-----' line")
    if text[end + len(END):].strip(_SPACE):
        raise ValueError("trailing data after the '-----END OPENSSH PRIVATE KEY-----' line")
    body = text[len(BEGIN):end]
    if body[:1] not in (b"\n", b"\r") or body.rstrip(b" \t")[-1:] not in (b"\n",):
        raise ValueError("damaged key: the BEGIN and END lines must be lines of their own")
    b64 = body.translate(None, _SPACE)
    try:
        blob = base64.b64decode(b64, validate=True)
    except binascii.Error as exc:
        raise ValueError(f"damaged key: bad base64 ({exc})") from None
    # Non-canonical base64 (stray bits in the last character) would hide a
    # changed character: refuse it.
    if base64.b64encode(blob) != b64:
        raise ValueError("damaged key: non-canonical base64")
    if not blob.startswith(MAGIC):
        raise ValueError(WRONG_MAGIC)
    return blob


def armour(blob):
    """PEM text as ssh-keygen writes it: base64 lines of 70 characters."""
    b64 = base64.b64encode(blob)
    out = bytearray(BEGIN + b"\n")
    for i in range(0, len(b64), 70):
        out += b64[i:i + 70]
        out += b"\n"
    out += END + b"\n"
    return bytes(out)
