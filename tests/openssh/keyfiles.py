"""OpenSSH private-key files made by ssh-keygen for the tests of this group:
each key type unencrypted, re-encrypted with chacha20-poly1305 and with one AES
cipher of a sample, and a small one-round chacha key for the byte-by-byte tests.

ssh-keygen is required: without it the tests that use these keys fail (CI
installs openssh-client); nothing is skipped."""
import os
import shutil
import subprocess

import pytest

from tests.support.helpers import ssh_keygen

SSH_KEYGEN = shutil.which("ssh-keygen")
CHACHA = "chacha20-poly1305@openssh.com"
WRONG = "incorrect passphrase or damaged key"

# (name, ssh-keygen -t/-b arguments, passphrase)
KEY_TYPES = [
    ("ed25519", ["-t", "ed25519"], "pässwörd ✓ 密码🔑"),
    ("rsa2048", ["-t", "rsa", "-b", "2048"], "correct horse battery staple"),
    ("ecdsa256", ["-t", "ecdsa", "-b", "256"], "Ünïcødé"),
    ("ecdsa384", ["-t", "ecdsa", "-b", "384"], "p"),
    ("ecdsa521", ["-t", "ecdsa", "-b", "521"], "спасибо"),
]
NAMES = [k[0] for k in KEY_TYPES]
PASS = {k[0]: k[2] for k in KEY_TYPES}
# A sample of the AES ciphers, each on a different key type.
AES_SAMPLE = [
    ("ed25519", "aes256-ctr"),
    ("rsa2048", "aes256-gcm@openssh.com"),
    ("ecdsa256", "aes128-cbc"),
    ("ecdsa384", "aes128-gcm@openssh.com"),
    ("ecdsa521", "aes192-ctr"),
    ("ed25519", "aes256-cbc"),
    ("ecdsa256", "aes128-ctr"),
    ("ed25519", "aes192-cbc"),
]


def keygen(*args, input=None):
    if SSH_KEYGEN is None:
        pytest.fail("ssh-keygen is not installed: these tests need it "
                    "(apt-get install openssh-client)")
    r = subprocess.run([SSH_KEYGEN, *args], capture_output=True, input=input, timeout=60)
    return r


def write_key(path, data):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return str(path)


def pub_of(line):
    """type and base64 of a public key line (comment dropped)."""
    if isinstance(line, bytes):
        line = line.decode()
    return " ".join(line.split()[:2])


class Keys:
    """Key files made once per session: for each type an unencrypted key and
    the same key re-encrypted by ssh-keygen -p with chacha20-poly1305 and with
    one AES cipher of the sample."""

    def __init__(self, root):
        self.root = root
        self.plain, self.chacha, self.aes, self.pub = {}, {}, {}, {}
        for name, targs, pw in KEY_TYPES:
            base = root / name
            r = keygen("-q", *targs, "-N", "", "-C", f"test {name} ¢omment", "-f", str(base))
            assert r.returncode == 0, r.stderr
            self.plain[name] = base.read_bytes()
            self.pub[name] = (root / (name + ".pub")).read_text()
            enc = root / (name + ".chacha")
            write_key(enc, self.plain[name])
            r = keygen("-q", "-p", "-P", "", "-N", pw, "-Z", CHACHA, "-a", "2", "-f", str(enc))
            assert r.returncode == 0, r.stderr
            self.chacha[name] = enc.read_bytes()
        for name, cipher in AES_SAMPLE:
            enc = root / f"{name}.{cipher}"
            write_key(enc, self.plain[name])
            r = keygen("-q", "-p", "-P", "", "-N", PASS[name], "-Z", cipher, "-a", "2",
                       "-f", str(enc))
            assert r.returncode == 0, r.stderr
            self.aes[name, cipher] = enc.read_bytes()
        # A small chacha key with one kdf round for the byte-by-byte tests.
        small = root / "small"
        r = keygen("-q", "-t", "ed25519", "-N", "flip", "-Z", CHACHA, "-a", "1", "-C", "x",
                   "-f", str(small))
        assert r.returncode == 0, r.stderr
        self.small = small.read_bytes()


#: every key type of ssh-keygen but DSA: {name: ssh-keygen -t/-b arguments}
ALL_TYPES = {
    "ed25519": ["-t", "ed25519"],
    "ecdsa256": ["-t", "ecdsa", "-b", "256"],
    "ecdsa384": ["-t", "ecdsa", "-b", "384"],
    "ecdsa521": ["-t", "ecdsa", "-b", "521"],
    "rsa": ["-t", "rsa", "-b", "2048"],
}


def make_key_files(root, types, ciphers, password, comment):
    """{(type, cipher): PEM} for each type of `types` ({name: ssh-keygen -t/-b
    arguments}): the key ssh-keygen made, unencrypted under "none", and the
    same key re-encrypted by ssh-keygen -p -Z with each of `ciphers` (one kdf
    round).  `comment` is formatted with the type's name."""
    out = {}
    for name, targs in types.items():
        base = root / name
        ssh_keygen("-q", *targs, "-N", "", "-C", comment.format(name=name), "-f", str(base))
        out[name, "none"] = base.read_bytes()
        for cipher in ciphers:
            path = root / f"{name}-{cipher}"
            write_key(path, out[name, "none"])
            ssh_keygen("-q", "-p", "-P", "", "-N", password, "-Z", cipher, "-a", "1",
                       "-f", str(path))
            out[name, cipher] = path.read_bytes()
    return out
