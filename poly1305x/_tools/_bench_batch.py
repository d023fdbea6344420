"""The batch rows of the benchmark (``aead-batch-N<n>`` operations, one per
batch size): ``encrypt_many`` of N messages against a loop of N one-message
``encrypt`` calls of poly1305x and of cryptography, timed per message.

Each maker returns the callable of one case, with ``messages`` (N) set on it:
``_bench.run_bench`` divides its time by that, so a row's time is per message
and its GB/s the message bytes per second.  The loops are one Python frame
for the N calls, the same code for both libraries (a bound method called
straight, no wrapper per call), and keep the N ciphertexts in a list as
encrypt_many does."""
from functools import partial

BATCH_COUNTS = (1, 16, 64, 256)
BATCH_SIZES = (0, 64, 256, 1024, 16384, 1048576)
BATCH_BYTES = 16 * 1048576      # no row of more message bytes than this a call


def batch_sizes(count):
    """The sizes of the N = count rows: N * size at most BATCH_BYTES."""
    return tuple(size for size in BATCH_SIZES if count * size <= BATCH_BYTES)
_KEY = bytes(range(32))
_AAD = b"header: 16 bytes"


def operation(count):
    return f"aead-batch-N{count}"


def _inputs(count, size):
    nonces = [i.to_bytes(12, "little") for i in range(count)]
    ramp = bytes(range(256)) * (size // 256 + 2)       # byte j of message i: (i + j) & 255
    data = [ramp[i & 255:(i & 255) + size] for i in range(count)]
    return nonces, data, [_AAD] * count


def _loop(encrypt, nonces, data, aads):
    """N calls in one frame, keeping the ciphertexts as encrypt_many returns
    them (a list): the same output, so the same memory traffic."""
    work = list(zip(nonces, data, aads))

    def run():
        return [encrypt(n, d, a) for n, d, a in work]
    return run


def batch_poly1305x(count):
    def maker(size):
        from poly1305x.aead import ChaCha20Poly1305
        fn = partial(ChaCha20Poly1305(_KEY).encrypt_many, *_inputs(count, size))
        fn.messages = count
        return fn
    return maker


def loop_poly1305x(count):
    def maker(size):
        from poly1305x.aead import ChaCha20Poly1305
        fn = _loop(ChaCha20Poly1305(_KEY).encrypt, *_inputs(count, size))
        fn.messages = count
        return fn
    return maker


def loop_cryptography(count):
    def maker(size):
        from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
        fn = _loop(ChaCha20Poly1305(_KEY).encrypt, *_inputs(count, size))
        fn.messages = count
        return fn
    return maker


# The consumer: transport messages of a Noise connection (poly1305x.noise)

NOISE_OPERATION = "noise-transport-N64"
NOISE_COUNT = 64
NOISE_SIZES = (64, 1024)


def _noise_pair(ours):
    """An established Noise_NN connection (initiator, responder), on poly1305x
    or on noiseprotocol's own (cryptography) cipher."""
    from noise.backends.default import noise_backend
    from noise.connection import NoiseConnection
    from poly1305x import noise
    backend = noise.backend() if ours else noise_backend
    init = NoiseConnection.from_name(b"Noise_NN_25519_ChaChaPoly_SHA256", backend=backend)
    resp = NoiseConnection.from_name(b"Noise_NN_25519_ChaChaPoly_SHA256", backend=backend)
    init.set_as_initiator()
    resp.set_as_responder()
    init.start_handshake()
    resp.start_handshake()
    resp.read_message(init.write_message())
    init.read_message(resp.write_message())
    return init


def _noise_messages(size):
    return [bytes((i + j) & 255 for j in range(size)) for i in range(NOISE_COUNT)]


def noise_batch(size):
    from poly1305x import noise
    fn = partial(noise.encrypt_many, _noise_pair(True), _noise_messages(size))
    fn.messages = NOISE_COUNT
    return fn


def noise_loop(ours):
    def maker(size):
        encrypt, msgs = _noise_pair(ours).encrypt, _noise_messages(size)

        def run():
            for m in msgs:
                encrypt(m)
        run.messages = NOISE_COUNT
        return run
    return maker


OPERATIONS = {
    NOISE_OPERATION: "Noise transport messages of one connection (64 per call): "
                     "poly1305x.noise.encrypt_many against a loop of NoiseConnection.encrypt; "
                     "time per message",
    **{operation(n): f"ChaCha20-Poly1305 encrypt of {n} messages: encrypt_many against a "
                     "loop of encrypt; time per message" for n in BATCH_COUNTS},
}


def cases(case):
    """The batch rows as _bench.Case objects (``case`` is that class)."""
    out = [
        case(NOISE_OPERATION, "poly1305x", noise_batch, sizes=NOISE_SIZES,
             variant="noise.encrypt_many", needs=("noiseprotocol",)),
        case(NOISE_OPERATION, "poly1305x", noise_loop(True), sizes=NOISE_SIZES,
             variant="loop of connection.encrypt", needs=("noiseprotocol",)),
        case(NOISE_OPERATION, "cryptography", noise_loop(False), sizes=NOISE_SIZES,
             variant="through noiseprotocol, loop", needs=("noiseprotocol",)),
    ]
    for n in BATCH_COUNTS:
        out += [
            case(operation(n), "poly1305x", batch_poly1305x(n), sizes=batch_sizes(n),
                 variant="encrypt_many"),
            case(operation(n), "poly1305x", loop_poly1305x(n), sizes=batch_sizes(n),
                 variant="loop of encrypt"),
            case(operation(n), "cryptography", loop_cryptography(n), sizes=batch_sizes(n),
                 variant="loop of encrypt"),
        ]
    return out
