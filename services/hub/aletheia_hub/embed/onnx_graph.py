"""An ONNX graph read for rewriting: its nodes, initializers and outputs, and a rewrite
(nodes removed and added, initializers dropped and added) written back as the graph's bytes,
without the nodes and initializers nothing reads any more.

Only the fields of onnx.proto a rewrite needs are read; every other field is copied as it is.
"""

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Final

from aletheia_hub.embed.onnx_wire import (
    Field,
    bytes_field,
    fields,
    read_varint,
    string_fields,
    varint_field,
)

# A run of a serialized message's bytes: copied (new) or viewed (kept from the model read).
Piece = bytes | memoryview
# TensorProto.DataType
FLOAT: Final = 1
UINT8: Final = 2
INT8: Final = 3
INT32: Final = 6
ATTRIBUTE_INT: Final = 2  # AttributeProto.AttributeType.INT
CONTRIB_DOMAIN: Final = "com.microsoft"
# Field numbers in onnx.proto.
MODEL_GRAPH, MODEL_OPSET = 7, 8
GRAPH_NODE, GRAPH_INITIALIZER, GRAPH_OUTPUT = 1, 5, 12
NODE_INPUT, NODE_OUTPUT, NODE_NAME, NODE_OP, NODE_ATTRIBUTE, NODE_DOMAIN = 1, 2, 3, 4, 5, 7
TENSOR_DIMS, TENSOR_TYPE, TENSOR_NAME, TENSOR_RAW, TENSOR_LOCATION = 1, 2, 8, 9, 14


@dataclass(slots=True)
class Node:
    op: str  # "domain.Op" outside the default domain
    inputs: list[str]
    outputs: list[str]
    attributes: dict[str, int]  # those of type INT


@dataclass(slots=True)
class Tensor:
    data_type: int
    dims: list[int]
    raw: memoryview | None


@dataclass(slots=True)
class Rewrite:
    removed: set[int] = field(default_factory=set)  # node positions
    added: dict[int, list[bytes]] = field(default_factory=lambda: defaultdict(list))  # before
    dropped: set[str] = field(default_factory=set)  # initializer names
    tensors: list[bytes] = field(default_factory=list)


class Graph:
    """The nodes (by position), initializers (by name) and outputs of a GraphProto."""

    def __init__(self, graph_fields: list[Field]) -> None:
        self.nodes = [node(f) for f in graph_fields if f.number == GRAPH_NODE]
        self.tensors = {name: found for name, found in map(tensor, graph_fields) if name}
        self.outputs = {
            string_fields(f.value)[1][0] for f in graph_fields if f.number == GRAPH_OUTPUT
        }
        self.users: dict[str, list[int]] = defaultdict(list)
        self.producers: dict[str, int] = {}
        for position, found in enumerate(self.nodes):
            for name in found.inputs:
                self.users[name].append(position)
            for name in found.outputs:
                self.producers[name] = position

    def only_user(self, name: str, op: str | None = None) -> int | None:
        """The one node that reads `name` (of `op`, when given), or None."""
        found = self.users.get(name, [])
        if len(found) != 1 or name in self.outputs:
            return None
        return found[0] if op is None or self.nodes[found[0]].op == op else None

    def producer(self, name: str, op: str) -> int | None:
        """The node of `op` that makes `name`, or None."""
        position = self.producers.get(name)
        return position if position is not None and self.nodes[position].op == op else None

    def constant(self, name: str) -> Tensor | None:
        """An initializer with its values in the file, or None."""
        found = self.tensors.get(name)
        return found if found is not None and found.raw is not None else None


def node(f: Field) -> Node:
    if not isinstance(f.value, memoryview):
        raise ValueError("a node that is not a message")
    strings = string_fields(f.value)
    op = strings[NODE_OP][0] if strings[NODE_OP] else ""
    domain = strings[NODE_DOMAIN][0] if strings[NODE_DOMAIN] else ""
    attributes = {}
    for part in fields(f.value):
        if part.number == NODE_ATTRIBUTE and isinstance(part.value, memoryview):
            found = {a.number: a.value for a in fields(part.value)}
            name, value = found.get(1), found.get(3)
            if isinstance(name, memoryview) and isinstance(value, int):
                attributes[bytes(name).decode()] = value
    qualified = op if domain in ("", "ai.onnx") else f"{domain}.{op}"
    return Node(qualified, strings[NODE_INPUT], strings[NODE_OUTPUT], attributes)


