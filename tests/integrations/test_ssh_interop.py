"""An asyncssh client with use_with_asyncssh() -> a paramiko server with
use_with_paramiko(), on loopback, chacha20-poly1305@openssh.com the only
cipher on both sides: poly1305x's PacketCipher at both ends of the wire.

* key auth (ed25519 client key and host key, both files encrypted with
  chacha20-poly1305); exec channels: 2 MiB up and its SHA-256 back, 3 MiB
  down, 1 MiB echoed; several re-keys asked for by each end;
* one flipped bit (client -> server): the paramiko server closes with a MAC
  error and its channel receives no data.
"""
import asyncio
import hashlib
import logging
import random
import threading

import paramiko
import pytest
from paramiko.ssh_exception import SSHException

from poly1305x.openssh import _paramiko
from tests.support.ssh_peers import (CHACHA, MiB, FlipProxy, Server, enabled, listen,  # noqa: F401
                       poly, rekeys, serve)
from tests.support.sshd import keygen

import asyncssh  # noqa: E402
import asyncssh.encryption as enc  # noqa: E402

PASS = "correct horse"
TIMEOUT = 120

pytestmark = pytest.mark.filterwarnings("ignore:Warning. bcrypt.kdf.. called with only")


@pytest.fixture(scope="module")
def interop_keys(tmp_path_factory):
    """{"host"/"client": (path, public line)}: ed25519 keys that ssh-keygen
    encrypted with chacha20-poly1305@openssh.com (PASS)."""
    d = tmp_path_factory.mktemp("keys")
    return {name: (str(d / name), keygen(d / name, "ed25519", PASS, CHACHA, rounds=4))
            for name in ("host", "client")}


@pytest.fixture
def engines(monkeypatch):
    """The paramiko side's PacketCipher engines, one per direction and key
    exchange, as paramiko's Transport builds them."""
    made = []
    init = _paramiko._Engine.__init__

    def counting_init(self, key):
        init(self, key)
        made.append(self)

    monkeypatch.setattr(_paramiko._Engine, "__init__", counting_init)
    return made


class _Server:
    """The paramiko server of tests/support/ssh_peers.py in a thread, for one connection."""

    def __init__(self, interop_keys, channels, rekey_bytes=MiB):
        # The host key is read from its chacha20-poly1305-encrypted file.
        host_key = paramiko.Ed25519Key.from_private_key_file(interop_keys["host"][0], PASS)
        self.listener = listen()
        self.port = self.listener.getsockname()[1]
        self.result = {}
        self.thread = threading.Thread(
            target=serve, args=(self.listener, host_key, Server(interop_keys["client"][1]),
                                self.result, channels, rekey_bytes), daemon=True)
        self.thread.start()

    def close(self):
        self.thread.join(30)
        self.listener.close()
        t = self.result.get("transport")
        if t is not None:
            t.close()
        return t


async def _connect(interop_keys, port, **kw):
    # The client key too is read from its chacha20-poly1305-encrypted file
    # (through the shim: one Encryption object, before any transport's).
    key = asyncssh.read_private_key(interop_keys["client"][0], PASS)
    known = asyncssh.import_known_hosts(f"[127.0.0.1]:{port} {interop_keys['host'][1]}\n")
    return await asyncssh.create_connection(
        _Recorder, "127.0.0.1", port, username="tester", client_keys=[key],
        known_hosts=known, agent_path=None, encryption_algs=[CHACHA], **kw)


class _Recorder(asyncssh.SSHClient):
    """Keeps the exception the connection closed with."""

    def __init__(self):
        self.lost = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc):
        if not self.lost.done():
            self.lost.set_result(exc)


def test_asyncssh_client_to_paramiko_server(enabled, poly, engines, interop_keys, caplog):
    caplog.set_level(logging.DEBUG, logger="paramiko.transport")
    rng = random.Random(19)
    up, echo = rng.randbytes(2 * MiB), rng.randbytes(MiB)
    down = random.Random(7).randbytes(3 * MiB)
    # asyncssh re-keys after 256K sent, paramiko after 512K sent or received
    server = _Server(interop_keys, channels=3, rekey_bytes=512 * 1024)

    async def main():
        conn, _ = await _connect(interop_keys, server.port, rekey_bytes=256 * 1024)
        async with conn:
            assert conn.get_extra_info("send_cipher") == CHACHA
            assert conn.get_extra_info("recv_cipher") == CHACHA
            r = await conn.run("sha256", input=up, encoding=None, check=True)
            assert r.stdout == hashlib.sha256(up).hexdigest().encode() + b"\n"
            # paramiko sends, asyncssh (which counts bytes sent) hardly:
            # the re-keys here are mostly paramiko's
            r = await conn.run(f"send {len(down)} 7", encoding=None, check=True)
            assert r.stdout == down
            r = await conn.run("cat", input=echo, encoding=None, check=True)
            assert r.stdout == echo

    try:
        asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    finally:
        t = server.close()
    assert server.result.get("ok"), server.result
    assert bytes(server.result["received"]) == up + echo
    # asyncssh's side: every Encryption object was poly1305x's shim
    shim = enc._enc_params[CHACHA.encode()][0]
    assert shim is not enc.ChachaEncryption
    assert poly and all(type(e) is shim for e in poly)
    made = poly[1:]                            # the first one read the key file
    assert rekeys(made) >= 5, len(made)
    # paramiko's side: our packetizer, our engines, re-keys of its own too
    assert t.local_cipher == t.remote_cipher == CHACHA
    assert isinstance(t.packetizer, _paramiko.ChaChaPacketizer)
    # two per key exchange and side (one fewer at most, had the connection
    # closed in the middle of a key exchange)
    assert abs(len(engines) - len(made)) <= 1, (len(engines), len(made))
    switches = [r for r in caplog.records if r.getMessage() == "Switch to new keys ..."]
    assert len(switches) == (len(engines) + 1) // 2
    asked = [r for r in caplog.records if r.getMessage().startswith("Rekeying (hit")]
    # 3 MiB sent by asyncssh first (rekey_bytes 256K), 3 MiB by paramiko
    # alone (512K)
    assert len(asked) >= 1 and len(switches) - 1 - len(asked) >= 4, \
        (len(asked), len(switches))


def test_flipped_bit_asyncssh_to_paramiko_server(enabled, poly, engines, interop_keys):
    server = _Server(interop_keys, channels=1)
    proxy = FlipProxy(server.port)

    async def main():
        conn, client = await _connect(interop_keys, proxy.port)
        proc = await conn.create_process("sha256", encoding=None)
        started = server.result["started"]
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 30)
        assert started.is_set()
        await asyncio.sleep(0.2)
        proxy.arm("c2s")
        proc.stdin.write(b"secret payload that must not arrive")
        exc = await asyncio.wait_for(client.lost, 30)
        conn.close()
        return exc

    try:
        exc = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    finally:
        t = server.close()
        proxy.close()
    assert proxy.flipped.is_set()
    assert exc is not None                    # the server dropped the connection
    assert bytes(server.result["received"]) == b""
    t.join(10)
    assert not t.is_active()
    assert isinstance(t.saved_exception, SSHException), t.saved_exception
    assert "Mismatched MAC" in str(t.saved_exception)
    assert t.remote_cipher == CHACHA and engines
