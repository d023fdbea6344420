"""poly1305x.noise.encrypt_many / decrypt_many: batches of transport messages
of a real noiseprotocol connection, read one by one by the other side (which
runs on noiseprotocol's own cipher, or on poly1305x), and the other way
round; the nonce counter as many single calls leave it; a forged message in a
batch (noiseprotocol's NoiseInvalidMessage, nothing returned, counter kept);
a connection on noiseprotocol's cipher; the handshake and length checks."""
import random

import pytest

from poly1305x import noise as pnoise
from tests.integrations.test_noise import _handshake

from noise.backends.default import noise_backend as default_backend
from noise.connection import NoiseConnection
from noise.exceptions import NoiseHandshakeError, NoiseInvalidMessage

NAME = b"Noise_XX_25519_ChaChaPoly_SHA256"


def _messages(rng, count):
    return [rng.randbytes(rng.choice([0, 1, 64, 100, 1000, 1500, 65535 - 16]))
            for _ in range(count)]


@pytest.mark.parametrize("peer", ["default", "poly1305x"])
def test_batches_read_one_by_one_and_back(backend, peer):
    rng = random.Random(peer)
    other = default_backend if peer == "default" else pnoise.backend()
    init, resp = _handshake(NAME, pnoise.backend(), other)
    for count in (1, 5, 40):
        msgs = _messages(rng, count)
        cts = pnoise.encrypt_many(init, msgs)
        assert [resp.decrypt(c) for c in cts] == msgs
        # the counter moved by count: single calls carry on from there
        assert resp.decrypt(init.encrypt(b"after")) == b"after"
        back = [resp.encrypt(m) for m in msgs]
        assert pnoise.decrypt_many(init, back) == msgs
        assert init.decrypt(resp.encrypt(b"next")) == b"next"
    assert init.noise_protocol.cipher_state_encrypt.n == 3 + 46


def test_forged_message_in_a_batch():
    init, resp = _handshake(NAME, pnoise.backend(), pnoise.backend())
    msgs = [b"secret %d" % i for i in range(10)]
    cts = pnoise.encrypt_many(init, msgs)
    forged = list(cts)
    forged[6] = forged[6][:-1] + bytes([forged[6][-1] ^ 1])
    before = resp.noise_protocol.cipher_state_decrypt.n
    with pytest.raises(NoiseInvalidMessage, match=r"\[6\]") as info:
        pnoise.decrypt_many(resp, forged)
    assert b"secret" not in str(info.value).encode()
    assert resp.noise_protocol.cipher_state_decrypt.n == before
    assert pnoise.decrypt_many(resp, cts) == msgs


def test_connection_on_noiseprotocols_cipher():
    init, resp = _handshake(NAME, default_backend, default_backend)
    msgs = [b"a", b"bc", bytes(300)]
    assert [resp.decrypt(c) for c in pnoise.encrypt_many(init, msgs)] == msgs
    assert pnoise.decrypt_many(init, [resp.encrypt(m) for m in msgs]) == msgs


def test_checks_with_noiseprotocols_exceptions():
    conn = NoiseConnection.from_name(NAME, backend=pnoise.backend())
    with pytest.raises(NoiseHandshakeError):
        pnoise.encrypt_many(conn, [b"x"])
    init, resp = _handshake(NAME, pnoise.backend(), pnoise.backend())
    n = init.noise_protocol.cipher_state_encrypt.n
    for bad in (["text"], [b"x", bytearray(b"y")], [bytes(65536)]):
        with pytest.raises(NoiseInvalidMessage, match=r"messages\[\d\]"):
            pnoise.encrypt_many(init, bad)
    assert init.noise_protocol.cipher_state_encrypt.n == n
