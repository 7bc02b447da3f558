#!/usr/bin/env python3
"""Reads a binary plist on stdin with Python's plistlib and prints it in a canonical text
form, so the tests can check that darkroom's writer produces files another implementation
parses to the same values. Reals are printed as their IEEE-754 double bits, strings and data
as hex, dictionary keys sorted by their UTF-8 bytes."""
import plistlib
import struct
import sys


def canonical(value):
    if isinstance(value, bool):
        return "b:" + ("1" if value else "0")
    if isinstance(value, int):
        return f"i:{value}"
    if isinstance(value, float):
        return "r:" + struct.pack(">d", value).hex()
    if isinstance(value, str):
        return "s:" + value.encode("utf-8").hex()
    if isinstance(value, bytes):
        return "d:" + value.hex()
    if isinstance(value, plistlib.UID):
        return f"u:{value.data}"
    if isinstance(value, list):
        return "[" + ",".join(canonical(item) for item in value) + "]"
    if isinstance(value, dict):
        keys = sorted(value, key=lambda key: key.encode("utf-8"))
        return "{" + ",".join(canonical(key) + "=" + canonical(value[key]) for key in keys) + "}"
    raise TypeError(f"unexpected {type(value).__name__}")


print(canonical(plistlib.loads(sys.stdin.buffer.read(), fmt=plistlib.FMT_BINARY)))
