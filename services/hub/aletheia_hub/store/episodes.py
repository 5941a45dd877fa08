"""Session requests: what a user asked a host, shown in session-start context."""

from typing import Final

from sqlmodel import Session

from aletheia_hub.clock import now_ms
from aletheia_hub.redact import redact
from aletheia_hub.store.models import Episode

REQUEST_MAX_CHARS: Final = 4_000


def record_request(*, session: Session, project: str, tool: str, request: str) -> int:
    """Store one request (secrets redacted, cut to 4,000 characters); returns its id."""
    episode = Episode(
        project=project,
        tool=tool,
        request=redact(request).text[:REQUEST_MAX_CHARS],
        created_at_ms=now_ms(),
    )
    session.add(episode)
    session.flush()
    assert episode.id is not None
    return episode.id
