"""The engine: every stateful object and one-shot call of the faces, over the
kernel table that the dispatcher selected.

Layers, each importing only from the ones below it:

* ``poly1305x`` (faces, integrations) ->
* ``poly1305x._core._engine`` (buffers, life cycle, the MAC and stream cores,
  the one AEAD construction, and one file per face with its classes) ->
* ``poly1305x._core._dispatch`` (CPU probe, backend registry, the active table) ->
* ``poly1305x._kernels`` (the loops, one extension module per ISA).
"""
