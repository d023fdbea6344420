"""Tests of the engine's primitives through both faces: Poly1305, ChaCha20, the AEADs,
batches, block-cipher Poly1305, threads."""
