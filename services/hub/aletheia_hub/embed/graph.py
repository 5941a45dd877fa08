"""The int8 model's graph, rewritten so that its weights stay int8 in memory.

The model stores every weight as int8 with a float scale, each turned back into float32 by a
Cast and a Mul. onnxruntime folds those constants at load: 22 MB of int8 weights became 90 MB
of float32 (the word-embedding table alone 47 MB). Rewritten, with the same weights:

- a table read by Gather is gathered as int8, and only the gathered rows are scaled;
- a weight multiplied by MatMul becomes one MatMulNBits (8 bits, the same scale for every
  block of a column, zero point 128), which keeps the int8 values and scales them as it goes.

The file is read and written as protobuf wire format: a few fields of ModelProto, GraphProto,
NodeProto and TensorProto (onnx.proto) are read and everything else is copied as it is, so
no onnx package is needed. A graph that does not have the expected shape raises ValueError.
"""

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

import numpy as np

# TensorProto.DataType
FLOAT: Final = 1
UINT8: Final = 2
INT8: Final = 3
ATTRIBUTE_INT: Final = 2  # AttributeProto.AttributeType.INT
CONTRIB_DOMAIN: Final = "com.microsoft"
# Field numbers in onnx.proto.
MODEL_GRAPH, MODEL_OPSET = 7, 8
GRAPH_NODE, GRAPH_INITIALIZER, GRAPH_OUTPUT = 1, 5, 12
NODE_INPUT, NODE_OUTPUT, NODE_NAME, NODE_OP, NODE_ATTRIBUTE, NODE_DOMAIN = 1, 2, 3, 4, 5, 7
TENSOR_DIMS, TENSOR_TYPE, TENSOR_NAME, TENSOR_RAW, TENSOR_LOCATION = 1, 2, 8, 9, 14
VARINT, LENGTH_DELIMITED = 0, 2


@dataclass(slots=True)
class _Field:
    number: int
    value: int | memoryview
    raw: memoryview  # the whole field, key included, to copy it unchanged


@dataclass(slots=True)
class _Node:
    op: str
    inputs: list[str]
    outputs: list[str]
    attributes: dict[str, int]  # those of type INT


@dataclass(slots=True)
class _Tensor:
    data_type: int
    dims: list[int]
    raw: memoryview | None


@dataclass(slots=True)
class _Rewrite:
    removed: set[int] = field(default_factory=set)  # node positions
    added: dict[int, list[bytes]] = field(default_factory=lambda: defaultdict(list))
    dropped: set[str] = field(default_factory=set)  # initializer names
    tensors: list[bytes] = field(default_factory=list)


def compact(model: bytes, block_size: int, accuracy_level: int) -> bytes:
    """The model with every Cast-Mul dequantized weight kept as int8 (see the module's doc);
    MatMulNBits gets `block_size` (16 or more, a power of two) and `accuracy_level`."""
    top = list(_fields(memoryview(model)))
    graphs = [f for f in top if f.number == MODEL_GRAPH]
    if len(graphs) != 1 or not isinstance(graphs[0].value, memoryview):
        raise ValueError("the model has no graph")
    graph, matmuls = _compact_graph(graphs[0].value, block_size, accuracy_level)
    parts = [_bytes(MODEL_GRAPH, graph) if f.number == MODEL_GRAPH else f.raw for f in top]
    if matmuls:
        parts.append(_bytes(MODEL_OPSET, _bytes(1, CONTRIB_DOMAIN.encode()) + _varint(2, 1)))
    return b"".join(parts)


@dataclass(frozen=True, slots=True)
class _Chain:
    """An int8 weight, Cast to float, times its scale, read by one node (`user`)."""

    weight: str
    scale: str
    cast: int  # node positions
    mul: int
    user: int


class _Graph:
    def __init__(self, fields: list[_Field]) -> None:
        self.nodes = [_node(f) for f in fields if f.number == GRAPH_NODE]
        self.tensors = {name: tensor for name, tensor in map(_tensor, fields) if name}
        self.outputs = {_string_fields(f.value)[1][0] for f in fields if f.number == GRAPH_OUTPUT}
        self.users: dict[str, list[int]] = defaultdict(list)
        for position, node in enumerate(self.nodes):
            for name in node.inputs:
                self.users[name].append(position)

    def only_user(self, name: str, op: str | None = None) -> int | None:
        found = self.users.get(name, [])
        if len(found) != 1 or name in self.outputs:
            return None
        return found[0] if op is None or self.nodes[found[0]].op == op else None

    def chain(self, weight: str) -> _Chain | None:
        cast = self.only_user(weight, "Cast")
        mul = None if cast is None else self.only_user(self.nodes[cast].outputs[0], "Mul")
        if cast is None or mul is None:
            return None
        scale = next((i for i in self.nodes[mul].inputs if i != self.nodes[cast].outputs[0]), "")
        tensor = self.tensors.get(scale)
        if tensor is None or tensor.data_type != FLOAT or tensor.raw is None:
            return None
        user = self.only_user(self.nodes[mul].outputs[0])
        if user is None or self.only_user(scale) != mul:
            return None
        return _Chain(weight, scale, cast, mul, user)


