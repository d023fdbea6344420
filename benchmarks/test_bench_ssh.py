"""chacha20-poly1305@openssh.com: poly1305x against asyncssh's own
implementation.

Groups (extra_info: library, operation, size, as the other files):

* ``ssh-seal-open-64B``: one 64-byte SSH packet sealed and opened again --
  ``PacketCipher.seal`` then ``PacketCipher.open`` (poly1305x) against
  asyncssh's ``ChachaCipher.encrypt_and_sign`` then ``verify_and_decrypt``
  (asyncssh/crypto/chacha.py, three or four ``cryptography`` objects per
  packet).  The same closure shape for both libraries.
* ``asyncssh-stream-64MiB``: an asyncssh client reads 64 MiB from the stdout
  of an exec channel of an asyncssh server, over loopback, cipher
  chacha20-poly1305@openssh.com only; ``library`` "poly1305x" is with
  :func:`poly1305x.openssh.use_with_asyncssh` (both ends, one process),
  "asyncssh" without.  One connection per mode, its key exchange outside the
  timing; three rounds each.
* ``asyncssh-sshd-stream-64MiB``: the same read from OpenSSH's ``sshd``
  (``head -c 67108864 /dev/zero``; tests/support/sshd.py, needs root and
  openssh-server): only the client side changes.

``python benchmarks/report.py out.json`` prints the ratios; or run
``python -m pytest benchmarks/test_bench_ssh.py --benchmark-group-by=group``.
"""
import asyncio
import os
import subprocess

import pytest

from benchmarks.conftest import calibrate
from poly1305x import openssh

asyncssh = pytest.importorskip("asyncssh")

CHACHA = "chacha20-poly1305@openssh.com"
KEY64 = bytes(range(64))
SEQ = 7
STREAM = 64 << 20
CHUNK = 256 << 10


def _packet(size):
    return (size - 4).to_bytes(4, "big") + os.urandom(size - 4)


def _poly1305x_seal_open(size):
    send, recv = openssh.PacketCipher(KEY64), openssh.PacketCipher(KEY64)
    packet = _packet(size)

    def seal_open():
        return recv.open(SEQ, send.seal(SEQ, packet))
    assert seal_open() == packet
    return seal_open


def _asyncssh_seal_open(size):
    from asyncssh.crypto.chacha import ChachaCipher
    send, recv = ChachaCipher(KEY64), ChachaCipher(KEY64)
    packet = _packet(size)
    nonce = SEQ.to_bytes(8, "big")

    def seal_open():
        ct, tag = send.encrypt_and_sign(packet[:4], packet[4:], nonce)
        return recv.verify_and_decrypt(ct[:4], ct[4:], nonce, tag)
    assert seal_open() == packet[4:]
    return seal_open


def _record(benchmark, library, operation, size):
    benchmark.group = f"{operation}-{size}B" if size < 1 << 20 else \
        f"{operation}-{size >> 20}MiB"
    version = asyncssh.__version__ if library == "asyncssh" else \
        __import__("poly1305x").__version__
    benchmark.extra_info.update({"library": library, "version": version,
                                 "operation": operation, "size": size, "backend": None})


@pytest.mark.parametrize("library,make", [("poly1305x", _poly1305x_seal_open),
                                          ("asyncssh", _asyncssh_seal_open)],
                         ids=["poly1305x", "asyncssh"])
def test_ssh_seal_open(benchmark, library, make):
    _record(benchmark, library, "ssh-seal-open", 64)
    fn = make(64)
    iterations, rounds = calibrate(fn)
    benchmark.extra_info["iterations"] = iterations
    benchmark.pedantic(fn, rounds=rounds, iterations=iterations, warmup_rounds=1)


# -- a 64 MiB exec stream over loopback ---------------------------------------

