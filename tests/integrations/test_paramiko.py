"""use_with_paramiko(): chacha20-poly1305@openssh.com in paramiko, against real
OpenSSH peers on loopback (tests/support/sshd.py: sshd; /usr/bin/ssh), with
tampering on the wire and sequence numbers that wrap.  Key loading is in
test_paramiko_keyfiles.py, the enable/disable contract in
test_paramiko_switch.py."""
import hashlib
import io
import logging
import os
import shutil
import socket
import subprocess
import threading
import time

import paramiko  # a test-extra requirement: its absence fails, not skips
import pytest
from paramiko.ssh_exception import SSHException

from poly1305x import openssh
from poly1305x.openssh import _paramiko
from poly1305x.openssh._ssh import PacketCipher
from tests.support.ssh_peers import (  # noqa: F401 (fixtures)
    PASS, FlipProxy, Server, enabled, keygen_keys, public_key, listen, serve)
from tests.support.sshd import CHACHA, Sshd

SSH = shutil.which("ssh") or "/usr/bin/ssh"
MiB = 1 << 20


@pytest.fixture(scope="module")
def sshd(tmp_path_factory, keygen_keys):
    with Sshd(tmp_path_factory.mktemp("sshd"), rekey_limit="1M") as server:
        server.authorize(keygen_keys["ed25519-chacha"][1])
        yield server


def _client(sshd, keygen_keys, port=None, **kw):
    c = paramiko.SSHClient()
    kind, key = public_key(sshd.host_public_key)
    c.get_host_keys().add(f"[{sshd.host}]:{port or sshd.port}", kind, key)
    c.set_missing_host_key_policy(paramiko.RejectPolicy())
    c.connect(sshd.host, port or sshd.port, username=sshd.user,
              key_filename=keygen_keys["ed25519-chacha"][0], passphrase=PASS,
              look_for_keys=False, allow_agent=False, timeout=30, **kw)
    return c


def _run(client, command, stdin=b""):
    i, o, e = client.exec_command(command, timeout=60)
    if stdin:
        i.write(stdin)
    i.channel.shutdown_write()
    out = o.read()
    return o.channel.recv_exit_status(), out, e.read()


# --- paramiko client -> OpenSSH sshd ------------------------------------------

def test_client_sshd_exec_sftp_and_rekeys(enabled, sshd, keygen_keys, tmp_path, caplog):
    caplog.set_level(logging.DEBUG, logger="paramiko.transport")
    log_start = len(sshd.log())
    c = _client(sshd, keygen_keys)
    try:
        t = c.get_transport()
        assert (t.local_cipher, t.remote_cipher) == (CHACHA, CHACHA)
        assert isinstance(t.packetizer, _paramiko.ChaChaPacketizer)
        # paramiko asks for re-keys too, not only sshd (RekeyLimit 1M)
        t.packetizer.REKEY_BYTES = 3 * MiB
        assert _run(c, "echo $((6 * 7)); echo err >&2") == (0, b"42\n", b"err\n")
        data = os.urandom(256 * 1024)
        assert _run(c, "sha256sum", data)[1].split()[0].decode() == \
            hashlib.sha256(data).hexdigest()

        sftp = c.open_sftp()
        up, down = os.urandom(16 * MiB), os.urandom(16 * MiB)
        sftp.putfo(io.BytesIO(up), str(tmp_path / "up"))
        status, out, _ = _run(c, f"sha256sum {tmp_path / 'up'}")
        assert out.split()[0].decode() == hashlib.sha256(up).hexdigest()
        (tmp_path / "down").write_bytes(down)
        got = io.BytesIO()
        sftp.getfo(str(tmp_path / "down"), got)
        assert hashlib.sha256(got.getvalue()).digest() == hashlib.sha256(down).digest()
        sftp.close()
        assert _run(c, "echo still there") == (0, b"still there\n", b"")
        assert t.is_active() and t.remote_cipher == CHACHA
    finally:
        c.close()
    log = sshd.log()[log_start:]
    # 32 MiB through RekeyLimit 1M: many key exchanges, each one a NEWKEYS
    assert log.count("SSH2_MSG_NEWKEYS received") >= 10, log[-3000:]
    assert "message authentication code incorrect" not in log
    switches = [r for r in caplog.records if r.getMessage() == "Switch to new keys ..."]
    assert len(switches) >= 10


