"""Small PNG files made with the standard library, so the client's tests need no imaging package."""

from __future__ import annotations

import struct
import zlib


def png(width: int, height: int, rgb=(200, 40, 40), seed: int = 0) -> bytes:
    """An RGB PNG of one colour, its first pixel varied by ``seed`` so each seed gives other bytes."""
    rows = []
    for y in range(height):
        row = bytearray([0])
        for x in range(width):
            if x == 0 and y == 0:
                row += bytes([seed % 256, (seed // 256) % 256, 7])
            else:
                row += bytes(rgb)
        rows.append(bytes(row))
    raw = zlib.compress(b"".join(rows))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")
