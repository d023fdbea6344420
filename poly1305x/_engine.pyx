# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Engine: the state-holding objects and one-shot functions over the kernels.

Everything here is built without ISA flags and reaches the kernels only through
the kernel_table that the dispatcher selected when the object (or call) began.
The public faces (Poly1305.py, mac.py, ChaCha20.py, ChaCha20_Poly1305.py,
aead.py) are thin layers over these classes; _ssh.pyx frames OpenSSH's cipher
over the same AEAD core.

One module, in five files by concern:
  _engine_buffers.pxi  borrowing buffers; the objects' life-cycle/busy word
  _engine_mac.pxi      the Poly1305 streaming state and the MAC objects
  _engine_stream.pxi   the ChaCha20 key stream (nonce, seek, threads) and
                       the ChaCha20 object
  _engine_aead.pxi     the encrypt-then-MAC core and the AEAD objects
  _engine_batch_run.pxi
                       many AEAD messages in one call, the C core
  _engine_batch.pxi    its face (encrypt_many, decrypt_many ...)
  _engine_poly1305_chacha20.pxi
                       Poly1305.new keyed from ChaCha20 block 0 (the
                       pycryptodome face's fast path)

Buffers are read with PyObject_GetBuffer (a bytes fast path first): a typed
memoryview argument would cost ~75 ns a call.  The GIL is released for inputs
of GIL_THRESHOLD bytes or more, with the buffers held for the whole call.
"""
cimport cython
from cpython.buffer cimport (
    PyBUF_FULL_RO, PyBUF_SIMPLE, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer,
)
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.mem cimport PyMem_Calloc, PyMem_Free
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from poly1305x._dispatch cimport active_kernels
from poly1305x._kernels._common cimport (
    chacha20_init_state, hchacha20, poly1305_finish, poly1305_init, tags_equal, wipe,
)
from poly1305x._kernels._kernel cimport kernel_table
from poly1305x._util cimport load32_le, store64_le

import operator
import os
from os import urandom

from poly1305x._errors import (
    AlreadyFinalized, InvalidSignature, InvalidTag, MessageTooLongError, NotContiguousError,
)

cdef extern from "Python.h":
    bint PyBytes_CheckExact(object o)
    bint PyIndex_Check(object o)

# Encrypt-then-MAC in slices this big, so the MAC reads what the cipher just
# wrote while it is still in L1/L2.
cdef size_t SLICE = 16384

include "_engine_buffers.pxi"
include "_engine_mac.pxi"
include "_engine_stream.pxi"
include "_engine_aead.pxi"
include "_engine_batch_run.pxi"
include "_engine_batch.pxi"
include "_engine_poly1305_chacha20.pxi"

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
