"""chacha20-poly1305@openssh.com packets (poly1305x.openssh.PacketCipher),
against asyncssh's own implementation and against OpenSSH's ssh client on
loopback."""
import asyncio
import hashlib
import os
import random
import shutil
import struct
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import poly1305x
from poly1305x import InvalidTag, openssh
from poly1305x.openssh import PacketCipher
from tests.support.helpers import flipped, run_threads

ALG = b"chacha20-poly1305@openssh.com"
SEQS = [0, 1, 2, 255, 256, 0x01020304, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1]
# packet lengths (with the 4-byte length field): tiny, around the one-call
# short path (payload 448 bytes), the GIL threshold, the 16 KiB slices, big.
LENGTHS = sorted({5, 6, 8, 15, 16, 17, 20, 36, 63, 64, 65, 67, 68, 69, 127, 128, 132,
                  450, 451, 452, 453, 454, 516, 517, 1000, 4095, 4096, 4097,
                  16383, 16387, 16388, 16389, 32768, 32772, 35000})


def asyncssh_enc(key):
    from asyncssh.encryption import get_encryption

    return get_encryption(ALG, key, b"")


def packet(n, rng=random):
    """A plaintext packet of n bytes: length field, then random bytes."""
    return struct.pack(">I", n - 4) + rng.randbytes(n - 4)


def check_against_asyncssh(key, seq, pkt):
    theirs = asyncssh_enc(key)
    pc = PacketCipher(key)
    ct, tag = theirs.encrypt_packet(seq, pkt[:4], pkt[4:])
    wire = pc.seal(seq, pkt)
    assert wire == ct + tag
    # each side reads the other's
    assert pc.decrypt_length(seq, ct[:4]) == len(pkt) - 4
    assert pc.open(seq, ct + tag) == pkt
    _, hdr = theirs.decrypt_header(seq, wire[:4], 4)
    assert hdr == pkt[:4]
    assert theirs.decrypt_packet(seq, wire[:4], wire[4:-16], 4, wire[-16:]) == pkt[4:]


@pytest.mark.parametrize("n", LENGTHS)
def test_differential_lengths(n):
    rng = random.Random(n)
    for seq in (0, rng.randrange(2 ** 32), 2 ** 32 - 1):
        check_against_asyncssh(rng.randbytes(64), seq, packet(n, rng))


@pytest.mark.parametrize("seq", SEQS)
def test_differential_seqnr(seq):
    rng = random.Random(seq)
    for n in (5, 64, 600, 5000):
        check_against_asyncssh(rng.randbytes(64), seq, packet(n, rng))


@settings(max_examples=200, deadline=None)
@given(key=st.binary(min_size=64, max_size=64), seq=st.integers(0, 2 ** 32 - 1),
       body=st.binary(min_size=1, max_size=3000))
def test_differential_hypothesis(key, seq, body):
    check_against_asyncssh(key, seq, struct.pack(">I", len(body)) + body)


def test_every_length_5_to_600():
    rng = random.Random(5)
    key = rng.randbytes(64)
    theirs = asyncssh_enc(key)
    pc = PacketCipher(key)
    for n in range(5, 601):
        pkt = packet(n, rng)
        ct, tag = theirs.encrypt_packet(n, pkt[:4], pkt[4:])
        assert pc.seal(n, pkt) == ct + tag, n
        assert pc.open(n, ct + tag) == pkt


def test_key_halves():
    """K_2 (main) = key[0:32] keys payload and tag, K_1 = key[32:64] only the
    length: changing the second half changes only the first 4 bytes."""
    key = bytes(range(64))
    pkt = packet(100)
    a = PacketCipher(key).seal(9, pkt)
    b = PacketCipher(key[:32] + bytes(32)).seal(9, pkt)
    c = PacketCipher(bytes(32) + key[32:]).seal(9, pkt)
    assert a[:4] != b[:4] and a[4:-16] == b[4:-16]
    assert a[:4] == c[:4] and a[4:-16] != c[4:-16] and a[-16:] != c[-16:]


