"""The binary messages the server sends the page.

A message is a little-endian uint32 ``n``, ``n`` bytes of JSON (the
header), zero padding to a multiple of 8, then the blobs the header's
``blobs`` list names (``name``, ``dtype`` as a typed array's name,
``offset`` from the first blob, ``length`` in bytes), each starting at a
multiple of 8 so that the page reads them as typed arrays without a copy.

>>> import numpy as np
>>> msg = pack({"type": "t"}, [("xy", np.arange(3, dtype=np.float32))])
>>> header, blobs = unpack(msg)
>>> header["type"], blobs["xy"].tolist()
('t', [0.0, 1.0, 2.0])
"""
from __future__ import annotations

import json
import struct

import numpy as np

#: numpy dtype -> the page's typed array
TYPED = {np.dtype("<f4"): "Float32Array", np.dtype("<f8"): "Float64Array",
         np.dtype("<i4"): "Int32Array", np.dtype("<u4"): "Uint32Array",
         np.dtype("u1"): "Uint8Array", np.dtype("i1"): "Int8Array"}


def pack(header: dict, blobs) -> bytes:
    """``header`` (JSON-able) and ``blobs`` (``(name, array or bytes)``:
    bytes go as ``Uint8Array``) as one message."""
    parts, table, offset = [], [], 0
    for name, data in blobs:
        if isinstance(data, (bytes, bytearray, memoryview)):
            raw, kind = bytes(data), "Uint8Array"
        else:
            arr = np.ascontiguousarray(data)
            kind = TYPED[arr.dtype.newbyteorder("<") if arr.dtype.byteorder == ">"
                         else arr.dtype]
            raw = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        table.append({"name": name, "dtype": kind, "offset": offset, "length": len(raw)})
        pad = -len(raw) % 8
        parts.append(raw + b"\0" * pad)
        offset += len(raw) + pad
    text = json.dumps({**header, "blobs": table}, separators=(",", ":"),
                      allow_nan=False).encode()
    head = struct.pack("<I", len(text)) + text
    head += b"\0" * (-len(head) % 8)
    return head + b"".join(parts)


def unpack(message: bytes):
    """``(header, {name: array})``: what the page reads (for tests)."""
    n = struct.unpack_from("<I", message)[0]
    header = json.loads(message[4:4 + n])
    start = 4 + n + (-(4 + n) % 8)
    names = {v: k for k, v in TYPED.items()}
    out = {}
    for b in header["blobs"]:
        raw = message[start + b["offset"]:start + b["offset"] + b["length"]]
        out[b["name"]] = np.frombuffer(raw, dtype=names[b["dtype"]]) \
            if b["dtype"] != "Uint8Array" else raw
    return header, out
