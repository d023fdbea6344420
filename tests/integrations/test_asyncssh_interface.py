"""use_with_asyncssh: poly1305x's Encryption class behaves as asyncssh's own
``ChachaEncryption`` on every input, side by side on the same
inputs: the arguments asyncssh's connection and its test suite pass, the
header/packet/MAC boundary, packet lengths 0-8 as asyncssh's receive loop
slices them, and a key file whose private-section length was moved 3 bytes
into the tag."""
import os
import random

import pytest

from poly1305x import openssh

import asyncssh  # noqa: E402
import asyncssh.encryption as enc  # noqa: E402
from asyncssh.mac import get_mac_algs  # noqa: E402

NAME = b"chacha20-poly1305@openssh.com"
CIPHER = "chacha20-poly1305"


@pytest.fixture
def pair():
    """(poly1305x's Encryption class, asyncssh's own), poly1305x switched on."""
    theirs = enc._enc_params[NAME][0]
    was = openssh.use_with_asyncssh()
    try:
        ours = enc._enc_params[NAME][0]
        assert ours is not theirs and theirs is enc.ChachaEncryption
        yield ours, theirs
    finally:
        openssh.use_with_asyncssh(was)


def test_asyncssh_test_suite_round_trip(pair):
    """asyncssh's tests/test_encryption.py::check_encryption_alg, for chacha
    with every MAC name: random headers that are not the packet's length,
    the first block split off, the tag returned and passed separately."""
    for mac_alg in get_mac_algs():
        _, _, _, mac_keysize, _, etm = enc.get_encryption_params(NAME, mac_alg)
        key = os.urandom(64)
        seq = random.getrandbits(32)
        e = enc.get_encryption(NAME, key, b"", mac_alg, os.urandom(mac_keysize), etm)
        d = enc.get_encryption(NAME, key, b"", mac_alg, b"", etm)
        assert type(e) is pair[0]
        for i in range(2, 6):
            data = os.urandom(4 * etm + 8 * i)
            hdr, packet = data[:4], data[4:]
            encdata, encmac = e.encrypt_packet(seq, hdr, packet)
            assert len(encmac) == 16
            first, rest = encdata[:8], encdata[8:]
            decfirst, dechdr = d.decrypt_header(seq, first, 4)
            assert dechdr == hdr
            assert d.decrypt_packet(seq, decfirst, rest, 4, encmac) == packet
            seq = (seq + 1) & 0xFFFFFFFF


def test_random_inputs_match(pair):
    """Header lengths 0, 2, 4 and 8, headers that hold the length or not,
    packets of 0-40 bytes, sequence numbers at the edges; every way of
    splitting and every kind of MAC (right, cut, long, zero, empty)."""
    rng = random.Random(26)
    for _ in range(150):
        key = rng.randbytes(64)
        seq = rng.choice([0, 1, rng.getrandbits(32), 0xFFFFFFFF])
        hl = rng.choice([0, 2, 4, 4, 8])
        n = rng.randrange(41)
        hdr = n.to_bytes(4, "big") if hl == 4 and rng.random() < 0.5 else rng.randbytes(hl)
        pkt = rng.randbytes(n)
        a = pair[0].new(CIPHER, key, b"")
        b = pair[1].new(CIPHER, key, b"")
        sealed = b.encrypt_packet(seq, hdr, pkt)
        assert a.encrypt_packet(seq, hdr, pkt) == sealed
        data, mac = sealed
        for bs in (4, 8, 16):
            first, rest = data[:bs], data[bs:]
            assert a.decrypt_header(seq, first, hl) == b.decrypt_header(seq, first, hl)
            for m in (mac, mac[:13], mac + b"\0", bytes(16), b""):
                for f, r in ((first, rest), (first[:-1], rest), (first, rest + b"\0")):
                    for h2 in {hl, 0, 4}:
                        assert a.decrypt_packet(seq, f, r, h2, m) == \
                            b.decrypt_packet(seq, f, r, h2, m), (hl, h2, n, bs, len(m))


