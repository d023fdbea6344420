"""aioquic's ChaCha20-Poly1305 packet protection on poly1305x
(``poly1305x.quic.use_with_aioquic``):

* RFC 9001's ChaCha20 vector (Appendix A.5) through aioquic's CryptoPair,
  both ways, with the switch on, on every backend;
* the objects against aioquic's own (payload, header protection, packet
  numbers, errors), byte for byte;
* AES suites stay aioquic's; the switch's on/off/idempotence/thread rules;
* a QUIC connection between two aioquic endpoints in memory, ChaCha20 only,
  counting that poly1305x protected and opened the packets;
* aioquic's own tests (tests/test_crypto_v1.py, test_crypto_v2.py and the
  connection tests) from its sdist, with the switch on (tests/support/peer_plugin.py).
"""
import datetime
import os
import random
import subprocess
import sys
import textwrap
import threading

import pytest

from aioquic import tls
from aioquic._crypto import AEAD as TheirAEAD
from aioquic._crypto import CryptoError
from aioquic._crypto import HeaderProtection as TheirHP
from aioquic.quic import crypto as qcrypto
from aioquic.quic.configuration import QuicConfiguration
from aioquic.quic.connection import QuicConnection
from aioquic.quic.events import StreamDataReceived
from aioquic.tls import CipherSuite

from poly1305x import quic
from poly1305x.quic import QuicChaCha20AEAD, QuicChaCha20HeaderProtection
from tests.support import peer_sdist
from tests.support.helpers import run_threads

# RFC 9001 Appendix A.5 (ChaCha20-Poly1305 short header packet)
A5_SECRET = bytes.fromhex("9ac312a7f877468ebe69422748ad00a15443f18203a07d6060f688f30f21632b")
A5_PN = 654360564
A5_HEADER, A5_PAYLOAD = bytes.fromhex("4200bff4"), bytes.fromhex("01")
A5_PACKET = bytes.fromhex("4cfe4189655e5cd55c41f69080575d7999c25a5bfb")


@pytest.fixture
def switched():
    was = quic.use_with_aioquic()
    try:
        yield
    finally:
        quic.use_with_aioquic(was)
    assert qcrypto.AEAD is TheirAEAD and qcrypto.HeaderProtection is TheirHP


def _a5_pair():
    pair = qcrypto.CryptoPair()
    for ctx in (pair.send, pair.recv):
        ctx.setup(cipher_suite=CipherSuite.CHACHA20_POLY1305_SHA256, secret=A5_SECRET,
                  version=qcrypto.QuicProtocolVersion.VERSION_1)
    return pair


def test_rfc9001_a5_through_cryptopair(switched, backend):
    pair = _a5_pair()
    assert type(pair.send.aead) is QuicChaCha20AEAD and pair.send.aead.backend == backend
    assert type(pair.send.hp) is QuicChaCha20HeaderProtection
    assert pair.encrypt_packet(A5_HEADER, A5_PAYLOAD, A5_PN) == A5_PACKET
    assert pair.decrypt_packet(A5_PACKET, 1, A5_PN) == (A5_HEADER, A5_PAYLOAD, A5_PN)
    with pytest.raises(CryptoError):
        pair.decrypt_packet(A5_PACKET[:-1], 1, A5_PN)


def test_aes_suites_are_aioquic_s(switched):
    pair = qcrypto.CryptoPair()
    pair.setup_initial(cid=bytes(8), is_client=True, version=qcrypto.QuicProtocolVersion.VERSION_1)
    assert type(pair.send.aead) is TheirAEAD and type(pair.send.hp) is TheirHP
    for name, key, hp in ((b"aes-128-gcm", 16, b"aes-128-ecb"), (b"aes-256-gcm", 32, b"aes-256-ecb")):
        assert type(qcrypto.AEAD(name, bytes(key), bytes(12))) is TheirAEAD
        assert type(qcrypto.HeaderProtection(hp, bytes(key))) is TheirHP
    with pytest.raises(CryptoError, match="Invalid cipher name"):
        qcrypto.AEAD(b"chacha20", bytes(32), bytes(12))
    with pytest.raises(CryptoError, match="Invalid iv length"):
        qcrypto.AEAD(b"chacha20-poly1305", bytes(32), bytes(11))
    with pytest.raises(ValueError, match="key must be 32 bytes"):
        qcrypto.AEAD(b"chacha20-poly1305", bytes(31), bytes(12))


