# cython: language_level=3
from poly1305x._kernels._kernel cimport kernel_table

# The kernel table that new states take; set at import (POLY1305X_BACKEND or the
# best usable backend) and by set_backend().
cdef const kernel_table* active_kernels() noexcept nogil
cdef const kernel_table* kernels_named(str name) except NULL