def receive(cipher, seq, stream):
    """What asyncssh's connection (_recv_pkthdr, _recv_packet) does with one
    packet from ``stream`` and a chacha cipher: its payload, "MAC" for a
    MACError, or "short" when it waits for more data."""
    blocksize, macsize = 8, 16
    first, inp = stream[:blocksize], stream[blocksize:]
    first, pktlen = cipher.decrypt_header(seq, first, 4)
    pktlen = int.from_bytes(pktlen, "big")
    rem = 4 + pktlen + macsize - blocksize
    if len(inp) < rem:
        return "short"
    rest, mac = inp[:rem - macsize], inp[rem - macsize:rem]
    data = cipher.decrypt_packet(seq, first, rest, 4, mac)
    return data if data else "MAC"


@pytest.mark.parametrize("pktlen", range(9))
def test_packet_lengths_0_to_8(pair, pktlen):
    """Authentic packets whose length field is 0-8, sealed the only way a
    sender can (length field, pktlen bytes, tag), with 0-24 bytes after them
    in the buffer: poly1305x accepts exactly what asyncssh's cipher accepts
    (before: lengths 1-3 were accepted, which asyncssh refuses)."""
    rng = random.Random(pktlen)
    key = rng.randbytes(64)
    seq = rng.getrandbits(32)
    body = rng.randbytes(pktlen)
    if pktlen:
        body = bytes([rng.randrange(pktlen)]) + body[1:]    # a padding length that fits
    ct, mac = pair[1].new(CIPHER, key, b"").encrypt_packet(seq, pktlen.to_bytes(4, "big"), body)
    outcomes = set()
    for extra in range(0, 25, 4):
        stream = ct + mac + rng.randbytes(extra)
        theirs = receive(pair[1].new(CIPHER, key, b""), seq, stream)
        ours = receive(pair[0].new(CIPHER, key, b""), seq, stream)
        assert ours == theirs, (pktlen, extra)
        outcomes.add(theirs if isinstance(theirs, str) else "ok")
    if pktlen in (1, 2, 3):
        assert "ok" not in outcomes         # asyncssh's cipher never takes these


def _shift_private_length(data, by=3):
    """The armoured OpenSSH key ``data`` with the length of its encrypted
    private section increased by ``by``: the reader then takes ``by`` bytes of
    the tag as ciphertext and is left with a shorter tag."""
    import base64
    lines = data.decode().strip().splitlines()
    blob = bytearray(base64.b64decode("".join(lines[1:-1])))
    off = 15
    for _ in range(3):          # cipher name, KDF name, KDF options
        off += 4 + int.from_bytes(blob[off:off + 4], "big")
    count = int.from_bytes(blob[off:off + 4], "big")
    off += 4
    for _ in range(count):      # public keys
        off += 4 + int.from_bytes(blob[off:off + 4], "big")
    n = int.from_bytes(blob[off:off + 4], "big")
    blob[off:off + 4] = (n + by).to_bytes(4, "big")
    b64 = base64.b64encode(bytes(blob)).decode()
    body = "\n".join(b64[i:i + 70] for i in range(0, len(b64), 70))
    return f"{lines[0]}\n{body}\n{lines[-1]}\n".encode()


def _import(data, passphrase):
    try:
        return "ok", asyncssh.import_private_key(data, passphrase).export_public_key()
    except Exception as exc:    # noqa: BLE001 - compared between the two
        return type(exc), str(exc)


def test_shifted_length_key_file_refused(pair):
    """A chacha key file whose private-section length was moved 3 bytes into
    the tag: asyncssh's own cipher refuses it, and so does poly1305x (before:
    it joined the pieces and took the last 16 bytes as the tag)."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    good = key.export_private_key("openssh", "pass", cipher_name="chacha20-poly1305@openssh.com",
                                  rounds=2)
    bad = _shift_private_length(good)
    ours_good = _import(good, "pass")
    assert ours_good[0] == "ok"
    ours = _import(bad, "pass")
    openssh.use_with_asyncssh(False)
    try:
        theirs = _import(bad, "pass")
        assert _import(good, "pass") == ours_good
    finally:
        openssh.use_with_asyncssh()
    assert theirs[0] != "ok" and ours == theirs
    assert issubclass(ours[0], (asyncssh.KeyImportError, asyncssh.KeyEncryptionError))