@pytest.mark.parametrize("pn", [0, 1, 255, 2**32 + 5, 2**62 - 1, 2**64 - 1, 2**64, 2**90])
def test_payload_matches_aioquic(backend, pn):
    key, iv = os.urandom(32), os.urandom(12)
    theirs, ours = TheirAEAD(b"chacha20-poly1305", key, iv), QuicChaCha20AEAD(key, iv, CryptoError)
    for n in (0, 1, 16, 63, 64, 65, 1200, 1452):
        data, ad = os.urandom(n), os.urandom(1 + n % 40)
        ct = ours.encrypt(data, ad, pn)
        assert ct == theirs.encrypt(data, ad, pn)
        assert ours.decrypt(ct, ad, pn) == data == theirs.decrypt(ct, ad, pn)
        bad = bytes([ct[0] ^ 1]) + ct[1:]
        with pytest.raises(CryptoError) as info:
            ours.decrypt(bad, ad, pn)
        assert str(info.value) == "" and type(info.value.__context__).__name__ == "InvalidTag"
        with pytest.raises(CryptoError):
            ours.decrypt(ct, ad, pn + 1)


@pytest.mark.parametrize("pn", [-1, 2**96, 1.5, "1"])
def test_packet_number_errors_are_aioquic_s(pn):
    key, iv = os.urandom(32), os.urandom(12)
    theirs, ours = TheirAEAD(b"chacha20-poly1305", key, iv), QuicChaCha20AEAD(key, iv, CryptoError)
    for fn in (lambda o: o.encrypt(b"x", b"h", pn), lambda o: o.decrypt(bytes(17), b"h", pn)):
        with pytest.raises(Exception) as mine:
            fn(ours)
        with pytest.raises(Exception) as expected:
            fn(theirs)
        assert (type(mine.value), str(mine.value)) == (type(expected.value), str(expected.value))


def test_header_protection_matches_aioquic(backend):
    rng = random.Random(9001)
    key = bytes(rng.randrange(256) for _ in range(32))
    theirs, ours = TheirHP(b"chacha20", key), QuicChaCha20HeaderProtection(key, CryptoError)

    def outcome(fn):
        try:
            return fn()
        except Exception as exc:
            return type(exc), str(exc)

    for _ in range(3000):
        header = bytes(rng.randrange(256) for _ in range(rng.randint(1, 24)))
        payload = bytes(rng.randrange(256) for _ in range(rng.randint(16, 40)))
        assert outcome(lambda: ours.apply(header, payload)) == \
            outcome(lambda: theirs.apply(header, payload)), (header, payload)
        packet = bytes(rng.randrange(256) for _ in range(rng.randint(0, 70)))
        off = rng.randint(0, 40)
        assert outcome(lambda: ours.remove(packet, off)) == \
            outcome(lambda: theirs.remove(packet, off)), (packet, off)
    with pytest.raises(CryptoError, match="Packet is too short to sample"):
        ours.remove(bytes(19), 0)
    with pytest.raises(ValueError):
        ours.remove(bytes(40), -1)
    with pytest.raises(IndexError):
        ours.apply(b"", bytes(20))


def test_switch_on_off_idempotent_and_rebound_left_alone():
    assert quic.use_with_aioquic() is False
    try:
        served = qcrypto.AEAD
        assert served is not TheirAEAD and quic.use_with_aioquic() is True
        assert qcrypto.AEAD is served                 # a second call changes nothing
    finally:
        assert quic.use_with_aioquic(False) is True
    assert qcrypto.AEAD is TheirAEAD and qcrypto.HeaderProtection is TheirHP
    assert quic.use_with_aioquic(False) is False
    quic.use_with_aioquic()
    mine = object()
    qcrypto.HeaderProtection = mine                   # someone else rebinds one name
    try:
        assert quic.use_with_aioquic(False) is False  # not all in place
        assert qcrypto.HeaderProtection is mine and qcrypto.AEAD is TheirAEAD
    finally:
        qcrypto.HeaderProtection = TheirHP


