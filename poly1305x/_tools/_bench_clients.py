"""The client rows of the benchmark: the per-frame and per-packet calls of
real clients, each against the code it replaces, in the same run.

* ``hap-frame`` (1 KiB): HAP-python's / aiohomekit's frame seal, the
  ``encrypt(nonce, frame, length)`` of the ChaCha20Poly1305 class their
  session binds (nonce: 4 zero bytes and the 64-bit little-endian frame
  counter; associated data: the 2-byte frame length), with the class looked
  up from ``cryptography.hazmat.primitives.ciphers.aead`` after
  ``poly1305x.install("cryptography")`` and before;
* ``esphome-frame`` (64 B): aioesphomeapi's Noise transport frame, the call
  noiseprotocol's cryptography backend makes, ``encrypt(nonce=..., data=...,
  associated_data=b"")`` with keywords, through the same two classes;
* ``aioquic-packet`` (1,200 B): aioquic's ``CryptoContext.encrypt_packet``
  of a 1-RTT ChaCha20-Poly1305 packet (payload protection, then header
  protection), its keys set up with ``poly1305x.quic.use_with_aioquic()`` on
  and off.

Each switch is on only while a case is built; the callable keeps the objects
it was built with.
"""
from functools import partial

HAP_OPERATION, ESPHOME_OPERATION, QUIC_OPERATION = "hap-frame", "esphome-frame", "aioquic-packet"
QUIC_PACKET = 1200
_KEY = bytes(range(32))
_SECRET = bytes(range(32, 64))

OPERATIONS = {
    HAP_OPERATION: "HAP frame seal (HAP-python, aiohomekit): encrypt(nonce, frame, length) of "
                   "cryptography's ChaCha20Poly1305 name, after install('cryptography') "
                   "and before",
    ESPHOME_OPERATION: "ESPHome Noise frame seal (noiseprotocol's call, with keywords) of "
                       "cryptography's ChaCha20Poly1305 name, after install('cryptography') "
                       "and before",
    QUIC_OPERATION: "aioquic CryptoContext.encrypt_packet of a 1,200-byte ChaCha20 1-RTT "
                    "packet (payload and header protection), use_with_aioquic() on and off",
}


def _cryptography_class(installed):
    """cryptography's ChaCha20Poly1305 name as a client binds it, with
    install("cryptography") on or off (put back as it was)."""
    import poly1305x
    from poly1305x import _install
    was = "cryptography.hazmat.primitives.ciphers.aead.ChaCha20Poly1305" in _install.installed()
    if installed:
        poly1305x.install("cryptography")
    elif was:
        poly1305x.uninstall("cryptography")
    try:
        from cryptography.hazmat.primitives.ciphers import aead
        return aead.ChaCha20Poly1305
    finally:
        if was and not installed:
            poly1305x.install("cryptography")
        elif installed and not was:
            poly1305x.uninstall("cryptography")


def hap_frame(installed):
    def maker(size):
        cipher = _cryptography_class(installed)(_KEY)
        nonce = bytes(4) + (12345).to_bytes(8, "little")
        frame = bytes(i & 255 for i in range(size))
        return partial(cipher.encrypt, nonce, frame, size.to_bytes(2, "little"))
    return maker


def esphome_frame(installed):
    def maker(size):
        cipher = _cryptography_class(installed)(_KEY)
        nonce = bytes(4) + (12345).to_bytes(8, "little")
        return partial(cipher.encrypt, nonce=nonce, data=bytes(size), associated_data=b"")
    return maker


def aioquic_packet(ours):
    def maker(size):
        from aioquic.quic.crypto import CryptoContext
        from aioquic.quic.packet import QuicProtocolVersion
        from aioquic.tls import CipherSuite
        from poly1305x import quic
        was = quic.use_with_aioquic(ours)
        try:
            ctx = CryptoContext()
            ctx.setup(cipher_suite=CipherSuite.CHACHA20_POLY1305_SHA256, secret=_SECRET,
                      version=QuicProtocolVersion.VERSION_1)
        finally:
            quic.use_with_aioquic(was)
        header = bytes([0x41]) + bytes(range(8)) + (0x1234).to_bytes(2, "big")  # 1-RTT, 2-byte pn
        payload = bytes(size - len(header) - 16)
        return partial(ctx.encrypt_packet, header, payload, 0x1234)
    return maker


def cases(case):
    """The client rows as _bench.Case objects (``case`` is that class)."""
    return [
        case(HAP_OPERATION, "poly1305x", hap_frame(True), sizes=(1024,),
             variant="install('cryptography')", needs=("cryptography",)),
        case(HAP_OPERATION, "cryptography", hap_frame(False), sizes=(1024,)),
        case(ESPHOME_OPERATION, "poly1305x", esphome_frame(True), sizes=(64,),
             variant="install('cryptography')", needs=("cryptography",)),
        case(ESPHOME_OPERATION, "cryptography", esphome_frame(False), sizes=(64,)),
        case(QUIC_OPERATION, "poly1305x", aioquic_packet(True), sizes=(QUIC_PACKET,),
             variant="use_with_aioquic()", needs=("aioquic",)),
        case(QUIC_OPERATION, "aioquic", aioquic_packet(False), sizes=(QUIC_PACKET,)),
    ]
