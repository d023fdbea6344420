"""poly1305x.noise: noiseprotocol's ChaChaPoly cipher on poly1305x.

* the Noise test vectors noiseprotocol's own suite runs (cacophony and
  snow-multipsk), ChaChaPoly entries, with poly1305x as the initiator and as
  the responder;
* a handshake and 1,000 transport messages each way between a poly1305x side
  and a default side, for several patterns;
* a tampered transport message: noiseprotocol's NoiseInvalidMessage, no
  plaintext;
* use_with_noiseprotocol on/off.
"""
import json
import os
import sys

import pytest

import poly1305x
from poly1305x import noise as pnoise
from poly1305x._core._engine import ChaCha20Poly1305 as EngineAEAD
from tests.support.helpers import refuse_import

from noise.backends.default import noise_backend as default_backend
from noise.connection import Keypair, NoiseConnection
from noise.exceptions import NoiseInvalidMessage

VECTORS = json.load(open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "vectors",
                                      "noise_chachapoly.json")))["vectors"]


def _ours(conn):
    """Whether both cipher states of a finished connection run on poly1305x."""
    states = [conn.noise_protocol.cipher_state_encrypt, conn.noise_protocol.cipher_state_decrypt]
    return [isinstance(s.cipher.cipher, EngineAEAD) for s in states if s is not None]


def _setup(name, backend, initiator, prologue=b"", keys=(), psks=None):
    conn = NoiseConnection.from_name(name, backend=backend)
    if psks is not None:
        conn.set_psks(psks=psks)
    conn.set_prologue(prologue)
    conn.set_as_initiator() if initiator else conn.set_as_responder()
    for setter, which, value in keys:
        getattr(conn, setter)(which, value)
    return conn


def _keys(vector, role):
    out = []
    for field, setter, which in (("_static", "set_keypair_from_private_bytes", Keypair.STATIC),
                                 ("_ephemeral", "set_keypair_from_private_bytes", Keypair.EPHEMERAL),
                                 ("_remote_static", "set_keypair_from_public_bytes",
                                  Keypair.REMOTE_STATIC)):
        if role + field in vector:
            out.append((setter, which, bytes.fromhex(vector[role + field])))
    return out


#: Which side runs on poly1305x.  Each vector runs twice, poly1305x as the
#: initiator and as the responder: between them poly1305x writes (and the
#: vector checks) every message, and reads every message the other wrote.
SIDES = {"initiator": ("ours", "default"), "responder": ("default", "ours")}


@pytest.mark.filterwarnings("ignore:One of ephemeral keypairs is already set")
@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v["protocol_name"] + "/" + v["_file"][14:-4])
def test_vectors(vector):
    for side in sorted(SIDES):
        _run_vector(vector, side)


def _run_vector(vector, side):
    backends = [pnoise.backend() if s == "ours" else default_backend for s in SIDES[side]]
    name = vector["protocol_name"].encode()
    psks = {r: [bytes.fromhex(k) for k in vector[r + "_psks"]] if r + "_psks" in vector else None
            for r in ("init", "resp")}
    init = _setup(name, backends[0], True, bytes.fromhex(vector["init_prologue"]),
                  _keys(vector, "init"), psks["init"])
    resp = _setup(name, backends[1], False, bytes.fromhex(vector["resp_prologue"]),
                  _keys(vector, "resp"), psks["resp"])
    init.start_handshake()
    resp.start_handshake()
    one_way = init.noise_protocol.pattern.one_way
    forward = True
    for message in vector["messages"]:
        payload, expected = bytes.fromhex(message["payload"]), bytes.fromhex(message["ciphertext"])
        if not (init.handshake_finished and resp.handshake_finished):
            sender, receiver = (init, resp) if forward else (resp, init)
            sent = bytes(sender.write_message(payload))
            assert sent == expected
            assert bytes(receiver.read_message(sent)) == payload
        else:
            sender, receiver = (init, resp) if (forward or one_way) else (resp, init)
            sent = sender.encrypt(payload)
            assert sent == expected
            assert receiver.decrypt(sent) == payload
        forward = not forward
    assert init.handshake_finished and resp.handshake_finished
    if "handshake_hash" in vector:
        assert init.get_handshake_hash() == bytes.fromhex(vector["handshake_hash"])
    assert _ours(init) == [SIDES[side][0] == "ours"] * len(_ours(init))
    assert _ours(resp) == [SIDES[side][1] == "ours"] * len(_ours(resp))


def test_vectors_cover_the_patterns():
    names = {v["protocol_name"] for v in VECTORS}
    assert all("_ChaChaPoly_" in n for n in names)
    for pattern in ("NN", "XX", "IK", "KK", "N", "K", "X", "XXpsk3", "NNpsk0", "IKpsk2"):
        assert any(n.startswith(f"Noise_{pattern}_") for n in names), pattern
    assert {n.split("_")[2] for n in names} == {"25519", "448"}
    assert {n.split("_")[4] for n in names} == {"SHA256", "SHA512", "BLAKE2s", "BLAKE2b"}


# -- live sessions: poly1305x on one side, the default on the other ----------

def _handshake(name, init_backend, resp_backend):
    init = _setup(name, init_backend, True)
    resp = _setup(name, resp_backend, False)
    for conn in (init, resp):
        conn.set_keypair_from_private_bytes(Keypair.STATIC, os.urandom(32))
    if b"_IK_" in name or b"_KK_" in name:
        init.set_keypair_from_public_bytes(
            Keypair.REMOTE_STATIC, resp.noise_protocol.keypairs["s"].public_bytes)
    if b"_KK_" in name:
        resp.set_keypair_from_public_bytes(
            Keypair.REMOTE_STATIC, init.noise_protocol.keypairs["s"].public_bytes)
    init.start_handshake()
    resp.start_handshake()
    sender, receiver = init, resp
    while not (init.handshake_finished and resp.handshake_finished):
        payload = os.urandom(17)
        assert bytes(receiver.read_message(sender.write_message(payload))) == payload
        sender, receiver = receiver, sender
    return init, resp


