"""poly1305x.openssh.use_with_asyncssh: asyncssh's chacha20-poly1305@openssh.com
(transport and key files) on poly1305x, against real peers on loopback.

* the switch itself (returns the previous state, undoes cleanly);
* packets and key files, differentially against asyncssh's own class, and
  key files against ssh-keygen;
* an asyncssh client with poly1305x -> OpenSSH's sshd (tests/support/sshd.py), with
  an ed25519 key encrypted with chacha20-poly1305, a small RekeyLimit,
  data both ways and several re-keys;
* asyncssh client <-> asyncssh server, both on poly1305x;
* one flipped bit on the wire: the receiver (sshd, an asyncssh server or an
  asyncssh client on poly1305x) closes the connection with a MAC error and
  delivers none of the packet's data.
"""
import asyncio
import hashlib
import os
import random
import subprocess

import pytest

from poly1305x import openssh
from tests.support.ssh_peers import poly, rekeys  # noqa: F401  (poly: a fixture)
from tests.support.sshd import openssh_sshd  # noqa: F401  (fixture)

import asyncssh  # noqa: E402
import asyncssh.encryption as enc  # noqa: E402
from tests.support.helpers import ssh_keygen  # noqa: E402

CHACHA = "chacha20-poly1305@openssh.com"
NAME = CHACHA.encode()
TIMEOUT = 120

pytestmark = pytest.mark.filterwarnings("ignore:Warning. bcrypt.kdf.. called with only")


@pytest.fixture(scope="module")
def client_key(tmp_path_factory):
    """An ed25519 key that ssh-keygen encrypted with chacha20-poly1305."""
    path = tmp_path_factory.mktemp("ck") / "id_ed25519"
    ssh_keygen("-q", "-t", "ed25519", "-Z", CHACHA, "-a", "2", "-N", "client pass", "-C", "client",
           "-f", str(path))
    return path


# ---------------------------------------------------------------------------
# The switch, packets, key files
# ---------------------------------------------------------------------------

def test_switch_returns_previous_state_and_undoes():
    original = enc._enc_params[NAME]
    assert original[0] is enc.ChachaEncryption
    assert openssh.use_with_asyncssh() is False
    shim = enc._enc_params[NAME][0]
    assert shim is not enc.ChachaEncryption and issubclass(shim, enc.Encryption)
    assert enc._enc_params[NAME][1] == original[1]
    assert openssh.use_with_asyncssh() is True          # idempotent
    assert enc._enc_params[NAME][0] is shim
    assert openssh.use_with_asyncssh(False) is True
    assert enc._enc_params[NAME] == original
    assert openssh.use_with_asyncssh(False) is False
    assert enc._enc_params[NAME] == original
    assert enc.get_encryption_algs() == [a for a in enc.get_encryption_algs()]  # untouched


def test_switch_refuses_unknown_asyncssh_internals(monkeypatch):
    monkeypatch.setattr(enc, "_enc_params", {})
    with pytest.raises(RuntimeError, match="cipher table"):
        openssh.use_with_asyncssh()


