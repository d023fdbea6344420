"""aioesphomeapi's Noise frame helper, unmodified, on poly1305x.

aioesphomeapi._frame_helper.noise.APINoiseFrameHelper (compiled in the
PyPI wheel) runs the Noise_NNpsk0_25519_ChaChaPoly_SHA256 handshake through
noiseprotocol with its own backend, whose ChaChaPoly cipher builds
chacha20poly1305_reuseable.ChaCha20Poly1305Reusable (cryptography's class),
then seals and opens every API frame with that object's methods.  Here the
helper connects over a loopback socket pair to a device end built from
noiseprotocol on cryptography's own compiled class (``reference``): the
handshake, then packets of 0 bytes to 30,000 each way, on every poly1305x
backend.  A tampered frame must end in aioesphomeapi's EncryptionErrorAPIError,
a tampered handshake answer in InvalidEncryptionKeyAPIError.  The ephemeral
keys are random, so ``transcript`` takes the packets and frame lengths, which
the plain pass and poly1305x's must agree on.
"""
import asyncio
import base64
import contextlib
import hashlib
import socket

import pytest

from aioesphomeapi._frame_helper.noise import APINoiseFrameHelper
from aioesphomeapi._frame_helper.noise_encryption import (
    ESPHOME_NOISE_BACKEND, NOISE_PROTOCOL_NAME)
from aioesphomeapi.connection import APIConnection, ConnectionParams
from aioesphomeapi.core import EncryptionErrorAPIError, InvalidEncryptionKeyAPIError
from aioesphomeapi.zeroconf import ZeroconfManager
from noise.backends.default import DefaultNoiseBackend
from noise.backends.default.ciphers import ChaCha20Cipher
from noise.connection import NoiseConnection

PSK = hashlib.sha256(b"esphome api key").digest()
SIZES = (0, 1, 60, 64, 1000, 4096, 30000)
NAME, MAC = "node", "AA:BB:CC:DD:EE:FF"


def _frame(payload):
    return bytes((1, len(payload) >> 8, len(payload) & 0xFF)) + payload


def _body(size, salt):
    return bytes((i * 13 + salt) % 256 for i in range(size))


class Device(asyncio.Protocol):
    """The device end: noiseprotocol as the responder, its ChaChaPoly on
    cryptography's compiled class; echoes each packet as type + 1."""

    def __init__(self, reference, transcript, tamper=None):
        class Cipher(ChaCha20Cipher):
            klass = property(lambda self: reference)

        backend = DefaultNoiseBackend()
        backend.ciphers["ChaChaPoly"] = Cipher
        self.noise = NoiseConnection.from_name(NOISE_PROTOCOL_NAME, backend=backend)
        self.noise.set_as_responder()
        self.noise.set_psks(PSK)
        self.noise.set_prologue(b"NoiseAPIInit\x00\x00")
        self.noise.start_handshake()
        self.buffer, self.frames, self.received = bytearray(), 0, []
        self.transcript, self.tamper = transcript, tamper

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        self.buffer += data
        while len(self.buffer) >= 3:
            assert self.buffer[0] == 1
            end = 3 + (self.buffer[1] << 8 | self.buffer[2])
            if len(self.buffer) < end:
                return
            frame = bytes(self.buffer[3:end])
            del self.buffer[:end]
            self.frames += 1
            self.transcript.update(b"%d;" % len(frame))
            if self.frames == 1:
                assert frame == b""                           # the client's hello
            elif self.frames == 2:
                assert frame[0] == 0 and self.noise.read_message(frame[1:]) == b""
                answer = bytearray(b"\x00" + self.noise.write_message(b""))
                if self.tamper == "handshake":
                    answer[-1] ^= 0x04
                self.transport.write(_frame(b"\x01" + f"{NAME}\0{MAC}\0".encode()) +
                                     _frame(bytes(answer)))
            else:
                message = self.noise.decrypt(frame)
                kind, data = message[0] << 8 | message[1], message[4:]
                assert message[2] << 8 | message[3] == len(data)
                self.received.append((kind, data))
                self.send(kind + 1, data[::-1])

    def send(self, kind, data):
        sealed = bytearray(self.noise.encrypt(
            bytes((kind >> 8, kind & 0xFF, len(data) >> 8, len(data) & 0xFF)) + data))
        if self.tamper == "frame":
            sealed[len(sealed) // 2] ^= 0x10
        self.transport.write(_frame(bytes(sealed)))


class Owner(APIConnection):
    """The helper's connection: keeps what the helper delivers."""

    def __init__(self):
        params = ConnectionParams(
            addresses=["127.0.0.1"], port=6053, password=None, client_info="poly1305x",
            keepalive=60.0, zeroconf_manager=ZeroconfManager(), noise_psk=None,
            expected_name=NAME, expected_mac=MAC)
        super().__init__(params, lambda expected: None, False, "poly1305x")
        self.packets, self.errors = [], []

    def process_packet(self, msg_type, data):
        self.packets.append((msg_type, bytes(data)))

    def report_fatal_error(self, err):
        self.errors.append(err)


@contextlib.asynccontextmanager
async def _session(reference, transcript, tamper=None):
    """The helper connected to a Device over a socket pair; both closed after."""
    loop = asyncio.get_running_loop()
    ours, theirs = socket.socketpair()
    owner = Owner()
    helper = APINoiseFrameHelper(owner, base64.b64encode(PSK).decode(), NAME, MAC,
                                 "poly1305x", "poly1305x")
    device = Device(reference, transcript, tamper)
    await loop.connect_accepted_socket(lambda: device, sock=theirs)
    await loop.create_connection(lambda: helper, sock=ours)
    try:
        yield owner, helper, device
    finally:
        helper.close()
        device.transport.close()
        await asyncio.sleep(0)


async def _until(condition):
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("timed out")


def test_cipher_served(served):
    assert ESPHOME_NOISE_BACKEND.ciphers["ChaChaPoly"]().klass is served


@pytest.mark.asyncio
async def test_frames_over_a_socket(backend, reference, served, transcript):
    assert ESPHOME_NOISE_BACKEND.ciphers["ChaChaPoly"]().klass is served
    async with _session(reference, transcript) as (owner, helper, device):
        await asyncio.wait_for(helper.ready_future, 10)
        sent = [(7 + n, _body(size, n)) for n, size in enumerate(SIZES)]
        helper.write_packets(sent[:3], False)           # several frames in one write
        for packet in sent[3:]:
            helper.write_packets([packet], False)
        await _until(lambda: len(owner.packets) == len(sent))
        assert device.received == sent
        assert owner.packets == [(kind + 1, data[::-1]) for kind, data in sent]
        assert owner.errors == []
        for kind, data in owner.packets:
            transcript.update(b"%d:" % kind + data)


@pytest.mark.asyncio
async def test_tampered_frame(backend, reference, transcript):
    async with _session(reference, transcript, tamper="frame") as (owner, helper, device):
        await asyncio.wait_for(helper.ready_future, 10)
        helper.write_packets([(9, b"ping")], False)
        await _until(lambda: owner.errors)
        assert device.received == [(9, b"ping")]
        assert owner.packets == []
        assert isinstance(owner.errors[0], EncryptionErrorAPIError)


@pytest.mark.asyncio
async def test_tampered_handshake(backend, reference, transcript):
    async with _session(reference, transcript, tamper="handshake") as (owner, helper, device):
        with pytest.raises(InvalidEncryptionKeyAPIError):
            await asyncio.wait_for(helper.ready_future, 10)
        assert owner.packets == []
        assert type(owner.errors[0]) is InvalidEncryptionKeyAPIError
