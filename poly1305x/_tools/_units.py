"""Sizes and times as the bench writes them: a leaf that every _tools module
may import (it imports nothing of theirs)."""

KiB = 1024
MiB = 1024 * 1024


def size_text(size):
    """A message size as people write it: ``64 B``, ``1 KiB``, ``16 KiB``, ``1 MiB``."""
    if size >= MiB and size % MiB == 0:
        return f"{size // MiB} MiB"
    if size >= KiB and size % KiB == 0:
        return f"{size // KiB} KiB"
    return f"{size} B"


def size_label(size):
    """The same without the space, for names and ids (``64B``, ``16KiB``)."""
    return size_text(size).replace(" ", "")


def time_text(s, ms_digits=2):
    """A time per call: ``250 ns``, ``1.27 µs``, ``1.13 ms`` (``ms_digits`` after the point)."""
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    return f"{s * 1e3:.{ms_digits}f} ms"
