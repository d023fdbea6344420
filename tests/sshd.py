"""A real OpenSSH server on loopback for interop tests: ``openssh_sshd``.

Debian's ``openssh-server`` (``/usr/sbin/sshd``; .ci/run installs it and
creates /run/sshd).  Each server gets a temporary directory with a fresh
ed25519 host key, a generated ``sshd_config`` and an ``authorized_keys`` file,
and listens on a free 127.0.0.1 port in the foreground (``sshd -D -e``), its
log captured.  It needs root (privilege separation); a missing sshd or a
server that does not come up is a test failure, never a skip.

Use::

    from sshd import openssh_sshd            # noqa: F401  (the fixture)

    def test_x(openssh_sshd):
        server = openssh_sshd(ciphers="chacha20-poly1305@openssh.com",
                              rekey_limit="1M")
        server.authorize(public_key_line)    # an authorized_keys line
        ... connect to server.host, server.port as server.user ...
        server.log()                         # what sshd printed so far

or, outside pytest, ``with OpenSSHServer(directory, ...) as server: ...``.
"""
import getpass
import os
import socket
import subprocess
import threading
import time

import pytest

SSHD = "/usr/sbin/sshd"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OpenSSHServer:
    """One sshd process.  ``ciphers``, ``rekey_limit`` ("<bytes> [<seconds>]",
    as sshd_config's RekeyLimit) and ``extra`` (more config lines) shape the
    server; ``host``, ``port``, ``user``, ``host_key_pub`` (the host key's
    public line) describe it."""

    def __init__(self, directory, ciphers="chacha20-poly1305@openssh.com",
                 rekey_limit=None, extra=()):
        self.dir = str(directory)
        self.host = "127.0.0.1"
        self.user = getpass.getuser()
        self.ciphers = ciphers
        self.rekey_limit = rekey_limit
        self.extra = list(extra)
        self.proc = None
        self._log = []
        self._log_lock = threading.Lock()

    # -- set-up ---------------------------------------------------------------

    def _prepare(self):
        if not os.path.exists(SSHD):
            pytest.fail(f"{SSHD} is missing: these tests need OpenSSH's server "
                        "(apt-get install openssh-server; .ci/run does this)")
        if os.geteuid() != 0:
            pytest.fail("sshd needs root for privilege separation (run the suite as root, "
                        "as .ci/run does)")
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)   # privsep directory
        self.host_key = os.path.join(self.dir, "ssh_host_ed25519_key")
        r = subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                            self.host_key], capture_output=True, timeout=60)
        if r.returncode:
            pytest.fail(f"ssh-keygen (host key): {r.stderr.decode()}")
        with open(self.host_key + ".pub") as fh:
            self.host_key_pub = " ".join(fh.read().split()[:2])
        self.authorized_keys = os.path.join(self.dir, "authorized_keys")
        open(self.authorized_keys, "a").close()
        os.chmod(self.authorized_keys, 0o600)
        self.port = free_port()
        lines = [
            f"ListenAddress {self.host}:{self.port}",
            f"HostKey {self.host_key}",
            f"AuthorizedKeysFile {self.authorized_keys}",
            "PubkeyAuthentication yes",
            "PasswordAuthentication no",
            "KbdInteractiveAuthentication no",
            "PermitRootLogin prohibit-password",
            "UsePAM no",
            "StrictModes no",
            "PidFile none",
            "LogLevel VERBOSE",
            "Subsystem sftp internal-sftp",
            "AcceptEnv LANG",
        ]
        if self.ciphers:
            lines.append(f"Ciphers {self.ciphers}")
        if self.rekey_limit:
            lines.append(f"RekeyLimit {self.rekey_limit}")
        lines += self.extra
        self.config = os.path.join(self.dir, "sshd_config")
        with open(self.config, "w") as fh:
            fh.write("\n".join(lines) + "\n")

    def authorize(self, public_key_line):
        """Add an authorized_keys line (str or bytes)."""
        if isinstance(public_key_line, bytes):
            public_key_line = public_key_line.decode()
        with open(self.authorized_keys, "a") as fh:
            fh.write(public_key_line.strip() + "\n")

    # -- running --------------------------------------------------------------

    def _drain(self):
        for line in self.proc.stderr:
            with self._log_lock:
                self._log.append(line.decode("utf-8", "replace"))

    def start(self):
        self._prepare()
        r = subprocess.run([SSHD, "-t", "-f", self.config], capture_output=True, timeout=60)
        if r.returncode:
            pytest.fail(f"sshd -t rejects the generated config: {r.stderr.decode()}")
        self.proc = subprocess.Popen([SSHD, "-D", "-e", "-f", self.config],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        threading.Thread(target=self._drain, daemon=True).start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if "Server listening" in self.log():
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        pytest.fail(f"sshd did not start listening:\n{self.log()}")

    def log(self):
        """Everything sshd printed so far."""
        with self._log_lock:
            return "".join(self._log)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


@pytest.fixture
def openssh_sshd(tmp_path):
    """A factory: ``openssh_sshd(ciphers=..., rekey_limit=..., extra=[...])``
    starts an :class:`OpenSSHServer` in a fresh directory; all are stopped at
    the end of the test."""
    servers = []

    def start(**kw):
        directory = tmp_path / f"sshd{len(servers)}"
        directory.mkdir()
        server = OpenSSHServer(directory, **kw)
        servers.append(server)
        return server.start()

    try:
        yield start
    finally:
        for server in servers:
            server.stop()


__all__ = ["OpenSSHServer", "free_port", "openssh_sshd", "SSHD"]
