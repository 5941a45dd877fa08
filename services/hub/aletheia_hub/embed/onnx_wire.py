"""Protobuf wire format, as much as rewriting an ONNX file needs: a message's fields read in
order (each with its own bytes, to copy it unchanged) and varint and length-delimited fields
written. No onnx or protobuf package is needed."""

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

VARINT, LENGTH_DELIMITED = 0, 2


@dataclass(slots=True)
class Field:
    number: int
    value: int | memoryview
    raw: memoryview  # the whole field, key included, to copy it unchanged


def read_varint(data: memoryview, position: int) -> tuple[int, int]:
    """The varint at `position` and the position after it."""
    value = shift = 0
    while True:
        if position >= len(data):
            raise ValueError("truncated protobuf message")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7


def fields(data: memoryview) -> Iterator[Field]:
    """The fields of one message, in order."""
    position = 0
    while position < len(data):
        start = position
        key, position = read_varint(data, position)
        wire = key & 7
        value: int | memoryview
        if wire == VARINT:
            value, position = read_varint(data, position)
        elif wire == LENGTH_DELIMITED:
            length, position = read_varint(data, position)
            value, position = data[position : position + length], position + length
        elif wire in (1, 5):  # fixed 64 and 32 bits
            size = 8 if wire == 1 else 4
            value, position = data[position : position + size], position + size
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        if position > len(data):
            raise ValueError("truncated protobuf message")
        yield Field(key >> 3, value, data[start:position])


def string_fields(message: int | memoryview) -> dict[int, list[str]]:
    """Every length-delimited field of a message as text, by field number."""
    if not isinstance(message, memoryview):
        raise ValueError("a field that is not a message")
    found: dict[int, list[str]] = defaultdict(list)
    for f in fields(message):
        if isinstance(f.value, memoryview):
            found[f.number].append(bytes(f.value).decode("utf-8", "replace"))
    return found


def encoded_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def varint_field(number: int, value: int) -> bytes:
    return encoded_varint(number << 3 | VARINT) + encoded_varint(value)


def bytes_field(number: int, payload: bytes) -> bytes:
    return field_head(number, len(payload)) + payload


def field_head(number: int, length: int) -> bytes:
    """The key and length that come before `length` bytes of field `number`."""
    return encoded_varint(number << 3 | LENGTH_DELIMITED) + encoded_varint(length)
