# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Engine: the state-holding objects and one-shot functions over the kernels.

Everything here is built without ISA flags and reaches the kernels only through
the kernel_table that the dispatcher selected when the object (or call) began.
The public face modules (Poly1305.py, mac.py, ChaCha20.py,
ChaCha20_Poly1305.py, aead.py) re-export these classes and add only
pycryptodome's module constants and random default nonces;
poly1305x.openssh._ssh frames OpenSSH's cipher over the same AEAD core.

One module (a face's classes are cdef classes, and a cdef class's methods
live in its class body: one extension module keeps every call a direct C
call), in files by concern.  The core raises only InvalidTag and the shared
buffer and life-cycle errors of _buffers.pxi; a check it makes for a face is
returned as a FAIL_ code (_buffers.pxi), which the face words:
  _buffers.pxi         borrowing buffers; the objects' life-cycle/busy word;
                       the FAIL_ codes
  _mac.pxi             the Poly1305 streaming state; the MAC objects' base
  _stream.pxi          the ChaCha20 key stream (nonce, seek, threads) and the
                       encrypt/decrypt wrapper of the stream objects
  _bytes.pxi           the AEAD cores' byte steps, block count, bad-tag rule
  _aead.pxi            the one encrypt-then-MAC construction (also OpenSSH's)
  _batch.pxi           many RFC 8439 messages through the multi-buffer kernels
  _batch_inputs.pxi    the batch's message table: its memory, what it holds,
                       the outputs' places, the _into calls' private copies
  _short.pxi           one short RFC 8439 message in two kernel calls; its
                       seal and open over a ready key stream (ks_aead), which
                       the batch's per-message finish uses too
One file per face, with all of its checks and messages:
  _face_mac.pxi        cryptography's Poly1305
  _face_aead.pxi       cryptography's ChaCha20Poly1305, XChaCha20Poly1305
  _batch_nonces.pxi    the batch's refusal of a repeated (key, nonce) when sealing
  _face_aead_cg.pxi    the ChaCha20Poly1305 that install("cryptography") serves
  _face_quic.pxi       QUIC's ChaCha20 packet and header protection (aioquic's)
  _face_batch.pxi      their encrypt_many/decrypt_many (and the multi-key form):
                       the arguments' checks, filling the message table
  _face_ChaCha20.pxi   pycryptodome's ChaCha20 (and HChaCha20)
  _face_ChaCha20_Poly1305.pxi
                       pycryptodome's ChaCha20_Poly1305
  _face_Poly1305.pxi   pycryptodome's Poly1305: new(), mac_with_cipher(), the
                       ChaCha20 fast path, the block-cipher adapters (_ciphers)

Buffers are read with PyObject_GetBuffer (a bytes fast path first): a typed
memoryview argument would cost ~75 ns a call.  The GIL is released for inputs
of GIL_THRESHOLD bytes or more, with the buffers held for the whole call.
"""
cimport cython
from cpython.buffer cimport (
    PyBUF_FULL_RO, PyBUF_SIMPLE, PyBUF_WRITABLE, PyBuffer_IsContiguous, PyBuffer_Release,
    PyObject_GetBuffer,
)
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize, PyBytes_GET_SIZE
from cpython.mem cimport PyMem_Calloc, PyMem_Free, PyMem_Malloc
from cpython.ref cimport Py_DECREF
from libc.stdint cimport uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

from poly1305x._core._dispatch cimport active_kernels
from poly1305x._kernels._common cimport (
    chacha20_init_state, chacha20_rounds, hchacha20, poly1305_finish, poly1305_init,
    tags_equal, wipe,
)
from poly1305x._kernels._kernel cimport kernel_table
from poly1305x._kernels._util cimport load32_le, store32_le, store64_le

import operator
import os
from os import urandom

from poly1305x._errors import (
    KEY_NOT_STR as _KEY_NOT_STR, AlreadyFinalized, InvalidSignature, InvalidTag, MessageTooLongError,
    NotContiguousError,
)

cdef extern from "Python.h":
    bint PyBytes_CheckExact(object o)
    bint PyIndex_Check(object o)

# Encrypt-then-MAC in slices this big, so the MAC reads what the cipher just
# wrote while it is still in L1/L2.
cdef size_t SLICE = 16384

# The core: no face's class or message (it returns FAIL_ codes; the faces word them).
include "_buffers.pxi"
include "_mac.pxi"
include "_stream.pxi"
include "_bytes.pxi"
include "_aead.pxi"
include "_batch.pxi"
include "_batch_inputs.pxi"
include "_short.pxi"
# One file per face: its classes, with all of its checks and messages (the words of
# the cores' FAIL_ codes too).
include "_face_mac.pxi"
include "_face_aead.pxi"
include "_batch_nonces.pxi"
include "_face_aead_cg.pxi"
include "_face_quic.pxi"
include "_face_batch.pxi"
include "_face_ChaCha20.pxi"
include "_face_ChaCha20_Poly1305.pxi"
include "_face_Poly1305.pxi"

if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
