"""Which embedder the settings name: the packaged model (in this process) or a server that
speaks the OpenAI embeddings API."""

from collections.abc import Callable
from dataclasses import dataclass

from aletheia_hub.embed.model import Embedder, load_embedder
from aletheia_hub.settings import Settings


@dataclass(frozen=True, slots=True)
class EmbedderChoice:
    load: Callable[[int, int], Embedder]  # (threads per run, runs at once) -> the embedder
    endpoint: str | None  # the server's URL, None for the packaged model


def embedder_choice(settings: Settings) -> EmbedderChoice:
    """How to load the embedder the settings name (`off` names the packaged model: it is
    for `aletheia reindex`, which the hub's own setting does not stop)."""
    url, model = settings.embedder_url, settings.embedder_model
    if settings.embedder != "openai-compatible" or not url or not model:
        return EmbedderChoice(load_embedder, None)
    # Here, not at import: its HTTP client (httpx) is no part of a hub with the packaged model.
    from aletheia_hub.embed.openai_compatible import OpenAICompatibleEmbedder, shown_url

    key = settings.embedder_api_key

    def connect(_threads: int, _runs: int) -> Embedder:
        """The server's embedder once it has answered (EmbedderUnavailable until then)."""
        embedder = OpenAICompatibleEmbedder(
            url=url,
            model=model,
            api_key=key.get_secret_value() if key else None,
            question_seconds=settings.embedder_question_seconds,
        )
        try:
            embedder.connect()
        except BaseException:
            embedder.close()
            raise
        return embedder

    return EmbedderChoice(connect, shown_url(url))
