"""The int8 model's graph, rewritten so that its weights stay int8 in memory.

The model stores every weight as int8 with a float scale, each turned back into float32 by a
Cast and a Mul. onnxruntime folds those constants at load: 22 MB of int8 weights became 90 MB
of float32 (the word-embedding table alone 47 MB). Rewritten, with the same weights:

- a table read by Gather is gathered as int8, and only the gathered rows are scaled;
- a weight multiplied by MatMul becomes one MatMulNBits (8 bits, the same scale for every
  block of a column, zero point 128), which keeps the int8 values and scales them as it goes.

Then each layer's attention and GELU become one node each (fusions.py). The file is read and
written as protobuf wire format (onnx_graph.py), so no onnx package is needed. A graph that
does not have the expected shape raises ValueError.
"""

from dataclasses import dataclass

import numpy as np

from aletheia_hub.embed.fusions import fuse_attention, fuse_gelu
from aletheia_hub.embed.onnx_graph import (
    CONTRIB_DOMAIN,
    FLOAT,
    INT8,
    MODEL_GRAPH,
    MODEL_OPSET,
    UINT8,
    Graph,
    Node,
    Piece,
    Rewrite,
    Tensor,
    node_bytes,
    tensor_bytes,
    written,
)
from aletheia_hub.embed.onnx_wire import bytes_field, field_head, fields, varint_field


def compact(model: bytes, block_size: int, accuracy_level: int) -> bytes:
    """The model with every Cast-Mul dequantized weight kept as int8 (see the module's doc),
    and attention and GELU fused; MatMulNBits gets `block_size` (16 or more, a power of two)
    and `accuracy_level`."""
    return b"".join(compact_parts(model, block_size, accuracy_level))


def compact_parts(model: bytes, block_size: int, accuracy_level: int) -> list[Piece]:
    """compact's bytes in pieces, in order: what is kept as it was is a view of `model`, so
    the rewritten model is never whole in memory beside the file read (joined, the graph and
    the model around it took 70 MB at once for a 23 MB model)."""
    top = list(fields(memoryview(model)))
    graphs = [f for f in top if f.number == MODEL_GRAPH]
    if len(graphs) != 1 or not isinstance(graphs[0].value, memoryview):
        raise ValueError("the model has no graph")
    graph = _compact_graph(graphs[0].value, block_size, accuracy_level)
    parts: list[Piece] = []
    for f in top:
        if f.number == MODEL_GRAPH:
            parts += [field_head(MODEL_GRAPH, sum(len(piece) for piece in graph)), *graph]
        else:
            parts.append(f.raw)
    # MatMulNBits and the fused nodes live in the contrib domain, version 1.
    contrib = bytes_field(1, CONTRIB_DOMAIN.encode()) + varint_field(2, 1)
    if not any(f.number == MODEL_OPSET and bytes(f.value) == contrib for f in top):
        parts.append(bytes_field(MODEL_OPSET, contrib))
    return parts


@dataclass(frozen=True, slots=True)
class Chain:
    """An int8 weight, Cast to float, times its scale, read by one node (`user`)."""

    weight: str
    scale: str
    cast: int  # node positions
    mul: int
    user: int


def cast_chain(graph: Graph, weight: str) -> Chain | None:
    """How an int8 initializer is turned into float32 and used, when it is the usual way."""
    cast = graph.only_user(weight, "Cast")
    mul = None if cast is None else graph.only_user(graph.nodes[cast].outputs[0], "Mul")
    if cast is None or mul is None:
        return None
    scale = next((i for i in graph.nodes[mul].inputs if i != graph.nodes[cast].outputs[0]), "")
    found = graph.tensors.get(scale)
    if found is None or found.data_type != FLOAT or found.raw is None:
        return None
    user = graph.only_user(graph.nodes[mul].outputs[0])
    if user is None or graph.only_user(scale) != mul:
        return None
    return Chain(weight, scale, cast, mul, user)


def _compact_graph(graph: memoryview, block_size: int, accuracy_level: int) -> list[Piece]:
    graph_fields = list(fields(graph))
    found = Graph(graph_fields)
    rewrite = Rewrite()
    for name, weight in found.tensors.items():
        chain = (
            cast_chain(found, name) if weight.data_type == INT8 and len(weight.dims) == 2 else None
        )
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
        else:
            continue
        rewrite.removed |= {chain.cast, chain.mul, chain.user}
    if not rewrite.removed:
        raise ValueError("no int8 weight read through Cast and Mul")
    fuse_attention(found, rewrite)
    fuse_gelu(found, rewrite)
    return written(graph_fields, found, rewrite)


def _gather_scaled(weight: str, scale: str, gather: Node) -> list[bytes]:
    """Gather the int8 rows and their scales, then scale only those rows."""
    indices, out = gather.inputs[1], gather.outputs[0]
    rows, scales, floats = f"{out}/int8_rows", f"{out}/row_scales", f"{out}/float_rows"
    return [
        node_bytes("Gather", [weight, indices], [rows], f"{out}/gather_int8"),
        node_bytes("Gather", [scale, indices], [scales], f"{out}/gather_scales"),
        node_bytes("Cast", [rows], [floats], f"{out}/cast", {"to": FLOAT}),
        node_bytes("Mul", [floats, scales], [out], f"{out}/scale"),
    ]


def _matmul_nbits(
    name: str, weight: Tensor, scale: Tensor, matmul: Node, block_size: int, level: int
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
        node_bytes(
            "MatMulNBits",
            [matmul.inputs[0], b_name, s_name],  # no zero points: 128 for 8 bits
            matmul.outputs,
            f"{matmul.outputs[0]}/nbits",
            attributes,
            CONTRIB_DOMAIN,
        ),
        tensor_bytes(b_name, [n, blocks, block_size], UINT8, packed.tobytes()),
        tensor_bytes(s_name, [n * blocks], FLOAT, scales.tobytes()),
    ]