def _compact_graph(graph: memoryview, block_size: int, accuracy_level: int) -> tuple[bytes, int]:
    fields = list(_fields(graph))
    found = _Graph(fields)
    rewrite = _Rewrite()
    matmuls = 0
    for name, weight in found.tensors.items():
        chain = found.chain(name) if weight.data_type == INT8 and len(weight.dims) == 2 else None
        if chain is None or weight.raw is None:
            continue
        user, scale = found.nodes[chain.user], found.tensors[chain.scale]
        dequantized = found.nodes[chain.mul].outputs[0]
        rows, columns = weight.dims
        if (
            user.op == "Gather"
            and user.inputs[0] == dequantized
            and user.attributes.get("axis", 0) == 0
            and scale.dims in ([rows, 1], [rows])
        ):
            rewrite.added[chain.user] = _gather_scaled(name, chain.scale, user)
        elif (
            user.op == "MatMul"
            and user.inputs[1] == dequantized
            and scale.dims in ([1, columns], [columns])
            and rows % block_size == 0
        ):
            packed = _matmul_nbits(name, weight, scale, user, block_size, accuracy_level)
            rewrite.added[chain.user].append(packed[0])
            rewrite.tensors += packed[1:]
            rewrite.dropped |= {name, chain.scale}
            matmuls += 1
        else:
            continue
        rewrite.removed |= {chain.cast, chain.mul, chain.user}
    if not rewrite.removed:
        raise ValueError("no int8 weight read through Cast and Mul")
    return _written(fields, rewrite), matmuls


def _gather_scaled(weight: str, scale: str, gather: _Node) -> list[bytes]:
    """Gather the int8 rows and their scales, then scale only those rows."""
    indices, out = gather.inputs[1], gather.outputs[0]
    rows, scales, floats = f"{out}/int8_rows", f"{out}/row_scales", f"{out}/float_rows"
    return [
        _node_bytes("Gather", [weight, indices], [rows], f"{out}/gather_int8"),
        _node_bytes("Gather", [scale, indices], [scales], f"{out}/gather_scales"),
        _node_bytes("Cast", [rows], [floats], f"{out}/cast", {"to": FLOAT}),
        _node_bytes("Mul", [floats, scales], [out], f"{out}/scale"),
    ]


def _matmul_nbits(
    name: str, weight: _Tensor, scale: _Tensor, matmul: _Node, block_size: int, level: int
) -> list[bytes]:
    """The MatMulNBits node and its two initializers for an int8 [K, N] weight with one
    scale per column: B is uint8 [N, K / block, block] (value + 128), scales [N * blocks]."""
    assert weight.raw is not None and scale.raw is not None
    k, n = weight.dims
    blocks = k // block_size
    values = np.frombuffer(weight.raw, dtype=np.int8).reshape(k, n)
    packed = np.ascontiguousarray((values.view(np.uint8) ^ 0x80).T)  # int8 + 128 as uint8
    scales = np.repeat(np.frombuffer(scale.raw, dtype="<f4"), blocks).astype("<f4")
    b_name, s_name = f"{name}/nbits", f"{name}/nbits_scales"
    attributes = {"K": k, "N": n, "bits": 8, "block_size": block_size, "accuracy_level": level}
    return [
        _node_bytes(
            "MatMulNBits",
            [matmul.inputs[0], b_name, s_name],  # no zero points: 128 for 8 bits
            matmul.outputs,
            f"{matmul.outputs[0]}/nbits",
            attributes,
            CONTRIB_DOMAIN,
        ),
        _tensor_bytes(b_name, [n, blocks, block_size], UINT8, packed.tobytes()),
        _tensor_bytes(s_name, [n * blocks], FLOAT, scales.tobytes()),
    ]


def _written(fields: list[_Field], rewrite: _Rewrite) -> bytes:
    """The graph's fields in order, nodes replaced where the rewrite says."""
    parts: list[bytes | memoryview] = []
    position = 0
    for f in fields:
        if f.number == GRAPH_NODE:
            parts += rewrite.added.get(position, [])
            if position not in rewrite.removed:
                parts.append(f.raw)
            position += 1
        elif f.number != GRAPH_INITIALIZER or _tensor(f)[0] not in rewrite.dropped:
            parts.append(f.raw)
    return b"".join([*parts, *rewrite.tensors])


# Reading protobuf wire format


