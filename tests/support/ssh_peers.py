"""SSH peers and wire tools shared by the paramiko and asyncssh tests
(``from tests.support.ssh_peers import ...``):

* the ``enabled`` fixture: ``use_with_paramiko()`` for one test;
* the ``keygen_keys`` fixture: ssh-keygen key files of three types, plain and
  encrypted with chacha20-poly1305@openssh.com (``PASS``), and ``public_key``
  to read a public line as paramiko's key;
* ``Server`` / ``serve``: a paramiko server (``ServerInterface``) on a loopback
  socket, one connection, running "cat" or "sha256" exec commands;
* ``FlipProxy``: a threaded loopback relay that flips one bit on demand;
* the ``poly`` fixture: ``use_with_asyncssh()`` for one test, counting the
  Encryption objects it makes, and ``rekeys`` to read that count.
"""
import base64
import hashlib
import queue
import random
import socket
import threading

import paramiko
import pytest

from poly1305x import openssh

MiB = 1 << 20
CHACHA = "chacha20-poly1305@openssh.com"
PASS = "correct horse"


# --- paramiko ----------------------------------------------------------------

@pytest.fixture
def enabled():
    """use_with_paramiko() for one test (it must have been off), then off."""
    before = openssh.use_with_paramiko()
    assert before is False
    yield
    assert openssh.use_with_paramiko(False) is True


@pytest.fixture(scope="module")
def keygen_keys(tmp_path_factory):
    """ssh-keygen keys: {name: (path, public line)}; '<type>-chacha' ones are
    encrypted with chacha20-poly1305@openssh.com (PASS), '<type>' ones are not."""
    from tests.support.sshd import keygen
    d = tmp_path_factory.mktemp("keys")
    out = {}
    for kt in ("ed25519", "ecdsa", "rsa"):
        for enc in (False, True):
            name = f"{kt}-chacha" if enc else kt
            pub = keygen(d / name, kt, PASS if enc else "", CHACHA if enc else None, rounds=4)
            out[name] = (str(d / name), pub)
    return out


def public_key(public_line):
    """An OpenSSH public line as (key type, paramiko PKey)."""
    kind, b64 = public_line.split()[:2]
    return kind, paramiko.PKey.from_type_string(kind, base64.b64decode(b64))


# --- a paramiko server -------------------------------------------------------

class Server(paramiko.ServerInterface):
    """Public-key auth for one authorized key (an OpenSSH public line);
    session channels; exec commands queued for ``serve``."""

    def __init__(self, authorized):
        self.authorized = authorized
        self.commands = queue.Queue()

    def get_allowed_auths(self, username):
        return "publickey"

    def check_auth_publickey(self, username, key):
        ok = (key.get_name(), key.get_base64()) == tuple(self.authorized.split()[:2])
        return paramiko.AUTH_SUCCESSFUL if ok else paramiko.AUTH_FAILED

    def check_channel_request(self, kind, chanid):
        return paramiko.OPEN_SUCCEEDED if kind == "session" else \
            paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_exec_request(self, channel, command):
        self.commands.put(command)
        return True


def listen():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(30)
    return listener


def serve(listener, host_key, iface, result, channels=1, rekey_bytes=MiB,
          transport=paramiko.Transport):
    """Serve one connection: ``channels`` session channels one after the
    other.  "cat" sends everything back, "sha256" the hex digest of what came
    in, "send N SEED" sends ``random.Random(SEED).randbytes(N)`` and reads
    nothing.  ``result`` gets "transport", "received" (all channel data in),
    "started" (an Event set once a command runs), then "ok" or "error".
    ``transport(socket)`` makes the server's Transport."""
    received = result.setdefault("received", bytearray())
    started = result.setdefault("started", threading.Event())
    conn, _ = listener.accept()
    t = transport(conn)
    result["transport"] = t
    try:
        t.add_server_key(host_key)
        t.packetizer.REKEY_BYTES = rekey_bytes      # the server re-keys too
        t.start_server(server=iface)
        for _ in range(channels):
            ch = t.accept(30)
            if ch is None:
                raise RuntimeError("no channel opened")
            command = iface.commands.get(timeout=30)
            started.set()
            if command.startswith(b"send "):
                n, seed = map(int, command.split()[1:])
                ch.sendall(random.Random(seed).randbytes(n))
            else:
                h = hashlib.sha256()
                while True:
                    chunk = ch.recv(65536)
                    if not chunk:
                        break
                    received += chunk
                    h.update(chunk)
                    if command == b"cat":
                        ch.sendall(chunk)
                if command == b"sha256":
                    ch.sendall(h.hexdigest().encode() + b"\n")
            ch.send_exit_status(0)
            ch.close()
        result["ok"] = True
    except Exception as exc:  # reported by the test
        result["error"] = exc


# --- one flipped bit on the wire ----------------------------------------------

class FlipProxy:
    """127.0.0.1 TCP proxy to a server; after arm(direction), flips one bit of
    the next chunk going that way ('s2c' or 'c2s'), 8 bytes in (inside the
    packet that starts the chunk, after its 4-byte encrypted length)."""

    def __init__(self, port):
        self.target = port
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.armed = None
        self.flipped = threading.Event()
        self.threads = []
        threading.Thread(target=self._accept, daemon=True).start()

    def arm(self, direction):
        self.armed = direction

    def _accept(self):
        a, _ = self.listener.accept()
        b = socket.create_connection(("127.0.0.1", self.target))
        for src, dst, name in ((a, b, "c2s"), (b, a, "s2c")):
            th = threading.Thread(target=self._pump, args=(src, dst, name), daemon=True)
            th.start()
            self.threads.append(th)

    def _pump(self, src, dst, name):
        try:
            while True:
                chunk = src.recv(65536)
                if not chunk:
                    break
                if self.armed == name and len(chunk) > 8:
                    self.armed = None
                    chunk = bytearray(chunk)
                    chunk[8] ^= 0x10
                    self.flipped.set()
                dst.sendall(chunk)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.listener.close()


# --- asyncssh on poly1305x ----------------------------------------------------

@pytest.fixture
def poly(monkeypatch):
    """use_with_asyncssh() for one test, with a count of the Encryption
    objects made (two per key exchange and side), undone afterwards."""
    import asyncssh.encryption as enc

    was = openssh.use_with_asyncssh()
    cls = enc._enc_params[CHACHA.encode()][0]
    made = []
    real_new = cls.new.__func__

    def counting_new(klass, *args, **kw):
        obj = real_new(klass, *args, **kw)
        made.append(obj)
        return obj

    monkeypatch.setattr(cls, "new", classmethod(counting_new))
    try:
        yield made
    finally:
        monkeypatch.undo()
        openssh.use_with_asyncssh(was)


def rekeys(made, sides=1):
    """Key exchanges after the first, from the Encryption objects made."""
    return len(made) // (2 * sides) - 1