def test_switch_thread_safety():
    errors, barrier = [], threading.Barrier(6)

    def worker(i):
        try:
            barrier.wait()
            for j in range(300):
                quic.use_with_aioquic((i + j) % 2 == 0)
                pair = _a5_pair()
                assert pair.encrypt_packet(A5_HEADER, A5_PAYLOAD, A5_PN) == A5_PACKET
        except BaseException as exc:
            errors.append(exc)

    try:
        run_threads(worker, 6)
    finally:
        quic.use_with_aioquic(False)
    assert not errors, errors
    assert qcrypto.AEAD is TheirAEAD


def test_without_aioquic():
    code = textwrap.dedent("""
        import sys
        sys.modules["aioquic"] = None
        from poly1305x import quic
        try:
            quic.use_with_aioquic()
        except ImportError as exc:
            print(exc)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60).stdout
    assert out.startswith("poly1305x.quic needs aioquic: pip install") and "[quic]" in out


# ---------------------------------------------------------------------------
# A connection, in memory
# ---------------------------------------------------------------------------

def _certificate():
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(1)
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), False)
            .sign(key, hashes.SHA256()))
    return cert, key


def _exchange(a, b, now):
    moved = 0
    for src, dst in ((a, b), (b, a)):
        for data, _ in src.datagrams_to_send(now=now):
            dst.receive_datagram(data, ("1.2.3.4", 4433), now=now)
            moved += 1
    return moved


def test_loopback_connection_runs_on_poly1305x(switched, monkeypatch):
    counts = {"seal": 0, "open": 0, "apply": 0, "remove": 0}

    class CountingAEAD(QuicChaCha20AEAD):
        def encrypt(self, *args):
            counts["seal"] += 1
            return super().encrypt(*args)

        def decrypt(self, *args):
            counts["open"] += 1
            return super().decrypt(*args)

    class CountingHP(QuicChaCha20HeaderProtection):
        def apply(self, *args):
            counts["apply"] += 1
            return super().apply(*args)

        def remove(self, *args):
            counts["remove"] += 1
            return super().remove(*args)

    monkeypatch.setattr(quic, "QuicChaCha20AEAD", CountingAEAD)
    monkeypatch.setattr(quic, "QuicChaCha20HeaderProtection", CountingHP)
    cert, key = _certificate()
    suites = [CipherSuite.CHACHA20_POLY1305_SHA256]
    client_cfg = QuicConfiguration(is_client=True, cipher_suites=suites, server_name="localhost",
                                   verify_mode=0)
    server_cfg = QuicConfiguration(is_client=False, cipher_suites=suites)
    server_cfg.certificate, server_cfg.private_key = cert, key
    client = QuicConnection(configuration=client_cfg)
    server = QuicConnection(configuration=server_cfg,
                            original_destination_connection_id=client.original_destination_connection_id)
    now = 1000.0
    client.connect(("1.2.3.4", 4433), now=now)
    for _ in range(10):
        now += 0.01
        _exchange(client, server, now)
    assert client.tls.key_schedule.cipher_suite == CipherSuite.CHACHA20_POLY1305_SHA256
    message = os.urandom(100_000)
    stream = client.get_next_available_stream_id()
    client.send_stream_data(stream, message, end_stream=True)
    received = b""
    for _ in range(200):
        now += 0.01
        if not _exchange(client, server, now):
            break
        while (event := server.next_event()) is not None:
            if isinstance(event, StreamDataReceived):
                received += event.data
    assert received == message
    assert counts["seal"] >= 80 and counts["open"] >= 80, counts    # 100 kB: ~85 packets
    assert counts["apply"] == counts["seal"] and counts["remove"] >= counts["open"], counts


# ---------------------------------------------------------------------------
# aioquic's own tests
# ---------------------------------------------------------------------------

def test_aioquic_own_tests_with_the_switch_on():
    root = peer_sdist.fetch("aioquic")
    proc, counts = peer_sdist.run(root, "aioquic", [
        "tests/test_crypto_v1.py", "tests/test_crypto_v2.py", "tests/test_connection.py"])
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert " failed" not in out.splitlines()[-1], out[-3000:]
    assert counts["quic_seal"] > 0 and counts["quic_open"] > 0, counts
    assert counts["quic_hp"] > 0, counts