def test_client_sshd_without_strict_kex(enabled, sshd, keygen_keys):
    """Without strict kex (opted in: Terrapin) the seqnos run on across re-keys."""
    openssh.use_with_paramiko(allow_without_strict_kex=True)
    sock = socket.create_connection((sshd.host, sshd.port), timeout=30)
    t = paramiko.Transport(sock, strict_kex=False)
    try:
        kind, hostkey = public_key(sshd.host_public_key)
        pkey = paramiko.Ed25519Key.from_private_key_file(keygen_keys["ed25519-chacha"][0], PASS)
        t.connect(hostkey=hostkey, username=sshd.user, pkey=pkey)
        assert not t.agreed_on_strict_kex and t.remote_cipher == CHACHA
        ch = t.open_session()
        ch.exec_command("cat")
        blob = os.urandom(3 * MiB)
        sender = threading.Thread(target=lambda: (ch.sendall(blob), ch.shutdown_write()))
        sender.start()
        got = bytearray()
        while True:
            chunk = ch.recv(65536)
            if not chunk:
                break
            got += chunk
        sender.join()
        assert bytes(got) == blob and ch.recv_exit_status() == 0
    finally:
        t.close()


class SeqPacketizer(paramiko.packet.Packetizer):
    """A packetizer_class of a user's own that extends read_message (as
    paramiko's test suite does): it composes with the cipher."""

    def read_message(self):
        cmd, msg = super().read_message()
        self.seen = getattr(self, "seen", 0) + 1
        return cmd, msg


class OwnFraming(paramiko.packet.Packetizer):
    """One that replaces send_message outright: it cannot run the cipher."""

    def send_message(self, data):
        return paramiko.packet.Packetizer.send_message(self, data)


def test_own_packetizer_class_is_kept_and_composes(enabled, sshd, keygen_keys):
    """A Transport's packetizer_class stays that class (paramiko's own default
    too), and chacha runs through it (before: the cipher failed the
    connection with "needs poly1305x's packetizer")."""
    assert type(paramiko.Transport(socket.socket()).packetizer) is paramiko.packet.Packetizer
    sock = socket.create_connection((sshd.host, sshd.port), timeout=30)
    t = paramiko.Transport(sock, packetizer_class=SeqPacketizer)
    try:
        assert type(t.packetizer) is SeqPacketizer
        t.connect(hostkey=public_key(sshd.host_public_key)[1], username=sshd.user,
                  pkey=paramiko.Ed25519Key.from_private_key_file(keygen_keys["ed25519-chacha"][0], PASS))
        assert (t.local_cipher, t.remote_cipher) == (CHACHA, CHACHA)
        ch = t.open_session(timeout=30)
        ch.exec_command("echo ok")
        assert ch.makefile().read() == b"ok\n"
        assert t.packetizer.seen > 5
    finally:
        t.close()


def test_packetizer_that_cannot_compose_gets_another_cipher(enabled, tmp_path, keygen_keys):
    """A packetizer_class that replaces send_message without super(): chacha
    is left out of that transport's offer, and the connection negotiates
    another cipher instead of failing; others still get chacha."""
    with Sshd(tmp_path, ciphers=(CHACHA, "aes256-ctr")) as server:
        server.authorize(keygen_keys["ed25519-chacha"][1])
        pkey = paramiko.Ed25519Key.from_private_key_file(keygen_keys["ed25519-chacha"][0], PASS)
        for cls, want in ((OwnFraming, "aes256-ctr"), (SeqPacketizer, CHACHA)):
            sock = socket.create_connection((server.host, server.port), timeout=30)
            t = paramiko.Transport(sock, packetizer_class=cls)
            try:
                assert (CHACHA in t.preferred_ciphers) == (want == CHACHA)
                t.connect(hostkey=public_key(server.host_public_key)[1], username=server.user,
                          pkey=pkey)
                assert (t.local_cipher, t.remote_cipher) == (want, want)
                ch = t.open_session(timeout=30)
                ch.exec_command("echo ok")
                assert ch.makefile().read() == b"ok\n"
            finally:
                t.close()


# --- OpenSSH ssh client -> paramiko server ------------------------------------

@pytest.mark.parametrize("command", ["cat", "sha256"])
def test_openssh_client_to_paramiko_server(enabled, keygen_keys, tmp_path, command):
    # The host key is itself a chacha20-poly1305-encrypted file.
    host_key = paramiko.Ed25519Key.from_private_key_file(keygen_keys["ed25519-chacha"][0], PASS)
    iface = Server(keygen_keys["ed25519"][1])
    listener = listen()
    result = {}
    th = threading.Thread(target=serve, args=(listener, host_key, iface, result))
    th.start()
    data = os.urandom(3 * MiB)
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{listener.getsockname()[1]} {keygen_keys['ed25519-chacha'][1]}\n")
    proc = subprocess.run(
        [SSH, "-v", "-c", CHACHA, "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
         "-o", f"UserKnownHostsFile={known}", "-o", "IdentitiesOnly=yes",
         "-o", "RekeyLimit=512K", "-F", "/dev/null",
         "-i", keygen_keys["ed25519"][0], "-p", str(listener.getsockname()[1]),
         "tester@127.0.0.1", command],
        input=data, capture_output=True, timeout=120)
    th.join(30)
    listener.close()
    t = result.get("transport")
    if t is not None:
        t.close()
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode == 0 and result.get("ok"), (err[-3000:], result)
    expected = data if command == "cat" else hashlib.sha256(data).hexdigest().encode() + b"\n"
    assert proc.stdout == expected
    assert f"cipher: {CHACHA}" in err
    assert t.local_cipher == t.remote_cipher == CHACHA
    assert err.count("SSH2_MSG_NEWKEYS received") >= 4   # re-keys from both ends