def _read_varint(data: memoryview, position: int) -> tuple[int, int]:
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


def _fields(data: memoryview) -> Iterator[_Field]:
    position = 0
    while position < len(data):
        start = position
        key, position = _read_varint(data, position)
        wire = key & 7
        value: int | memoryview
        if wire == VARINT:
            value, position = _read_varint(data, position)
        elif wire == LENGTH_DELIMITED:
            length, position = _read_varint(data, position)
            value, position = data[position : position + length], position + length
        elif wire in (1, 5):  # fixed 64 and 32 bits
            size = 8 if wire == 1 else 4
            value, position = data[position : position + size], position + size
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        if position > len(data):
            raise ValueError("truncated protobuf message")
        yield _Field(key >> 3, value, data[start:position])


def _string_fields(message: int | memoryview) -> dict[int, list[str]]:
    if not isinstance(message, memoryview):
        raise ValueError("a field that is not a message")
    found: dict[int, list[str]] = defaultdict(list)
    for f in _fields(message):
        if isinstance(f.value, memoryview):
            found[f.number].append(bytes(f.value).decode("utf-8", "replace"))
    return found


def _node(f: _Field) -> _Node:
    if not isinstance(f.value, memoryview):
        raise ValueError("a node that is not a message")
    strings = _string_fields(f.value)
    op = strings[NODE_OP][0] if strings[NODE_OP] else ""
    domain = strings[NODE_DOMAIN][0] if strings[NODE_DOMAIN] else ""
    attributes = {}
    for part in _fields(f.value):
        if part.number == NODE_ATTRIBUTE and isinstance(part.value, memoryview):
            found = {a.number: a.value for a in _fields(part.value)}
            name, value = found.get(1), found.get(3)
            if isinstance(name, memoryview) and isinstance(value, int):
                attributes[bytes(name).decode()] = value
    qualified = op if domain in ("", "ai.onnx") else f"{domain}.{op}"
    return _Node(qualified, strings[NODE_INPUT], strings[NODE_OUTPUT], attributes)


def _tensor(f: _Field) -> tuple[str, _Tensor]:
    """An initializer's name and contents ("" for other fields)."""
    if f.number != GRAPH_INITIALIZER or not isinstance(f.value, memoryview):
        return "", _Tensor(0, [], None)
    name, tensor, external = "", _Tensor(0, [], None), False
    for part in _fields(f.value):
        if part.number == TENSOR_DIMS and isinstance(part.value, int):
            tensor.dims.append(part.value)
        elif part.number == TENSOR_DIMS and isinstance(part.value, memoryview):  # packed
            position = 0
            while position < len(part.value):
                dim, position = _read_varint(part.value, position)
                tensor.dims.append(dim)
        elif part.number == TENSOR_TYPE and isinstance(part.value, int):
            tensor.data_type = part.value
        elif part.number == TENSOR_NAME and isinstance(part.value, memoryview):
            name = bytes(part.value).decode()
        elif part.number == TENSOR_RAW and isinstance(part.value, memoryview):
            tensor.raw = part.value
        elif part.number == TENSOR_LOCATION:
            external = part.value == 1
    if external:
        tensor.raw = None
    return name, tensor


# Writing protobuf wire format


def _key_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _varint(number: int, value: int) -> bytes:
    return _key_varint(number << 3 | VARINT) + _key_varint(value)


def _bytes(number: int, payload: bytes) -> bytes:
    return _key_varint(number << 3 | LENGTH_DELIMITED) + _key_varint(len(payload)) + payload


def _node_bytes(
    op: str,
    inputs: list[str],
    outputs: list[str],
    name: str,
    attributes: dict[str, int] | None = None,
    domain: str = "",
) -> bytes:
    parts = [_bytes(NODE_INPUT, item.encode()) for item in inputs]
    parts += [_bytes(NODE_OUTPUT, item.encode()) for item in outputs]
    parts += [_bytes(NODE_NAME, name.encode()), _bytes(NODE_OP, op.encode())]
    for key, value in (attributes or {}).items():
        attribute = _bytes(1, key.encode()) + _varint(3, value) + _varint(20, ATTRIBUTE_INT)
        parts.append(_bytes(NODE_ATTRIBUTE, attribute))
    if domain:
        parts.append(_bytes(NODE_DOMAIN, domain.encode()))
    return _bytes(GRAPH_NODE, b"".join(parts))


def _tensor_bytes(name: str, dims: list[int], data_type: int, raw: bytes) -> bytes:
    parts = [_varint(TENSOR_DIMS, dim) for dim in dims]
    parts += [_varint(TENSOR_TYPE, data_type), _bytes(TENSOR_NAME, name.encode())]
    parts.append(_bytes(TENSOR_RAW, raw))
    return _bytes(GRAPH_INITIALIZER, b"".join(parts))
