"""Pure-Python reference implementations, written from RFC 8439 and
draft-irtf-cfrg-xchacha with big integers: the oracle every kernel is tested
against.  Slow on purpose; nothing here is shared with the package."""
import struct

P1305 = (1 << 130) - 5


def poly1305(key: bytes, msg: bytes) -> bytes:
    """RFC 8439 section 2.5.1."""
    assert len(key) == 32
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:], "little")
    acc = 0
    for i in range(0, len(msg), 16):
        block = msg[i:i + 16] + b"\x01"
        acc = (acc + int.from_bytes(block, "little")) * r % P1305
    return ((acc + s) % (1 << 128)).to_bytes(16, "little")


def _rotl(v, c):
    return ((v << c) & 0xFFFFFFFF) | (v >> (32 - c))


def _qr(x, a, b, c, d):
    x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = _rotl(x[d] ^ x[a], 16)
    x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = _rotl(x[b] ^ x[c], 12)
    x[a] = (x[a] + x[b]) & 0xFFFFFFFF; x[d] = _rotl(x[d] ^ x[a], 8)
    x[c] = (x[c] + x[d]) & 0xFFFFFFFF; x[b] = _rotl(x[b] ^ x[c], 7)


def _permute(state):
    x = list(state)
    for _ in range(10):
        _qr(x, 0, 4, 8, 12); _qr(x, 1, 5, 9, 13); _qr(x, 2, 6, 10, 14); _qr(x, 3, 7, 11, 15)
        _qr(x, 0, 5, 10, 15); _qr(x, 1, 6, 11, 12); _qr(x, 2, 7, 8, 13); _qr(x, 3, 4, 9, 14)
    return x


_SIGMA = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)


def chacha20_block(key: bytes, counter: int, nonce: bytes) -> bytes:
    """RFC 8439 section 2.3 for a 12-byte nonce (32-bit counter); an 8-byte
    nonce takes a 64-bit counter (the original ChaCha layout)."""
    if len(nonce) == 12:
        words = [counter & 0xFFFFFFFF] + list(struct.unpack("<3I", nonce))
    else:
        words = [counter & 0xFFFFFFFF, counter >> 32 & 0xFFFFFFFF] + list(struct.unpack("<2I", nonce))
    state = list(_SIGMA) + list(struct.unpack("<8I", key)) + words
    x = _permute(state)
    return struct.pack("<16I", *((a + b) & 0xFFFFFFFF for a, b in zip(x, state)))


def chacha20_xor(key: bytes, nonce: bytes, data: bytes, counter: int = 0) -> bytes:
    out = bytearray()
    for i in range(0, len(data), 64):
        ks = chacha20_block(key, counter + i // 64, nonce)
        out += bytes(a ^ b for a, b in zip(data[i:i + 64], ks))
    return bytes(out)


def hchacha20(key: bytes, nonce16: bytes) -> bytes:
    state = list(_SIGMA) + list(struct.unpack("<8I", key)) + list(struct.unpack("<4I", nonce16))
    x = _permute(state)
    return struct.pack("<8I", *(x[0:4] + x[12:16]))


def _pad16(b):
    return b"\x00" * (-len(b) % 16)


def chacha20_poly1305_seal(key: bytes, nonce: bytes, aad: bytes, pt: bytes):
    """RFC 8439 section 2.8 (12-byte nonce; 24 bytes gives XChaCha20-Poly1305)."""
    if len(nonce) == 24:
        key = hchacha20(key, nonce[:16])
        nonce = b"\x00" * 4 + nonce[16:]
    otk = chacha20_block(key, 0, nonce)[:32]
    ct = chacha20_xor(key, nonce, pt, counter=1)
    mac_data = aad + _pad16(aad) + ct + _pad16(ct) + struct.pack("<QQ", len(aad), len(ct))
    return ct, poly1305(otk, mac_data)