# --- one flipped bit on the wire ----------------------------------------------

def test_flipped_bit_server_to_client(enabled, sshd, keygen_keys):
    proxy = FlipProxy(sshd.port)
    c = _client(sshd, keygen_keys, port=proxy.port)
    try:
        t = c.get_transport()
        ch = t.open_session()
        ch.exec_command("cat")
        ch.sendall(b"first\n")
        assert ch.recv(100) == b"first\n"
        proxy.arm("s2c")
        ch.sendall(b"SECRET-PAYLOAD\n")
        got = ch.recv(100)                   # closed, nothing delivered
        assert got == b""
        assert proxy.flipped.is_set()
        t.join(10)
        assert not t.is_active()
        exc = t.saved_exception
        assert isinstance(exc, SSHException) and "Mismatched MAC" in str(exc)
    finally:
        c.close()
        proxy.close()


def test_flipped_bit_client_to_server(enabled, sshd, keygen_keys, tmp_path):
    """OpenSSH rejects a paramiko packet with one bit changed: the tag covers it."""
    proxy = FlipProxy(sshd.port)
    log_start = len(sshd.log())
    c = _client(sshd, keygen_keys, port=proxy.port)
    target = tmp_path / "written"
    try:
        t = c.get_transport()
        ch = t.open_session()
        ch.exec_command(f"cat > {target}")
        proxy.arm("c2s")
        ch.sendall(b"SECRET-PAYLOAD\n")
        assert ch.recv(100) == b""           # sshd dropped the connection
        t.join(10)
        assert not t.is_active()
    finally:
        c.close()
        proxy.close()
    deadline = time.monotonic() + 10
    while "message authentication code incorrect" not in sshd.log()[log_start:]:
        assert time.monotonic() < deadline, sshd.log()[log_start:][-2000:]
        time.sleep(0.05)
    assert not target.exists() or target.read_bytes() == b""


# --- sequence numbers wrap at 2**32 -------------------------------------------

class _Tap:
    """A socket for the sending Packetizer that keeps a copy of the wire."""

    def __init__(self, sock):
        self.sock, self.wire = sock, bytearray()

    def send(self, data):
        self.wire += data
        return self.sock.send(data)


def test_sequence_number_wraps(enabled):
    a, b = socket.socketpair()
    try:
        P = _paramiko.ChaChaPacketizer
        tap = _Tap(a)
        tx, rx = P(tap), P(b)
        k = os.urandom(64)
        tx._initial_kex_done = rx._initial_kex_done = True
        tx.set_outbound_cipher(_paramiko._Engine(k), 8, None, 16, None, aead=True)
        rx.set_inbound_cipher(_paramiko._Engine(k), 8, None, 16, None, aead=True)
        start = 2**32 - 2
        tx._Packetizer__sequence_number_out = start
        rx._Packetizer__sequence_number_in = start
        bodies = [os.urandom(n) for n in (1, 100, 5000, 7)]
        for body in bodies:
            m = paramiko.Message()
            m.add_byte(b"\x5e")
            m.add_string(body)
            tx.send_message(m)
        # The wire, opened independently with the expected sequence numbers
        pc, off = PacketCipher(k), 0
        for i, body in enumerate(bodies):
            seq = (start + i) % 2**32
            n = pc.decrypt_length(seq, tap.wire[off:off + 4])
            pkt = pc.open(seq, tap.wire[off:off + 4 + n + 16])
            assert n % 8 == 0 and 4 <= pkt[4] < 12          # padding as OpenSSH pads
            assert pkt[10:10 + len(body)] == body            # len, padlen, cmd, string len
            off += 4 + n + 16
        assert off == len(tap.wire)
        for i, body in enumerate(bodies):
            cmd, msg = rx.read_message()
            assert cmd == 0x5E and msg.get_binary() == body
            assert msg.seqno == (start + i) % 2**32
        assert tx._Packetizer__sequence_number_out == 2
        assert rx._Packetizer__sequence_number_in == 2
    finally:
        a.close()
        b.close()
