"""Terrapin (CVE-2023-48795) and use_with_paramiko(): chacha20-poly1305@openssh.com
is negotiated only when both sides do strict key exchange, unless the caller
opts in (allow_without_strict_kex=True); else the next cipher both sides
offer.  Against real peers on loopback, both directions: a paramiko client
and a paramiko server (poly1305x's rule on both ends, strict kex on and off
on each), OpenSSH's sshd and ssh, and a peer that offers the cipher without
strict kex and without the rule (as OpenSSH before 9.6 does)."""
import functools
import os
import shutil
import socket
import subprocess
import threading

import paramiko  # a test-extra requirement: its absence fails, not skips
import pytest
from paramiko.ssh_exception import IncompatiblePeer, SSHException

from poly1305x import openssh
from tests.support.ssh_peers import CHACHA, Server, enabled, listen, serve  # noqa: F401 (fixture)
from tests.support.sshd import Sshd, keygen

SSH = shutil.which("ssh") or "/usr/bin/ssh"
NEXT = "aes128-ctr"         # offered by both ends below after chacha


@pytest.fixture(scope="module")
def terrapin_keys(tmp_path_factory):
    """ssh-keygen ed25519 keys "host" and "user": (paramiko key, public line, path)."""
    d = tmp_path_factory.mktemp("terrapin-keys")
    pub = {name: keygen(d / name) for name in ("host", "user")}
    return {name: (paramiko.Ed25519Key.from_private_key_file(str(d / name)), pub[name],
                   str(d / name)) for name in pub}


class NoRulePeer(paramiko.Transport):
    """A peer that offers chacha first whatever its strict kex, and picks by
    the usual rule alone: paramiko's own _parse_kex_init, not poly1305x's."""

    @property
    def preferred_ciphers(self):
        return (CHACHA, NEXT)

    def _parse_kex_init(self, m):
        return paramiko.Transport._parse_kex_init.__wrapped__(self, m)


def _session(client_transport, server_transport, terrapin_keys):
    """One connection through a paramiko server thread (``serve``); a "cat"
    of 200 KiB.  Returns (client transport, server transport), or raises
    the client's or the server's error."""
    iface = Server(terrapin_keys["user"][1])
    listener = listen()
    result = {}
    th = threading.Thread(target=serve, args=(listener, terrapin_keys["host"][0], iface, result),
                          kwargs={"transport": server_transport})
    th.start()
    sock = socket.create_connection(listener.getsockname(), timeout=30)
    t = client_transport(sock)
    try:
        try:
            t.connect(hostkey=terrapin_keys["host"][0], username="tester",
                      pkey=terrapin_keys["user"][0])
        except (SSHException, EOFError, OSError) as exc:
            th.join(30)
            # the end that refused (IncompatiblePeer) rather than the other
            # one's EOF
            theirs = result.get("error")
            raise theirs if isinstance(theirs, IncompatiblePeer) else exc
        ch = t.open_session(timeout=30)
        ch.exec_command("cat")
        data = os.urandom(200 * 1024)
        ch.sendall(data)
        ch.shutdown_write()
        got = bytearray()
        while True:
            chunk = ch.recv(65536)
            if not chunk:
                break
            got += chunk
        assert bytes(got) == data and ch.recv_exit_status() == 0
        th.join(30)
        assert result.get("ok"), result
        return t, result["transport"]
    finally:
        th.join(30)
        listener.close()
        t.close()
        if result.get("transport") is not None:
            result["transport"].close()


def _transport(strict):
    return functools.partial(paramiko.Transport, strict_kex=strict)


@pytest.mark.parametrize("client_strict, server_strict",
                         [(True, True), (True, False), (False, True), (False, False)])
def test_paramiko_to_paramiko(enabled, terrapin_keys, client_strict, server_strict):
    """Both ends poly1305x's: chacha when both do strict kex, else the next
    cipher both offer (paramiko's next preference), on both ends alike."""
    both = client_strict and server_strict
    want = CHACHA if both else [c for c in paramiko.Transport._preferred_ciphers
                                if c != CHACHA][0]
    c, s = _session(_transport(client_strict), _transport(server_strict), terrapin_keys)
    for t in (c, s):
        assert (t.local_cipher, t.remote_cipher) == (want, want)
        assert t.agreed_on_strict_kex is both


@pytest.mark.parametrize("client_strict, server_strict", [(True, False), (False, True)])
def test_opt_in_allows_chacha_without_strict_kex(enabled, terrapin_keys, client_strict,
                                                 server_strict):
    openssh.use_with_paramiko(allow_without_strict_kex=True)
    c, s = _session(_transport(client_strict), _transport(server_strict), terrapin_keys)
    for t in (c, s):
        assert (t.local_cipher, t.remote_cipher) == (CHACHA, CHACHA)
        assert not t.agreed_on_strict_kex
    openssh.use_with_paramiko()                  # the rule again: the latest call holds
    c, s = _session(_transport(client_strict), _transport(server_strict), terrapin_keys)
    assert c.remote_cipher != CHACHA and s.remote_cipher != CHACHA