@pytest.mark.parametrize("name", [b"Noise_XX_25519_ChaChaPoly_SHA256", b"Noise_XX_25519_ChaChaPoly_BLAKE2s",
                                  b"Noise_IK_25519_ChaChaPoly_BLAKE2b", b"Noise_KK_25519_ChaChaPoly_SHA512",
                                  b"Noise_NN_25519_ChaChaPoly_SHA256"])
@pytest.mark.parametrize("ours", ["initiator", "responder"])
def test_thousand_messages_each_way(name, ours, backend):
    mine = pnoise.backend()
    init, resp = _handshake(name, *((mine, default_backend) if ours == "initiator"
                                    else (default_backend, mine)))
    poly, other = (init, resp) if ours == "initiator" else (resp, init)
    assert _ours(poly) == [True, True] and _ours(other) == [False, False]
    assert poly.noise_protocol.cipher_state_encrypt.cipher.backend == backend
    for i in range(1000):
        msg = os.urandom(i % 300 + (i == 999) * 16000)
        assert other.decrypt(poly.encrypt(msg)) == msg
        assert poly.decrypt(other.encrypt(msg)) == msg
    # rekey (Noise section 11.3) keeps both sides in step
    poly.rekey_outbound_cipher()
    other.rekey_inbound_cipher()
    assert other.decrypt(poly.encrypt(b"after rekey")) == b"after rekey"
    assert poly.noise_protocol.cipher_state_encrypt.n == 1001


@pytest.mark.parametrize("receiver_is_ours", [True, False])
def test_tampered_transport_message(receiver_is_ours):
    mine = pnoise.backend()
    init, resp = _handshake(b"Noise_XX_25519_ChaChaPoly_SHA256",
                            default_backend if receiver_is_ours else mine,
                            mine if receiver_is_ours else default_backend)
    ct = init.encrypt(b"top secret payload")
    for pos in (0, len(ct) // 2, len(ct) - 1):
        bad = bytearray(ct)
        bad[pos] ^= 0x80
        n = resp.noise_protocol.cipher_state_decrypt.n
        with pytest.raises(NoiseInvalidMessage):
            resp.decrypt(bytes(bad))
        # the nonce did not advance: the genuine message still opens
        assert resp.noise_protocol.cipher_state_decrypt.n == n
    with pytest.raises(NoiseInvalidMessage):
        resp.decrypt(ct[:-1])
    assert resp.decrypt(ct) == b"top secret payload"


# -- the switch and the backend object ---------------------------------------

def test_use_with_noiseprotocol():
    was = pnoise.use_with_noiseprotocol(False)
    try:
        original = default_backend.ciphers["ChaChaPoly"]
        assert pnoise.use_with_noiseprotocol() is False
        assert pnoise.use_with_noiseprotocol() is True
        assert default_backend.ciphers["ChaChaPoly"] is pnoise.ChaChaPolyCipher
        init, resp = _handshake(b"Noise_XX_25519_ChaChaPoly_SHA256", default_backend, default_backend)
        assert _ours(init) == _ours(resp) == [True, True]
        assert resp.decrypt(init.encrypt(b"m")) == b"m"
        # AES-GCM is not touched
        assert default_backend.ciphers["AESGCM"].__module__.startswith("noise.")
        assert pnoise.use_with_noiseprotocol(False) is True
        assert pnoise.use_with_noiseprotocol(False) is False
        assert default_backend.ciphers["ChaChaPoly"] is original
        # a connection made while it was on keeps poly1305x
        assert resp.decrypt(init.encrypt(b"n")) == b"n" and _ours(init) == [True, True]
        init, resp = _handshake(b"Noise_XX_25519_ChaChaPoly_SHA256", default_backend, default_backend)
        assert _ours(init) == [False, False]
    finally:
        pnoise.use_with_noiseprotocol(was)


def test_backend_object():
    b = pnoise.backend()
    assert b is not pnoise.backend() and b is not default_backend
    assert b.ciphers["ChaChaPoly"] is pnoise.ChaChaPolyCipher
    assert b.ciphers["AESGCM"] is default_backend.ciphers["AESGCM"]
    assert b.hashes == default_backend.hashes and b.diffie_hellmans == default_backend.diffie_hellmans
    c = pnoise.ChaChaPolyCipher()
    c.initialize(bytes(32))
    assert c.backend == poly1305x.backend()
    # ENCRYPT(k, n, ad, p) with n = 1: nonce 00000000 || 0100000000000000
    assert c.encrypt(None, 1, b"ad", b"p") == EngineAEAD(bytes(32)).encrypt(
        bytes(4) + (1).to_bytes(8, "little"), b"p", b"ad")
    with pytest.raises(AttributeError):
        pnoise.NoSuchName  # noqa: B018


def test_without_noiseprotocol(monkeypatch):
    refuse_import(monkeypatch, "noise")
    # as in a process that never had noiseprotocol: its side is not loaded either
    monkeypatch.delitem(sys.modules, "poly1305x._noise_peer", raising=False)
    for call in (pnoise.backend, pnoise.use_with_noiseprotocol):
        with pytest.raises(ImportError, match=r"pip install -e '\.\[noise\]'.*'noiseprotocol>="):
            call()
