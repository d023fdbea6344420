"""A real OpenSSH ``sshd`` on 127.0.0.1 for interoperability tests.

    with Sshd(tmp_path, rekey_limit="1M") as sshd:
        sshd.authorize(public_key_line)          # an authorized_keys line
        sshd.port, sshd.user, sshd.host_key      # where and whom to connect to
        sshd.known_hosts_line()                  # '[127.0.0.1]:PORT ssh-ed25519 AAAA...'
        sshd.log()                               # sshd's log (LogLevel DEBUG1)

The server runs in the foreground (``sshd -D -E LOGFILE``) from a generated
configuration: a fresh ed25519 host key, ``Ciphers`` restricted to the given
list (default: chacha20-poly1305@openssh.com only), the given ``RekeyLimit``,
public-key authentication only, an AuthorizedKeysFile in the temporary
directory, ``UsePAM no``, ``StrictModes no``, no PID file and the in-process
SFTP server.  It accepts the user running the tests (root in CI; sshd needs
root's privilege separation directory /run/sshd, created here).

``Sshd.available()`` says whether /usr/sbin/sshd and ssh-keygen exist
(Debian: ``apt-get install openssh-server openssh-client``; .ci/run installs
them).  A missing sshd, or one that does not come up, fails the test: never a
skip.  In pytest, the ``openssh_sshd`` fixture is a factory of started servers
that are all stopped when the test ends::

    from tests.support.sshd import openssh_sshd            # noqa: F401  (the fixture)

    def test_x(openssh_sshd):
        server = openssh_sshd(rekey_limit="1M")
"""
import os
import pwd
import shutil
import socket
import subprocess
import time

import pytest

SSHD = os.environ.get("POLY1305X_SSHD", "/usr/sbin/sshd")
SSH_KEYGEN = shutil.which("ssh-keygen") or "/usr/bin/ssh-keygen"
CHACHA = "chacha20-poly1305@openssh.com"


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def keygen(path, key_type="ed25519", passphrase="", cipher=None, comment="poly1305x-test",
           rounds=None):
    """ssh-keygen a key pair at ``path`` (and ``path.pub``); returns the public line.
    ``cipher`` is ssh-keygen's -Z (e.g. chacha20-poly1305@openssh.com)."""
    cmd = [SSH_KEYGEN, "-q", "-t", key_type, "-N", passphrase, "-C", comment, "-f", str(path)]
    if cipher:
        cmd += ["-Z", cipher]
    if rounds:
        cmd += ["-a", str(rounds)]
    subprocess.run(cmd, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    with open(f"{path}.pub") as f:
        return f.read().strip()


class Sshd:
    """OpenSSH's sshd on 127.0.0.1:<free port>, in ``directory``."""

    host = "127.0.0.1"

    def __init__(self, directory, *, ciphers=(CHACHA,), rekey_limit="1M", options=()):
        self.dir = os.fspath(directory)
        self.ciphers = (ciphers,) if isinstance(ciphers, str) else tuple(ciphers)
        self.rekey_limit = rekey_limit
        self.options = tuple(options)     # extra "Keyword value" lines
        self.user = pwd.getpwuid(os.getuid()).pw_name
        self.port = None
        self.proc = None
        self.host_key = os.path.join(self.dir, "ssh_host_ed25519_key")
        self.authorized_keys = os.path.join(self.dir, "authorized_keys")
        self.config = os.path.join(self.dir, "sshd_config")
        self.log_path = os.path.join(self.dir, "sshd.log")
        self.host_public_key = None

    @staticmethod
    def available():
        return os.access(SSHD, os.X_OK) and os.access(SSH_KEYGEN, os.X_OK)

    def authorize(self, public_key_line):
        """Append an authorized_keys line, str or bytes (sshd reads the file
        at each login)."""
        if isinstance(public_key_line, bytes):
            public_key_line = public_key_line.decode()
        with open(self.authorized_keys, "a") as f:
            f.write(public_key_line.strip() + "\n")

    def known_hosts_line(self):
        return f"[{self.host}]:{self.port} {self.host_public_key}"

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def _write_config(self):
        lines = [
            f"ListenAddress {self.host}:{self.port}",
            f"HostKey {self.host_key}",
            "PidFile none",
            "UsePAM no",
            "StrictModes no",
            f"AuthorizedKeysFile {self.authorized_keys}",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password",
            f"Ciphers {','.join(self.ciphers)}",
            f"RekeyLimit {self.rekey_limit}",
            "Subsystem sftp internal-sftp",
            "LogLevel DEBUG1",
            *self.options,
        ]
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self, timeout=15.0):
        if not self.available():
            raise RuntimeError(f"{SSHD} or ssh-keygen missing: apt-get install openssh-server")
        if os.getuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        if not os.path.exists(self.host_key):
            self.host_public_key = " ".join(
                keygen(self.host_key, comment="poly1305x-test-host").split()[:2])
        open(self.authorized_keys, "a").close()
        for _ in range(5):          # another process may take the port in between
            self.port = free_port()
            self._write_config()
            subprocess.run([SSHD, "-t", "-f", self.config], check=True, capture_output=True)
            # -E, not -e: with -e the session process's own debug lines would
            # reach the client as the first lines of a command's stderr.
            log = open(self.log_path, "ab")
            self.proc = subprocess.Popen([SSHD, "-D", "-E", self.log_path, "-f", self.config],
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=log)
            log.close()
            if self._wait_ready(timeout):
                return self
            self.stop()
        raise RuntimeError("sshd did not start:\n" + self.log())

    def _wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                with socket.create_connection((self.host, self.port), timeout=2) as s:
                    if s.recv(64).startswith(b"SSH-2.0-"):
                        return True
            except OSError:
                time.sleep(0.05)
        return False

    def stop(self):
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


@pytest.fixture
def openssh_sshd(tmp_path):
    """A factory: ``openssh_sshd(ciphers=..., rekey_limit=..., options=[...])``
    starts an :class:`Sshd` in a fresh directory; all are stopped at the end
    of the test."""
    servers = []

    def start(**kw):
        directory = tmp_path / f"sshd{len(servers)}"
        directory.mkdir()
        server = Sshd(directory, **kw)
        servers.append(server)
        return server.start()

    try:
        yield start
    finally:
        for server in servers:
            server.stop()
