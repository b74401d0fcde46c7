"""A small PNG writer (8-bit RGB, no dependency beyond zlib and numpy), writing atomically.

The file appears whole or not at all: it is written to a temporary file in the same directory
and moved into place with `os.replace`, so a dispute picture is never left half-written.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import numpy as np

from formats.atomic import write_bytes


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def encode(rgb: np.ndarray) -> bytes:
    """PNG bytes of an (H, W, 3) uint8 image whose row 0 is the TOP row."""
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError("expected an (H, W, 3) uint8 array")
    h, w, _ = rgb.shape
    raw = np.empty((h, 1 + 3 * w), dtype=np.uint8)
    raw[:, 0] = 0  # filter type None on every row
    raw[:, 1:] = rgb.reshape(h, 3 * w)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
            + _chunk(b"IDAT", zlib.compress(raw.tobytes(), 6)) + _chunk(b"IEND", b""))


def write(path: str | Path, rgb: np.ndarray) -> None:
    """Write atomically (temporary file beside the target, then a rename)."""
    write_bytes(path, encode(rgb))