def test_import_error_names_the_extra():
    code = ("import sys; sys.modules['asyncssh'] = None\n"
            "from poly1305x import openssh\n"
            "try:\n    openssh.use_with_asyncssh()\n"
            "except ImportError as e:\n    print(e)\n")
    r = subprocess.run([os.sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "pip install -e '.[asyncssh]'" in r.stdout


def test_packets_match_asyncssh_own(poly):
    rng = random.Random(19)
    for n in [0, 1, 7, 8, 63, 64, 65, 1000, 4096, 40000]:
        key = rng.randbytes(64)
        seq = rng.choice([0, 1, 2, 0xFFFFFFFE, 0xFFFFFFFF, rng.getrandbits(32)])
        body = rng.randbytes(n + 1)
        header = len(body).to_bytes(4, "big")
        ours = enc.get_encryption(NAME, key, b"")
        theirs = enc.ChachaEncryption.new("chacha20-poly1305", key, b"")
        ct, mac = theirs.encrypt_packet(seq, header, body)
        wire_ours = b"".join(ours.encrypt_packet(seq, header, body))
        assert wire_ours == ct + mac
        # receive what asyncssh sent, as asyncssh's connection does
        first, rest = ct[:8], ct[8:]
        _, length = ours.decrypt_header(seq, first, 4)
        assert length == header
        assert ours.decrypt_packet(seq, first, rest, 4, mac) == body
        bad = bytearray(ct)
        bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
        assert ours.decrypt_packet(seq, bytes(bad[:8]), bytes(bad[8:]), 4, mac) is None
        # key-file framing (no header, sequence number 0)
        kct, kmac = theirs.encrypt_packet(0, b"", body)
        assert ours.encrypt_packet(0, b"", body) == (kct, kmac)
        assert ours.decrypt_packet(0, b"", kct, 0, kmac) == body
        assert ours.decrypt_packet(0, b"", kct, 0, bytes(16)) is None


def test_key_files_through_poly1305x(poly, client_key, tmp_path):
    """asyncssh reads ssh-keygen's chacha20-poly1305 key through the shim, and
    ssh-keygen reads what asyncssh writes through it."""
    data = client_key.read_bytes()
    before = len(poly)
    key = asyncssh.import_private_key(data, "client pass")
    assert len(poly) == before + 1                     # our class decrypted it
    openssh.use_with_asyncssh(False)
    try:
        theirs = asyncssh.import_private_key(data, "client pass")
    finally:
        openssh.use_with_asyncssh()
    assert key.encode_ssh_private() == theirs.encode_ssh_private()
    assert key.get_comment_bytes() == theirs.get_comment_bytes() == b"client"
    with pytest.raises(asyncssh.KeyEncryptionError, match="Incorrect passphrase"):
        asyncssh.import_private_key(data, "wrong pass")
    out = tmp_path / "exported"
    out.write_bytes(key.export_private_key("openssh", "new pass", cipher_name=CHACHA,
                                           rounds=2))
    out.chmod(0o600)
    r = ssh_keygen("-y", "-P", "new pass", "-f", str(out))
    assert r.stdout.split()[:2] == (client_key.with_suffix(".pub")).read_bytes().split()[:2]
    assert openssh.load_private_key(out.read_bytes(), "new pass") == \
        openssh.load_private_key(data, "client pass")


# ---------------------------------------------------------------------------
# Connections
# ---------------------------------------------------------------------------

def run(coro):
    return asyncio.run(asyncio.wait_for(coro, TIMEOUT))


class Recorder(asyncssh.SSHClient):
    """Keeps the exception the connection closed with."""

    def __init__(self):
        self.lost = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc):
        if not self.lost.done():
            self.lost.set_result(exc)


async def asyncssh_server(client_key, **kw):
    """(the client's key, an asyncssh server on loopback that accepts it,
    chacha20-poly1305 only, bytes I/O)."""
    key = asyncssh.read_private_key(str(client_key), "client pass")
    authorized = asyncssh.import_authorized_keys(client_key.with_suffix(".pub").read_text())
    listener = await asyncssh.listen("127.0.0.1", 0,
                                     server_host_keys=[asyncssh.generate_private_key(
                                         "ssh-ed25519")],
                                     authorized_client_keys=authorized, encoding=None,
                                     encryption_algs=[CHACHA], **kw)
    return key, listener


def test_asyncssh_client_to_openssh_sshd(poly, openssh_sshd, client_key, tmp_path):
    server = openssh_sshd(ciphers=CHACHA, rekey_limit="1M")
    server.authorize(client_key.with_suffix(".pub").read_bytes())
    down = random.Random(1).randbytes(6 << 20)
    down_path = tmp_path / "down.bin"
    down_path.write_bytes(down)
    up = random.Random(2).randbytes(6 << 20)

    async def main():
        key = asyncssh.read_private_key(str(client_key), "client pass")
        async with asyncssh.connect(server.host, server.port, username=server.user,
                                    client_keys=[key], known_hosts=None, agent_path=None,
                                    encryption_algs=[CHACHA], rekey_bytes=2 << 20) as conn:
            assert conn.get_extra_info("send_cipher") == CHACHA
            assert conn.get_extra_info("recv_cipher") == CHACHA
            r = await conn.run("echo hello from sshd; id -u", check=True)
            assert r.stdout.splitlines() == ["hello from sshd", str(os.getuid())]
            r = await conn.run("sha256sum", input=up, encoding=None, check=True)
            assert r.stdout.split()[0].decode() == hashlib.sha256(up).hexdigest()
            r = await conn.run(f"cat {down_path}", encoding=None, check=True)
            assert r.stdout == down
            r = await conn.run("cat", input=up[:1 << 20], encoding=None, check=True)
            assert r.stdout == up[:1 << 20]

    run(main())
    assert rekeys(poly) >= 5, len(poly)
    assert "Accepted publickey" in server.log()


def test_asyncssh_client_server_both_poly1305x(poly, client_key):
    data = random.Random(3).randbytes(5 << 20)

    async def echo(process):
        while True:
            chunk = await process.stdin.read(1 << 16)
            if not chunk:
                break
            process.stdout.write(chunk)
            await process.stdout.drain()
        process.exit(0)

    async def main():
        key, listener = await asyncssh_server(client_key, process_factory=echo,
                                              rekey_bytes=1 << 20)
        port = listener.sockets[0].getsockname()[1]
        try:
            async with asyncssh.connect("127.0.0.1", port, username="u", client_keys=[key],
                                        known_hosts=None, agent_path=None,
                                        encryption_algs=[CHACHA],
                                        rekey_bytes=1 << 20) as conn:
                r = await conn.run("echo", input=data, encoding=None, check=True)
                assert r.stdout == data
        finally:
            listener.close()
            await listener.wait_closed()

    run(main())
    assert rekeys(poly, sides=2) >= 4, len(poly)


# ---------------------------------------------------------------------------
# One flipped bit
# ---------------------------------------------------------------------------

class FlipProxy:
    """A loopback TCP relay that flips one bit of the next chunk sent in a
    direction ("c2s" or "s2c") once armed."""

    def __init__(self, target_port, offset=20):
        self.target_port = target_port
        self.offset = offset
        self.armed = {"c2s": False, "s2c": False}
        self.flipped = {"c2s": 0, "s2c": 0}

    async def start(self):
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def _handle(self, reader, writer):
        r2, w2 = await asyncio.open_connection("127.0.0.1", self.target_port)
        try:
            await asyncio.gather(self._pipe(reader, w2, "c2s"), self._pipe(r2, writer, "s2c"))
        except asyncio.CancelledError:      # the test's loop is ending
            pass

    async def _pipe(self, reader, writer, direction):
        try:
            while True:
                data = await reader.read(1 << 16)
                if not data:
                    break
                if self.armed[direction]:
                    self.armed[direction] = False
                    buf = bytearray(data)
                    buf[min(self.offset, len(buf) - 1)] ^= 0x10
                    data = bytes(buf)
                    self.flipped[direction] += 1
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()

    def close(self):
        self.server.close()


def test_flipped_bit_asyncssh_server_on_poly1305x(poly, client_key):
    """Client -> server packet changed: the asyncssh server (poly1305x)
    drops the connection with a MAC error; its session receives nothing."""
    received, lost = [], []

    async def sink(process):
        while True:
            data = await process.stdin.read(1 << 16)
            if not data:
                break
            received.append(data)

    class Server(asyncssh.SSHServer):
        def connection_lost(self, exc):
            lost.append(exc)

    async def main():
        key, listener = await asyncssh_server(client_key, process_factory=sink,
                                              server_factory=Server)
        proxy = await FlipProxy(listener.sockets[0].getsockname()[1]).start()
        try:
            conn, client = await asyncssh.create_connection(
                Recorder, "127.0.0.1", proxy.port, username="u", client_keys=[key],
                known_hosts=None, agent_path=None, encryption_algs=[CHACHA])
            chan, _ = await conn.create_session(asyncssh.SSHClientSession, encoding=None)
            await asyncio.sleep(0.2)
            proxy.armed["c2s"] = True
            chan.write(b"secret payload that must not arrive")
            exc = await asyncio.wait_for(client.lost, 30)
            assert isinstance(exc, asyncssh.DisconnectError) and \
                exc.code == asyncssh.DISC_MAC_ERROR, exc
            conn.close()
        finally:
            proxy.close()
            listener.close()
        for _ in range(100):
            if lost:
                break
            await asyncio.sleep(0.05)

    run(main())
    assert received == []
    assert len(lost) == 1 and isinstance(lost[0], asyncssh.MACError), lost


def test_flipped_bit_openssh_sshd(poly, openssh_sshd, client_key, tmp_path):
    """asyncssh (poly1305x) <-> sshd through the flipping relay.  Client ->
    sshd: sshd reports a corrupted MAC and the command gets no data.  sshd ->
    client: the asyncssh client on poly1305x closes with a MAC error and
    hands no data to the session."""
    server = openssh_sshd(ciphers=CHACHA)
    server.authorize(client_key.with_suffix(".pub").read_bytes())
    sink = tmp_path / "sink"

    async def connect(proxy):
        key = asyncssh.read_private_key(str(client_key), "client pass")
        return await asyncssh.create_connection(
            Recorder, "127.0.0.1", proxy.port, username=server.user, client_keys=[key],
            known_hosts=None, agent_path=None, encryption_algs=[CHACHA])

    async def to_sshd():
        proxy = await FlipProxy(server.port).start()
        try:
            conn, client = await connect(proxy)
            proc = await conn.create_process(f"cat > {sink}", encoding=None)
            for _ in range(100):                      # the command has started
                if sink.exists():
                    break
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
            proxy.armed["c2s"] = True
            proc.stdin.write(b"secret payload that must not arrive")
            exc = await asyncio.wait_for(client.lost, 30)
            conn.close()
            return exc
        finally:
            proxy.close()

    async def from_sshd():
        proxy = await FlipProxy(server.port).start()
        try:
            conn, client = await connect(proxy)
            proc = await conn.create_process("cat", encoding=None)
            await asyncio.sleep(0.5)                  # hostkeys-00 etc. are through
            proxy.armed["s2c"] = True
            proc.stdin.write(b"echoed back, corrupted on the way")
            exc = await asyncio.wait_for(client.lost, 30)
            try:
                got = await proc.stdout.read()      # nothing, or the MAC error itself
            except asyncssh.MACError:
                got = b""
            conn.close()
            return exc, got
        finally:
            proxy.close()

    exc = run(to_sshd())
    assert exc is not None
    for _ in range(100):
        if "message authentication code incorrect" in server.log():
            break
        asyncio.run(asyncio.sleep(0.05))
    assert "message authentication code incorrect" in server.log(), server.log()
    assert sink.exists() and sink.read_bytes() == b""

    exc, got = run(from_sshd())
    assert isinstance(exc, asyncssh.MACError), exc
    assert got == b""
