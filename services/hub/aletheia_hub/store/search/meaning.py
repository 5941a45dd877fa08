"""What ranking needs from search by meaning: the question's vector, the nearest stored
vectors and the similarity of given ones. The hub's embedder (embed/service.py) provides it;
ranking (hybrid.py) knows only this shape, so the model and its worker stay in embed/."""

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Protocol

from sqlmodel import Session

from aletheia_hub.store.search.model import SearchQuery
from aletheia_hub.store.vectors import ItemKind

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


class Meaning(Protocol):
    @property
    def model_name(self) -> str | None:
        """The model whose vectors are searched; None before it is loaded."""
        ...

    @property
    def question_seconds(self) -> float:
        """How long a search waits for its question's vector and the memories nearest it,
        from when it asked; past it, the search answers by keywords."""
        ...

    def query_vector(self, text: str) -> "NDArray[np.float32] | None":
        """The question's vector, or None when meaning cannot be used now."""
        ...

    def question_missed(self) -> None:
        """A search stopped waiting for its question's vector (its note says so)."""
        ...

    def vectors_through(self, session: Session) -> int | None:
        """The seq of the newest vector searchable now (a snapshot for paging)."""
        ...

    def nearest(
        self,
        session: Session,
        query: "NDArray[np.float32]",
        *,
        kind: ItemKind,
        projects: Sequence[str] | None,
        limit: int,
        through_seq: int | None = None,
        filters: SearchQuery | None = None,
    ) -> list[tuple[int, float]]:
        """The stored items nearest the query vector, with their cosine."""
        ...

    def read_session(self) -> AbstractContextManager[Session]:
        """A read session of the store of its own, for a thread beside the request's: one
        that never waits for the connections requests hold."""
        ...

    def similarities(
        self,
        query: "NDArray[np.float32]",
        kind: ItemKind,
        ids: Sequence[int],
        through_seq: int | None = None,
    ) -> dict[int, float]:
        """The cosine to the query of each of `ids` that has a vector."""
        ...

    def answer_note(
        self, session: Session, projects: Sequence[str] | None, *, used: bool
    ) -> str | None:
        """The line a search answer that wanted meaning ends with, or None."""
        ...
