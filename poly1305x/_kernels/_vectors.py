"""RFC 8439's known answers, one copy: the dispatcher's self-test (run on every
backend when it is first loaded), ``python -m poly1305x selftest``
(poly1305x._tools._selftest) and the tests read them from here.  Plain data, no
imports: it sits with the kernels so that the lowest layer that checks them
(the dispatcher) imports nothing above itself."""


def _h(text):
    return bytes.fromhex("".join(text.split()))


#: The plaintext of RFC 8439 sections 2.4.2 and 2.8.2.
SUNSCREEN = (b"Ladies and Gentlemen of the class of '99: If I could offer you only one "
             b"tip for the future, sunscreen would be it.")

#: RFC 8439 section 2.5.2: Poly1305 of a short message.
POLY1305_2_5_2 = {
    "key": _h("85d6be7857556d337f4452fe42d506a8 0103808afb0db2fd4abff6af4149f51b"),
    "msg": b"Cryptographic Forum Research Group",
    "tag": _h("a8061dc1305136c6c22b8baf0c0127a9"),
}

#: RFC 8439 section 2.3.2: the ChaCha20 block function, block counter 1.
CHACHA20_BLOCK_2_3_2 = {
    "key": bytes(range(32)),
    "nonce": _h("000000090000004a00000000"),
    "counter": 1,
    "block": _h("""
        10f1e7e4d13b5915500fdd1fa32071c4c7d1f4c733c068030422aa9ac3d46c4e
        d2826446079faa0914c2d705d98b02a2b5129cd1de164eb9cbd083e8a2503c4e"""),
}

#: RFC 8439 section 2.4.2: ChaCha20 encryption from block counter 1.
CHACHA20_2_4_2 = {
    "key": bytes(range(32)),
    "nonce": _h("000000000000004a00000000"),
    "counter": 1,
    "pt": SUNSCREEN,
    "ct": _h("""
        6e2e359a2568f98041ba0728dd0d6981 e97e7aec1d4360c20a27afccfd9fae0b
        f91b65c5524733ab8f593dabcd62b357 1639d624e65152ab8f530c359f0861d8
        07ca0dbf500d6a6156a38e088a22b65e 52bc514d16ccf806818ce91ab7793736
        5af90bbf74a35be6b40b8eedf2785e42 874d"""),
}

#: RFC 8439 section 2.8.2: the AEAD.
AEAD_2_8_2 = {
    "key": bytes(range(0x80, 0xA0)),
    "nonce": _h("070000004041424344454647"),
    "aad": _h("50515253c0c1c2c3c4c5c6c7"),
    "pt": SUNSCREEN,
    "ct": _h("""
        d31a8d34648e60db7b86afbc53ef7ec2 a4aded51296e08fea9e2b5a736ee62d6
        3dbea45e8ca9671282fafb69da92728b 1a71de0a9e060b2905d6a5b67ecd3b36
        92ddbd7f2d778b8c9803aee328091b58 fab324e4fad675945585808b4831d7bc
        3ff4def08e4b7a9de576d26586cec64b 6116"""),
    "tag": _h("1ae10b594f09e26a7e902ecbd0600691"),
}
