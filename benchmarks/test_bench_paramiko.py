"""paramiko SFTP throughput over loopback to OpenSSH's sshd: chacha20-poly1305@openssh.com
on poly1305x (``use_with_paramiko()``) next to paramiko's own ciphers.

    python -m pytest benchmarks/test_bench_paramiko.py --benchmark-columns=median,rounds

Needs /usr/sbin/sshd (Debian: openssh-server; as root, /run/sshd).  Each case
moves 16 MiB in one SFTP call (``putfo`` to /dev/null, ``getfo`` of a file in
the page cache) on a connection made once per cipher; ``extra_info`` has the
throughput in MB/s and the client process's CPU time per transfer (all its
threads; ``--benchmark-json`` keeps both).  Client, server and the two processes' crypto share the
machine, so the figures are end to end, not the cipher alone.
"""
import io
import os
import statistics
import time

import paramiko
import pytest

from poly1305x import openssh
from tests.support.sshd import CHACHA, Sshd, keygen

SIZE = 16 << 20
# (library label, cipher, mac): the MAC is ignored by the AEAD ciphers
CASES = [
    ("poly1305x", CHACHA, "hmac-sha2-256"),
    ("paramiko-aes128-ctr-hmac-sha2-256", "aes128-ctr", "hmac-sha2-256"),
    ("paramiko-aes128-gcm", "aes128-gcm@openssh.com", "hmac-sha2-256"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("bench-sshd")
    ciphers = [c for _, c, _ in CASES]
    with Sshd(d, ciphers=ciphers, rekey_limit="default none") as s:
        s.authorize(keygen(d / "id", "ed25519"))
        (d / "payload").write_bytes(os.urandom(SIZE))
        yield s, d


@pytest.fixture(scope="module", params=CASES, ids=[c[0] for c in CASES])
def sftp(request, server):
    library, cipher, mac = request.param
    s, d = server
    was = openssh.use_with_paramiko(cipher == CHACHA)
    T = paramiko.Transport
    disabled = {"ciphers": [c for c in T._preferred_ciphers if c != cipher],
                "macs": [m for m in T._preferred_macs if m != mac]}
    client = paramiko.SSHClient()
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    client.connect(s.host, s.port, username=s.user, key_filename=str(d / "id"),
                   look_for_keys=False, allow_agent=False, disabled_algorithms=disabled)
    t = client.get_transport()
    assert t.local_cipher == t.remote_cipher == cipher
    sftp = client.open_sftp()
    try:
        yield library, cipher, sftp, d
    finally:
        sftp.close()
        client.close()
        openssh.use_with_paramiko(was)


def _run(benchmark, sftp, operation, fn):
    library, cipher, _, _ = sftp
    benchmark.group = f"paramiko-sftp-{operation}-16MiB"
    benchmark.extra_info.update(library=library, cipher=cipher, operation=f"sftp-{operation}",
                                size=SIZE, version=paramiko.__version__, backend=None)
    cpu = []

    def timed():
        # the client process's CPU time (all its threads): what the cipher
        # choice costs paramiko's side, apart from the server and the wait
        t0 = time.process_time()
        fn()
        cpu.append(time.process_time() - t0)

    benchmark.pedantic(timed, rounds=7, iterations=1, warmup_rounds=1)
    benchmark.extra_info["MB/s"] = round(SIZE / benchmark.stats.stats.median / 1e6, 1)
    benchmark.extra_info["client CPU ms"] = round(statistics.median(cpu[1:]) * 1e3, 1)


def test_sftp_put(benchmark, sftp):
    client, data = sftp[2], io.BytesIO(os.urandom(SIZE))

    def put():
        data.seek(0)
        client.putfo(data, "/dev/null", file_size=SIZE, confirm=False)

    _run(benchmark, sftp, "put", put)


def test_sftp_get(benchmark, sftp):
    client, path = sftp[2], str(sftp[3] / "payload")

    def get():
        out = io.BytesIO()
        client.getfo(path, out)
        assert out.tell() == SIZE

    _run(benchmark, sftp, "get", get)