@pytest.mark.parametrize("side", ["client", "server"])
def test_peer_that_picks_chacha_without_strict_kex_is_refused(enabled, terrapin_keys, side):
    """A peer that offers chacha without strict kex has chosen it already (the
    lists cross on the wire): the poly1305x end refuses, naming the CVE,
    with strict kex on and on either side; opted in, it connects."""
    old = functools.partial(NoRulePeer, strict_kex=False)
    ours = _transport(True)
    pair = (ours, old) if side == "client" else (old, ours)
    with pytest.raises(IncompatiblePeer, match="CVE-2023-48795"):
        _session(*pair, terrapin_keys)
    openssh.use_with_paramiko(allow_without_strict_kex=True)
    c, s = _session(*pair, terrapin_keys)
    assert c.remote_cipher == s.remote_cipher == CHACHA


@pytest.mark.parametrize("strict", [True, False])
def test_paramiko_client_to_sshd(enabled, terrapin_keys, tmp_path, strict):
    """OpenSSH's sshd (strict kex always): chacha with a strict paramiko
    client, the next cipher both offer with a client that does not."""
    with Sshd(tmp_path, ciphers=(CHACHA, NEXT)) as server:
        server.authorize(terrapin_keys["user"][1])
        sock = socket.create_connection((server.host, server.port), timeout=30)
        t = paramiko.Transport(sock, strict_kex=strict)
        try:
            hostkey = paramiko.PKey.from_type_string(
                *_split(server.host_public_key))
            t.connect(hostkey=hostkey, username=server.user, pkey=terrapin_keys["user"][0])
            want = CHACHA if strict else NEXT
            assert (t.local_cipher, t.remote_cipher) == (want, want)
            assert t.agreed_on_strict_kex is strict
            ch = t.open_session(timeout=30)
            ch.exec_command("echo ok")
            assert ch.makefile().read() == b"ok\n"
        finally:
            t.close()


def _split(public_line):
    import base64
    kind, b64 = public_line.split()[:2]
    return kind, base64.b64decode(b64)


@pytest.mark.parametrize("strict", [True, False])
def test_openssh_client_to_paramiko_server(enabled, terrapin_keys, tmp_path, strict):
    """OpenSSH's ssh (strict kex always, offering chacha then aes128-ctr) to a
    paramiko server with strict kex on or off."""
    iface = Server(terrapin_keys["user"][1])
    listener = listen()
    result = {}
    th = threading.Thread(target=serve, args=(listener, terrapin_keys["host"][0], iface, result),
                          kwargs={"transport": _transport(strict)})
    th.start()
    port = listener.getsockname()[1]
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{port} {terrapin_keys['host'][1]}\n")
    proc = subprocess.run(
        [SSH, "-v", "-c", f"{CHACHA},{NEXT}", "-o", "BatchMode=yes",
         "-o", "StrictHostKeyChecking=yes", "-o", f"UserKnownHostsFile={known}",
         "-o", "IdentitiesOnly=yes", "-F", "/dev/null", "-i", terrapin_keys["user"][2],
         "-p", str(port), "tester@127.0.0.1", "cat"],
        input=b"terrapin", capture_output=True, timeout=120)
    th.join(30)
    listener.close()
    t = result.get("transport")
    if t is not None:
        t.close()
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode == 0 and result.get("ok"), (err[-3000:], result)
    assert proc.stdout == b"terrapin"
    want = CHACHA if strict else NEXT
    assert f"cipher: {want}" in err
    assert t.local_cipher == t.remote_cipher == want
    assert t.agreed_on_strict_kex is strict


def test_offer_follows_strict_kex_and_disable_restores(terrapin_keys):
    """Before any connection: a transport offers chacha only if it offers
    strict kex (or with the opt-in); use_with_paramiko(False) gives paramiko
    back its own _parse_kex_init and forgets the opt-in."""
    T = paramiko.Transport
    original = T.__dict__["_parse_kex_init"]
    a, b = socket.socketpair()
    try:
        assert openssh.use_with_paramiko() is False
        assert T.__dict__["_parse_kex_init"] is not original
        assert CHACHA in T(a).preferred_ciphers
        assert CHACHA not in T(b, strict_kex=False).preferred_ciphers
        openssh.use_with_paramiko(allow_without_strict_kex=True)
        assert CHACHA in T(b, strict_kex=False).preferred_ciphers
        assert openssh.use_with_paramiko(False) is True
        assert T.__dict__["_parse_kex_init"] is original
        openssh.use_with_paramiko()
        assert CHACHA not in T(b, strict_kex=False).preferred_ciphers
    finally:
        openssh.use_with_paramiko(False)
        a.close()
        b.close()
