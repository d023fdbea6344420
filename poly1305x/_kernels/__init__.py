"""Everything below the kernel contract (``_kernel.pxd``): the portable
kernels, one module per instruction set (imported only by
``poly1305x._core._dispatch``, after its CPU check), their ``.pxi`` sources, the
SIMD, wide-multiply and CPU-probe headers, and ``_common.pxd``, the inline
helpers the engine shares with the kernels.  Nothing here is public API."""
