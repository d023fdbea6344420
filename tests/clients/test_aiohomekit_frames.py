"""aiohomekit's HAP session encryption, unmodified, on poly1305x.

aiohomekit.controller.ip.connection.SecureHomeKitProtocol seals every block
a controller sends and opens every block an accessory sends with
aiohomekit.crypto.chacha20poly1305's Encryptor and Decryptor, which bind
chacha20poly1305_reuseable.ChaCha20Poly1305Reusable (cryptography's class)
at import.  Here the protocol runs over a loopback socket pair against an
accessory end written on cryptography's own compiled class (``reference``):
requests of 1 byte to several blocks of 1,024 go out, responses and events
come back split at odd places, on every poly1305x backend.  A tampered block
must end in aiohomekit's "Could not decrypt block".  The BLE session keys
(controller.ble.key) and the CoAP encryption context (controller.coap) are
driven the same way.  The session keys are fixed, so the bytes on the wire
are the same in the plain pass and in poly1305x's (``transcript``).
"""
import asyncio
import hashlib
import socket
import struct

import pytest

from aiohomekit.controller.ble.key import DecryptionKey, EncryptionKey
from aiohomekit.controller.coap import connection as coap
from aiohomekit.controller.ip.connection import SecureHomeKitProtocol
from cryptography.exceptions import InvalidTag

A2C = hashlib.sha256(b"accessory to controller").digest()
C2A = hashlib.sha256(b"controller to accessory").digest()
SIZES = (1, 63, 64, 1023, 1024, 1025, 3000, 5000)


def _nonce(counter):
    return struct.pack("<4xQ", counter)


def _body(size):
    return bytes(i * 7 % 251 for i in range(size))


def _message(start, body):
    return b"%s\r\nContent-Type: application/hap+json\r\nContent-Length: %d\r\n\r\n%s" % (
        start, len(body), body)


class Accessory(asyncio.Protocol):
    """The accessory end: opens the controller's blocks, answers each
    request with an event and a response, sealed in blocks of 1,024."""

    def __init__(self, reference, wire):
        self.open, self.seal = reference(C2A), reference(A2C)
        self.opened = self.sealed = 0
        self.buffer, self.request, self.expected = bytearray(), bytearray(), None
        self.wire = wire

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.wire.update(data)
        self.buffer += data
        while len(self.buffer) >= 2:
            end = 2 + int.from_bytes(self.buffer[:2], "little") + 16
            if len(self.buffer) < end:
                return
            length, block = bytes(self.buffer[:2]), bytes(self.buffer[2:end])
            del self.buffer[:end]
            self.request += self.open.decrypt(_nonce(self.opened), block, length)
            self.opened += 1
            request, size = self.expected
            if len(self.request) == len(request):
                assert self.request == request
                self.request.clear()
                self.reply(size)

    def reply(self, size):
        plain = (_message(b"EVENT/1.0 200 OK", _body(size // 3 + 1)) +
                 _message(b"HTTP/1.1 200 OK", _body(size)[::-1]))
        out = bytearray()
        for at in range(0, len(plain), 1024):
            block = plain[at:at + 1024]
            length = struct.pack("<H", len(block))
            out += length + self.seal.encrypt(_nonce(self.sealed), block, length)
            self.sealed += 1
        self.wire.update(out)
        for at in range(0, len(out), 700):      # split mid-block
            self.transport.write(out[at:at + 700])


class Owner:
    """What SecureHomeKitProtocol calls back on its connection."""

    def __init__(self):
        self.events = []

    def event_received(self, response):
        self.events.append(bytes(response.body))

    def _connection_lost(self, exc):
        pass


@pytest.mark.asyncio
async def test_session_over_a_socket(backend, reference, served, transcript):
    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair()
    owner = Owner()
    protocol = SecureHomeKitProtocol(owner, a2c_key=A2C, c2a_key=C2A)
    assert type(protocol.encryptor.chacha) is served
    assert type(protocol.decryptor.chacha) is served
    accessory = Accessory(reference, transcript)
    await loop.create_connection(lambda: protocol, sock=ours)
    await loop.connect_accepted_socket(lambda: accessory, sock=theirs)
    try:
        for size in SIZES:
            request = _message(b"PUT /characteristics HTTP/1.1", _body(size))
            accessory.expected = request, size
            response = await asyncio.wait_for(protocol.send_bytes(request), 10)
            assert response.code == 200
            assert bytes(response.body) == _body(size)[::-1]
            assert owner.events[-1] == _body(size // 3 + 1)
        assert len(owner.events) == len(SIZES)
        assert protocol.c2a_counter == accessory.opened > len(SIZES)
        assert protocol.a2c_counter == accessory.sealed > len(SIZES)
    finally:
        protocol.transport.close()
        accessory.transport.close()
        await asyncio.sleep(0)


@pytest.mark.asyncio
@pytest.mark.parametrize("where", [2, 40, -1])
async def test_tampered_block(backend, reference, where):
    protocol = SecureHomeKitProtocol(Owner(), a2c_key=A2C, c2a_key=C2A)
    block = _message(b"HTTP/1.1 200 OK", b"{}")
    length = struct.pack("<H", len(block))
    frame = bytearray(length + reference(A2C).encrypt(_nonce(0), block, length))
    frame[where] ^= 0x01
    with pytest.raises(RuntimeError, match="Could not decrypt block") as info:
        protocol.data_received(bytes(frame))
    assert isinstance(info.value.__cause__, InvalidTag)
    assert protocol.a2c_counter == 0


def test_ble_session_keys(backend, reference, served, transcript):
    sender, receiver = EncryptionKey(C2A), DecryptionKey(A2C)
    assert type(sender.key.chacha) is served and type(receiver.key.chacha) is served
    opener, sealer = reference(C2A), reference(A2C)
    for counter, size in enumerate(SIZES):
        sealed = sender.encrypt(_body(size))
        transcript.update(sealed)
        assert opener.decrypt(_nonce(counter), sealed, b"") == _body(size)
        assert receiver.decrypt(sealer.encrypt(_nonce(counter), _body(size), b"")) == _body(size)
    forged = bytearray(sealer.encrypt(_nonce(len(SIZES)), b"x" * 20, b""))
    forged[-1] ^= 0x80
    with pytest.raises(InvalidTag):
        receiver.decrypt(bytes(forged))


def test_coap_encryption_context(backend, reference, served, transcript):
    recv, send, event = (hashlib.sha256(label).digest() for label in (b"r", b"s", b"e"))
    context = coap.EncryptionContext(coap.ChaCha20Poly1305(recv), coap.ChaCha20Poly1305(send),
                                     coap.ChaCha20Poly1305(event), "coap://[::1]/", None)
    assert type(context.send_ctx) is served
    for counter, size in enumerate(SIZES):
        sealed = context.encrypt(_body(size))
        transcript.update(sealed)
        assert reference(send).decrypt(_nonce(counter), sealed, b"") == _body(size)
        reply = reference(recv).encrypt(_nonce(counter), _body(size)[::-1], b"")
        assert context.decrypt(reply) == _body(size)[::-1]
        note = reference(event).encrypt(_nonce(counter), _body(size // 2), b"")
        assert context.decrypt_event(note) == _body(size // 2)
    with pytest.raises(InvalidTag):
        context.decrypt(reference(send).encrypt(_nonce(len(SIZES)), b"x", b""))