def test_reference_construction():
    """The construction spelled out with the package's own ChaCha20 (8-byte
    nonce, 64-bit counter) and Poly1305: the PROTOCOL.chacha20poly1305 steps."""
    from poly1305x import ChaCha20
    from poly1305x.mac import Poly1305

    rng = random.Random(1)
    key = rng.randbytes(64)
    for seq, n in ((0, 5), (7, 100), (2 ** 32 - 1, 5000)):
        pkt = packet(n, rng)
        nonce = struct.pack(">Q", seq)
        main = ChaCha20.new(key=key[:32], nonce=nonce)
        polykey = main.encrypt(bytes(64))[:32]
        body = main.encrypt(pkt[4:])            # continues at block 1
        length = ChaCha20.new(key=key[32:], nonce=nonce).encrypt(pkt[:4])
        tag = Poly1305.generate_tag(polykey, length + body)
        assert PacketCipher(key).seal(seq, pkt) == length + body + tag


def test_open_tampering():
    rng = random.Random(2)
    key = rng.randbytes(64)
    pc = PacketCipher(key)
    for n in (5, 68, 500, 5000, 35000):
        pkt = packet(n, rng)
        wire = pc.seal(77, pkt)
        spots = list(range(4)) + [4, 5, len(wire) // 2, len(wire) - 17] + \
            list(range(len(wire) - 16, len(wire)))
        for i in spots:
            for mask in (0x01, 0x80):
                with pytest.raises(InvalidTag):
                    pc.open(77, flipped(wire, i, mask))
        # wrong sequence number, wrong key, truncation, extension
        for seq in (76, 78, 77 + 2 ** 31):
            with pytest.raises(InvalidTag):
                pc.open(seq, wire)
        # The tag covers the *encrypted* length, not K_1: a wrong K_1 passes the
        # tag but decrypts another length, which open() refuses.
        with pytest.raises(ValueError, match="packet_length"):
            PacketCipher(key[:32] + bytes(32)).open(77, wire)
        with pytest.raises(InvalidTag):
            PacketCipher(bytes(32) + key[32:]).open(77, wire)
        for cut in (1, 15, 16):
            with pytest.raises(ValueError):
                pc.open(77, wire[:-cut])
        with pytest.raises(ValueError):
            pc.open(77, wire + b"\x00")
        assert pc.open(77, wire) == pkt


def test_invalid_tag_is_the_package_exception():
    pc = PacketCipher(bytes(64))
    wire = bytearray(pc.seal(0, packet(40)))
    wire[-1] ^= 1
    with pytest.raises(poly1305x.InvalidTag) as info:
        pc.open(0, bytes(wire))
    assert isinstance(info.value, ValueError)


def test_authenticated_length_mismatch():
    """A tag made over a length field that does not describe the data (not
    something seal() would produce): open() refuses it as a ValueError, not
    InvalidTag."""
    key = os.urandom(64)
    body = os.urandom(60)
    ct, tag = asyncssh_enc(key).encrypt_packet(3, struct.pack(">I", 59), body)
    with pytest.raises(ValueError, match="packet_length") as info:
        PacketCipher(key).open(3, ct + tag)
    assert not isinstance(info.value, InvalidTag)


def test_input_checks():
    pc = PacketCipher(bytes(64))
    for bad in (b"", bytes(32), bytes(63), bytes(65), bytes(128)):
        with pytest.raises(ValueError, match="64-byte key"):
            PacketCipher(bad)
    with pytest.raises(TypeError):
        PacketCipher("k" * 64)
    with pytest.raises(TypeError):
        PacketCipher(None)
    pkt = packet(20)
    wire = pc.seal(0, pkt)
    for seq in (-1, 2 ** 32, 2 ** 64, 2 ** 100, -(2 ** 70)):
        for call in (lambda s: pc.seal(s, pkt), lambda s: pc.open(s, wire),
                     lambda s: pc.decrypt_length(s, wire)):
            with pytest.raises(ValueError, match="seqnr"):
                call(seq)
    for seq in (1.0, "1", None):
        with pytest.raises(TypeError):
            pc.seal(seq, pkt)
    with pytest.raises(ValueError):
        pc.seal(0, b"\x00\x00\x00")
    with pytest.raises(ValueError, match="length field"):
        pc.seal(0, struct.pack(">I", 5) + bytes(4))
    with pytest.raises(ValueError):
        pc.decrypt_length(0, b"abc")
    with pytest.raises(ValueError):
        pc.open(0, bytes(19))
    with pytest.raises(TypeError):
        pc.seal(0, "text")


def test_buffer_types_and_empty_payload():
    pc = PacketCipher(bytearray(range(64)))
    pkt = packet(300)
    wire = pc.seal(5, pkt)
    assert pc.seal(5, bytearray(pkt)) == wire
    assert pc.seal(5, memoryview(pkt)) == wire
    assert pc.open(5, bytearray(wire)) == pkt
    assert pc.open(5, memoryview(wire)) == pkt
    assert pc.decrypt_length(5, memoryview(wire)[:4]) == 296
    assert pc.decrypt_length(5, wire) == 296         # a longer buffer: first 4 bytes
    empty = struct.pack(">I", 0)                      # not valid SSH, but well-defined
    w = pc.seal(5, empty)
    assert len(w) == 20 and pc.open(5, w) == empty
    assert isinstance(pc.backend, str)


def test_every_backend_agrees():
    rng = random.Random(3)
    key = rng.randbytes(64)
    pkts = [packet(n, rng) for n in (5, 100, 452, 453, 5000, 33000)]
    before = poly1305x.backend()
    try:
        results = {}
        for name in poly1305x.backends():
            poly1305x.set_backend(name)
            pc = PacketCipher(key)
            assert pc.backend == name
            results[name] = [pc.seal(n, p) for n, p in enumerate(pkts)]
            assert [pc.open(n, w) for n, w in enumerate(results[name])] == pkts
        first = next(iter(results.values()))
        assert all(r == first for r in results.values())
    finally:
        poly1305x.set_backend(before)


def test_threads_share_one_object():
    key = os.urandom(64)
    pc = PacketCipher(key)
    theirs = asyncssh_enc(key)
    pkts = [packet(n) for n in (5000, 20000, 35000, 100)]
    want = []
    for i, p in enumerate(pkts):
        ct, tag = theirs.encrypt_packet(i, p[:4], p[4:])
        want.append(ct + tag)
    errors = []

    def work(_):
        try:
            for _ in range(50):
                for i, p in enumerate(pkts):
                    assert pc.seal(i, p) == want[i]
                    assert pc.open(i, want[i]) == p
        except BaseException as exc:   # pragma: no cover - reported below
            errors.append(exc)

    run_threads(work, 4)
    assert not errors


# ---------------------------------------------------------------------------
# Real packets: OpenSSH's ssh client against an asyncssh server whose
# chacha20-poly1305@openssh.com is PacketCipher.
# ---------------------------------------------------------------------------

def make_adapter(log):
    """poly1305x's asyncssh Encryption class (what use_with_asyncssh installs),
    logging (key, seq, wire) of every packet either way."""
    from poly1305x.openssh._asyncssh_peer import PacketCipherEncryption

    class LoggingPacketCipherEncryption(PacketCipherEncryption):
        def encrypt_packet(self, seq, header, packet):
            ct, mac = super().encrypt_packet(seq, header, packet)
            log.append(("sent", self._key, seq, ct + mac))
            return ct, mac

        def decrypt_packet(self, seq, first, rest, header_len, mac):
            plain = super().decrypt_packet(seq, first, rest, header_len, mac)
            if plain is not None:
                log.append(("received", self._key, seq, first + rest + mac))
            return plain

    return LoggingPacketCipherEncryption


def test_real_openssh_client_on_loopback(tmp_path, monkeypatch):
    import asyncssh
    import asyncssh.encryption as enc

    ssh = shutil.which("ssh")
    assert ssh, "the OpenSSH client is required (CI installs openssh-client)"
    log = []
    monkeypatch.setitem(enc._enc_params, ALG, (make_adapter(log), "chacha20-poly1305"))

    # The client's identity: an ssh-keygen key, encrypted, then decrypted by us.
    ident = tmp_path / "id"
    keygen = shutil.which("ssh-keygen")
    assert keygen, "ssh-keygen is required (CI installs openssh-client)"
    r = subprocess.run([keygen, "-q", "-t", "ed25519", "-N", "pw", "-a", "1", "-f", str(ident)],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    ident.write_bytes(openssh.decrypt(ident.read_bytes(), "pw"))
    os.chmod(ident, 0o600)
    authorized = asyncssh.read_authorized_keys(str(ident) + ".pub")
    host_key = asyncssh.generate_private_key("ssh-ed25519")
    upload = os.urandom(300_000)

    async def handle(process):
        if process.command == "upload":
            data = await process.stdin.read()
            process.stdout.write(hashlib.sha256(data).hexdigest().encode() + b"\n")
        elif process.command == "download":
            process.stdout.write(b"x" * 200_000)
        else:
            process.stdout.write(f"hello {process.command}\n".encode())
        process.exit(0)

    async def main():
        server = await asyncssh.listen("127.0.0.1", 0, server_host_keys=[host_key],
                                       authorized_client_keys=authorized,
                                       process_factory=handle, encoding=None,
                                       encryption_algs=[ALG.decode()])
        port = server.sockets[0].getsockname()[1]
        base = [ssh, "-F", "/dev/null", "-p", str(port), "-i", str(ident),
                "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "Ciphers=chacha20-poly1305@openssh.com", "-o", "LogLevel=ERROR",
                "-o", "RekeyLimit=64K", "tester@127.0.0.1"]
        out = {}
        try:
            for cmd, stdin in (("world", b""), ("upload", upload), ("download", b"")):
                p = await asyncio.create_subprocess_exec(
                    *base, cmd, stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
                o, e = await asyncio.wait_for(p.communicate(stdin), 60)
                assert p.returncode == 0, e.decode()
                out[cmd] = o
        finally:
            server.close()
            await server.wait_closed()
        return out

    out = asyncio.run(main())
    assert out["world"] == b"hello world\n"
    assert out["upload"].decode().strip() == hashlib.sha256(upload).hexdigest()
    assert out["download"] == b"x" * 200_000
    received = [x for x in log if x[0] == "received"]
    sent = [x for x in log if x[0] == "sent"]
    assert len(received) > 10 and len(sent) > 10
    assert len({x[1] for x in log}) >= 4      # RekeyLimit: several keys per direction
    assert max(len(x[3]) for x in received) > 16000
    # Every packet OpenSSH sent, read the same by asyncssh's own implementation.
    for _, key, seq, wire in received:
        theirs = asyncssh_enc(key)
        assert theirs.decrypt_packet(seq, wire[:4], wire[4:-16], 4, wire[-16:]) is not None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


@pytest.mark.parametrize("n", [0, 1, 15, 16, 447, 448, 449, 4096, 16383, 16384, 16385, 40000])
def test_key_file_framing_matches_asyncssh(n):
    """The key-file framing (no length field, sequence number 0) over the
    engine's AEAD core: asyncssh's packet cipher with an empty header computes
    the same bytes; a bad tag is InvalidTag and releases nothing."""
    from poly1305x.openssh import _ssh

    rng = random.Random(n)
    key, data = rng.randbytes(64), rng.randbytes(n)
    ct, tag = asyncssh_enc(key).encrypt_packet(0, b"", data)
    sealed = _ssh.keyfile_seal(key, data)
    assert sealed == ct + tag
    opened = _ssh.keyfile_open(key, sealed)
    assert isinstance(opened, bytearray) and opened == data
    for i in {0, len(sealed) // 2, len(sealed) - 1}:
        bad = bytearray(sealed)
        bad[i] ^= 0x10
        with pytest.raises(InvalidTag):
            _ssh.keyfile_open(key, bytes(bad))