def tensor(f: Field) -> tuple[str, Tensor]:
    """An initializer's name and contents ("" for other fields)."""
    if f.number != GRAPH_INITIALIZER or not isinstance(f.value, memoryview):
        return "", Tensor(0, [], None)
    name, found, external = "", Tensor(0, [], None), False
    for part in fields(f.value):
        if part.number == TENSOR_DIMS and isinstance(part.value, int):
            found.dims.append(part.value)
        elif part.number == TENSOR_DIMS and isinstance(part.value, memoryview):  # packed
            position = 0
            while position < len(part.value):
                dim, position = read_varint(part.value, position)
                found.dims.append(dim)
        elif part.number == TENSOR_TYPE and isinstance(part.value, int):
            found.data_type = part.value
        elif part.number == TENSOR_NAME and isinstance(part.value, memoryview):
            name = bytes(part.value).decode()
        elif part.number == TENSOR_RAW and isinstance(part.value, memoryview):
            found.raw = part.value
        elif part.number == TENSOR_LOCATION:
            external = part.value == 1
    if external:
        found.raw = None
    return name, found


def node_bytes(
    op: str,
    inputs: list[str],
    outputs: list[str],
    name: str,
    attributes: dict[str, int] | None = None,
    domain: str = "",
) -> bytes:
    """A NodeProto field of a graph ("" among `inputs` leaves an optional input out)."""
    parts = [bytes_field(NODE_INPUT, item.encode()) for item in inputs]
    parts += [bytes_field(NODE_OUTPUT, item.encode()) for item in outputs]
    parts += [bytes_field(NODE_NAME, name.encode()), bytes_field(NODE_OP, op.encode())]
    for key, value in (attributes or {}).items():
        attribute = bytes_field(1, key.encode()) + varint_field(3, value)
        parts.append(bytes_field(NODE_ATTRIBUTE, attribute + varint_field(20, ATTRIBUTE_INT)))
    if domain:
        parts.append(bytes_field(NODE_DOMAIN, domain.encode()))
    return bytes_field(GRAPH_NODE, b"".join(parts))


def tensor_bytes(name: str, dims: list[int], data_type: int, raw: bytes) -> bytes:
    """An initializer field of a graph."""
    parts = [varint_field(TENSOR_DIMS, dim) for dim in dims]
    parts += [varint_field(TENSOR_TYPE, data_type), bytes_field(TENSOR_NAME, name.encode())]
    parts.append(bytes_field(TENSOR_RAW, raw))
    return bytes_field(GRAPH_INITIALIZER, b"".join(parts))


def written(graph_fields: list[Field], graph: Graph, rewrite: Rewrite) -> list[Piece]:
    """The graph's fields in order with the rewrite applied, less every node whose outputs
    no node and no graph output reads, and every initializer no node reads any more: as the
    pieces of its bytes, those kept as they were still views of the model read."""
    ordered: list[tuple[Node, bytes | memoryview]] = []
    node_fields = [f for f in graph_fields if f.number == GRAPH_NODE]
    for position, f in enumerate(node_fields):
        ordered += [(node(next(fields(memoryview(b)))), b) for b in rewrite.added.get(position, [])]
        if position not in rewrite.removed:
            ordered.append((graph.nodes[position], f.raw))
    needed, kept = set(graph.outputs), []
    for found, raw in reversed(ordered):
        if needed.intersection(found.outputs):
            needed.update(name for name in found.inputs if name)
            kept.append(raw)
    parts: list[Piece] = []
    for f in graph_fields:
        if f.number == GRAPH_NODE:
            parts += reversed(kept)
            kept = []
        elif f.number != GRAPH_INITIALIZER or _kept(tensor(f)[0], needed, rewrite):
            parts.append(f.raw)
    return [*parts, *rewrite.tensors]


def _kept(initializer: str, needed: set[str], rewrite: Rewrite) -> bool:
    return initializer in needed and initializer not in rewrite.dropped
