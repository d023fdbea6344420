"""Write the seed corpora in tests/fuzz/corpus/<target>/ (file names are the
SHA-1 of the contents, as libFuzzer names them).  Run once; the CI fuzz job
starts from these seeds and can merge what it finds back with
FUZZ_UPDATE_CORPUS=1 .ci/fuzz.sh.  The OpenSSH seeds are made with ssh-keygen
(-a 1, passphrase "fuzz")."""
import base64
import hashlib
import os
import random
import shutil
import struct
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def _write(target, blobs):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for b in blobs:
        with open(os.path.join(d, hashlib.sha1(b).hexdigest()), "wb") as fh:
            fh.write(b)
    return len(blobs)


def poly1305_seeds(rng):
    out = []
    for n in (0, 1, 15, 16, 17, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 2048, 4000):
        for face in range(4):
            ncuts = rng.randrange(8)
            head = bytes([rng.randrange(8), face]) + rng.randbytes(32) + bytes([ncuts])
            head += b"".join(struct.pack("<H", rng.randrange(600)) for _ in range(ncuts))
            out.append(head + bytes([rng.randrange(256)]) + rng.randbytes(n))
    # r = 0 and all-ones keys, messages of 0xff (carries)
    out.append(bytes([0, 0]) + bytes(32) + b"\0\0" + b"\xff" * 100)
    out.append(bytes([1, 0]) + b"\xff" * 32 + b"\0\0" + b"\xff" * 1000)
    return out


def aead_seeds(rng):
    out = []
    for mode in range(4):
        for nlen_bit in (0, 1):
            for n in (0, 1, 16, 63, 64, 65, 447, 448, 449, 1100):
                nlen = 24 if nlen_bit else 12
                b = bytes([rng.randrange(8), mode, nlen_bit]) + rng.randbytes(32 + nlen)
                alen = rng.randrange(64)
                b += bytes([alen]) + rng.randbytes(alen) + struct.pack("<H", n) + rng.randbytes(n)
                b += rng.randbytes(24)          # mutation program / raw ciphertext
                out.append(b)
    return out


def openssh_seeds():
    if shutil.which("ssh-keygen") is None:
        print("ssh-keygen not found: no OpenSSH seeds")
        return []
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        specs = [
            ("ed25519", [], "fuzz", "chacha20-poly1305@openssh.com"),
            ("ed25519", [], "fuzz", "aes256-ctr"),
            ("ed25519", [], "", None),
            ("ecdsa", ["-b", "256"], "fuzz", "chacha20-poly1305@openssh.com"),
            ("ecdsa", ["-b", "384"], "", None),
            ("rsa", ["-b", "1024"], "fuzz", "chacha20-poly1305@openssh.com"),
            ("rsa", ["-b", "1024"], "", None),
            ("dsa", [], "fuzz", "aes128-cbc"),
        ]
        for i, (kind, extra, pw, cipher) in enumerate(specs):
            path = os.path.join(tmp, f"k{i}")
            cmd = ["ssh-keygen", "-q", "-t", kind, *extra, "-N", pw, "-a", "1",
                   "-C", f"fuzz seed {i}", "-f", path]
            if cipher:
                cmd[1:1] = ["-Z", cipher]
            try:
                subprocess.run(cmd, check=True, capture_output=True)
            except subprocess.CalledProcessError as exc:
                print("skipped", kind, cipher, exc.stderr.decode().strip())
                continue
            pem = open(path, "rb").read()
            body = b"".join(pem.strip().splitlines()[1:-1])
            out.append(b"\0" + pem)                        # PEM as is
            out.append(b"\1" + base64.b64decode(body))    # the blob, armoured by the target
    return out


def main():
    rng = random.Random(20240610)
    for target in ("poly1305", "aead_open", "openssh"):
        shutil.rmtree(os.path.join(HERE, "corpus", target), ignore_errors=True)
    print("poly1305", _write("poly1305", poly1305_seeds(rng)))
    print("aead_open", _write("aead_open", aead_seeds(rng)))
    print("openssh", _write("openssh", openssh_seeds()))


if __name__ == "__main__":
    main()
