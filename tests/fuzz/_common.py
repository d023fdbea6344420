"""Shared by the fuzz targets: the backend list and the input reader.

Every target is a module with ``TestOneInput(data: bytes)`` (raises on a
finding) and a ``main()`` that hands it to atheris (libFuzzer); it runs from
the root of the tree as ``python -m tests.fuzz.fuzz_x`` (.ci/fuzz.sh), which
is how it reaches tests.support.reference.  Without atheris,
``python -m tests.fuzz.replay`` runs a corpus through the same function (the
test suite does that under the sanitizer build)."""
import sys


def backends():
    import poly1305x
    from poly1305x._core import _dispatch
    return poly1305x.backends() + _dispatch.emulated_backends()


def fuzz_main(test_one_input):
    """Run under atheris: ``python -m tests.fuzz.fuzz_x [libFuzzer flags] [corpus dirs]``.
    Coverage feedback comes from the Python code already imported (the
    faces, poly1305x.openssh, the reference), instrumented here; the compiled
    kernels are not instrumented (no clang here), so they are checked by the
    differential oracles instead, and the corpus is replayed under ASan+UBSan
    by tests/hardening/test_hardening_buffers.py in the sanitizer job."""
    import atheris
    atheris.instrument_all()
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


class Input:
    """A small FuzzedDataProvider that also works without atheris (replay)."""

    def __init__(self, data):
        self.data = data
        self.pos = 0

    def left(self):
        return len(self.data) - self.pos

    def bytes(self, n):
        out = self.data[self.pos:self.pos + n]
        self.pos += len(out)
        return out

    def exact(self, n):
        """n bytes, zero-padded when the input runs out."""
        b = self.bytes(n)
        return b + bytes(n - len(b))

    def u8(self):
        b = self.bytes(1)
        return b[0] if b else 0

    def u16(self):
        b = self.exact(2)
        return b[0] | b[1] << 8

    def pick(self, seq):
        return seq[self.u8() % len(seq)]

    def rest(self):
        return self.bytes(self.left())
