"""Fuzz target: the OpenSSH private-key parser, poly1305x.openssh.decrypt(),
with mutated key files.  Whatever the input, the only exception allowed is
ValueError; a key that decrypts must decrypt again, unencrypted, to itself.

Input: the first byte picks the form: even -> the rest is the PEM text as is;
odd -> the rest is the binary openssh-key-v1 blob, armoured here (so that
mutations reach the parser instead of dying in base64).  The passphrase is
"fuzz"; kdf rounds above 2 are refused by max_rounds=2 (a ValueError), so a
mutated rounds field cannot stall the run.
"""
import base64

from tests.fuzz._common import Input, fuzz_main

from poly1305x import openssh      # must import: the CI fuzz job fails without it

PASSPHRASE = b"fuzz"
MAX_ROUNDS = 2


def armour(blob):
    b64 = base64.b64encode(blob)
    lines = [b64[i:i + 70] for i in range(0, len(b64), 70)]
    return (b"-----BEGIN OPENSSH PRIVATE KEY-----\n" + b"\n".join(lines)
            + b"\n-----END OPENSSH PRIVATE KEY-----\n")


def TestOneInput(data):
    inp = Input(data)
    form = inp.u8()
    body = inp.rest()
    text = armour(body) if form & 1 else body
    try:
        plain = openssh.decrypt(text, PASSPHRASE, max_rounds=MAX_ROUNDS)
    except ValueError:
        return
    if not isinstance(plain, bytes):
        raise AssertionError(f"decrypt returned {type(plain).__name__}")
    again = openssh.decrypt(plain, None, max_rounds=MAX_ROUNDS)
    if again != plain:
        raise AssertionError("an unencrypted key did not decrypt to itself")


def main():
    fuzz_main(TestOneInput)


if __name__ == "__main__":
    main()