async def _serve_and_connect():
    host_key = asyncssh.generate_private_key("ssh-ed25519")
    client_key = asyncssh.generate_private_key("ssh-ed25519")
    block = os.urandom(CHUNK)

    async def source(process):
        want = int(process.command)
        while want > 0:
            process.stdout.write(block[:min(CHUNK, want)])
            want -= CHUNK
            await process.stdout.drain()
        process.exit(0)

    authorized = asyncssh.import_authorized_keys(
        client_key.export_public_key().decode())
    listener = await asyncssh.listen("127.0.0.1", 0, server_host_keys=[host_key],
                                     authorized_client_keys=authorized, process_factory=source,
                                     encoding=None, encryption_algs=[CHACHA],
                                     rekey_bytes=1 << 40)
    port = listener.sockets[0].getsockname()[1]
    conn = await asyncssh.connect("127.0.0.1", port, username="bench", client_keys=[client_key],
                                  known_hosts=None, agent_path=None, encryption_algs=[CHACHA],
                                  rekey_bytes=1 << 40)
    assert conn.get_extra_info("recv_cipher") == CHACHA
    return listener, conn


async def _read_stream(conn, command=str(STREAM)):
    """Run command (by default the asyncssh test server's: the size to send),
    read all STREAM bytes it writes."""
    proc = await conn.create_process(command, encoding=None)
    got = 0
    while True:
        data = await proc.stdout.read(1 << 20)
        if not data:
            break
        got += len(data)
    await proc.wait()
    assert got == STREAM, got
    return got


@pytest.mark.parametrize("library", ["poly1305x", "asyncssh"])
def test_asyncssh_stream(benchmark, library):
    _record(benchmark, library, "asyncssh-stream", STREAM)
    was = openssh.use_with_asyncssh(library == "poly1305x")
    loop = asyncio.new_event_loop()
    try:
        listener, conn = loop.run_until_complete(_serve_and_connect())
        try:
            loop.run_until_complete(_read_stream(conn))       # warm-up
            benchmark.pedantic(lambda: loop.run_until_complete(_read_stream(conn)),
                               rounds=3, iterations=1)
        finally:
            conn.close()
            loop.run_until_complete(conn.wait_closed())
            listener.close()
            loop.run_until_complete(listener.wait_closed())
    finally:
        loop.close()
        openssh.use_with_asyncssh(was)


@pytest.fixture(scope="module")
def sshd_peer(tmp_path_factory):
    """OpenSSH's sshd (tests/support/sshd.py) and a client key it accepts."""
    if os.geteuid() != 0 or not os.path.exists("/usr/sbin/sshd"):
        pytest.skip("needs root and openssh-server")
    from tests.support.sshd import Sshd
    root = tmp_path_factory.mktemp("sshd")
    key = root / "id_ed25519"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True,
                   capture_output=True, timeout=60)
    server = Sshd(root, ciphers=(CHACHA,))
    server.start()
    server.authorize(key.with_suffix(".pub").read_bytes())
    try:
        yield server, key
    finally:
        server.stop()


SSHD_STREAM = f"head -c {STREAM} /dev/zero"


@pytest.mark.parametrize("library", ["poly1305x", "asyncssh"])
def test_asyncssh_sshd_stream(benchmark, library, sshd_peer):
    server, key = sshd_peer
    _record(benchmark, library, "asyncssh-sshd-stream", STREAM)
    was = openssh.use_with_asyncssh(library == "poly1305x")
    loop = asyncio.new_event_loop()
    try:
        conn = loop.run_until_complete(asyncssh.connect(
            server.host, server.port, username=server.user, client_keys=[str(key)],
            known_hosts=None, agent_path=None, encryption_algs=[CHACHA]))
        try:
            loop.run_until_complete(_read_stream(conn, SSHD_STREAM))          # warm-up
            benchmark.pedantic(lambda: loop.run_until_complete(_read_stream(conn, SSHD_STREAM)),
                               rounds=3, iterations=1)
        finally:
            conn.close()
            loop.run_until_complete(conn.wait_closed())
    finally:
        loop.close()
        openssh.use_with_asyncssh(was)
