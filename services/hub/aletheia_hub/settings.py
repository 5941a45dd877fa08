"""Hub settings, read from ALETHEIA_* environment variables."""

import json
import os
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from aletheia_hub.capture import CaptureLimits, host_keys, parse_hosts
from aletheia_hub.token_budget import DEFAULT_CONTEXT_TOKENS
from aletheia_hub.work_capture.limits import WorkLimits
from aletheia_shared import env
from aletheia_shared.store import (
    StoreLocation,
    database_url,
    default_data_dir,
    record_path,
    store_location,
)

Scope = Literal["mcp", "read", "sync", "admin"]


class Settings(BaseSettings):
    """Everything the hub can be told; built once per app, never at import time."""

    # An empty variable counts as unset, as the proxy reads it: both must name the same store.
    model_config = SettingsConfigDict(env_prefix="ALETHEIA_", extra="ignore", env_ignore_empty=True)

    data_dir: Path = Field(default_factory=default_data_dir)
    hub_db: Path | None = None
    database_url: str | None = None
    host: str = env.DEFAULT_HOST
    port: int = env.DEFAULT_PORT
    cwd: Path = Field(default_factory=lambda: Path(os.getcwd()))
    api_key: str | None = None
    team_mode: bool = False
    redis_url: str | None = None
    rate_limit_per_minute: int = Field(default=60, ge=1)
    rate_limit_window_seconds: int = Field(default=60, ge=1)
    allowed_origins: list[str] = Field(default_factory=list)
    allowed_hosts: list[str] = Field(default_factory=list)
    max_body_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    max_batch_messages: int = Field(default=100, ge=1)
    # auto: load the embedding model in the background when installed; off: keyword-only;
    # openai-compatible: ask the server at embedder_url (its /embeddings) for embedder_model's
    # vectors, with embedder_api_key as bearer token when set (read here only: never stored,
    # logged or shown).
    embedder: Literal["auto", "off", "openai-compatible"] = "auto"
    embedder_url: str | None = None
    embedder_model: str | None = None
    embedder_api_key: SecretStr | None = None
    # How long a search (search, mem-find, the console's) waits for its question's vector,
    # queueing included, before answering by keywords; also the embedding server's timeout
    # for a question.
    embedder_question_seconds: float = Field(default=10.0, gt=0, le=300)
    # Batches the packaged model embeds at once in the background, one core each (default:
    # two, or one on a single core); one keeps the hub's memory lowest while it catches up.
    embedder_runs: int | None = Field(default=None, ge=1, le=64)
    # auto: on PostgreSQL with pgvector (made when this role may), vectors are searched there
    # (HNSW); off: every hub holds them in memory, as on SQLite.
    pgvector: Literal["auto", "off"] = "auto"
    max_reply_bytes: int = Field(default=4 * 1024 * 1024, ge=1024)
    # What session_start_context (and so the hooks' session-start context) may hand a model,
    # in tokens as the hub estimates them (token_budget.py); items past it are left out whole.
    context_tokens: int = Field(default=DEFAULT_CONTEXT_TOKENS, ge=200, le=100_000)
    # Who started this hub: `aletheia-server --started-by proxy` is how aletheia-mcp starts one.
    started_by: Literal["user", "proxy"] = "user"
    # A local hub aletheia-mcp started stops after this long without a request (probes aside).
    idle_exit_seconds: int = Field(default=30 * 60, ge=1)
    # Serve HTTPS with this PEM certificate (chain) and key; both or neither.
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    # What hooks capture (POST /api/requests) per project: the oldest prompts beyond any bound
    # are deleted on every insert (age also by `aletheia maintain`); one prompt is cut.
    capture_max_age_days: int = Field(default=30, ge=1)
    capture_max_per_project: int = Field(default=1_000, ge=1)
    capture_max_bytes_per_project: int = Field(default=5 * 1024 * 1024, ge=1024)
    capture_max_prompt_bytes: int = Field(default=8 * 1024, ge=256)
    # Hosts (the `tool` a hook sends) whose prompts are not kept; `*` for every host.
    capture_off_for: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # What hooks capture of the work itself (POST /api/work): the oldest events beyond any
    # ceiling are deleted on every report (capture_max_age_days holds for them too); a
    # session's digest is one memory of at most capture_digest_max_chars.
    capture_max_events_per_session: int = Field(default=500, ge=1)
    capture_max_events_per_project_day: int = Field(default=2_000, ge=1)
    capture_max_work_bytes_per_project: int = Field(default=10 * 1024 * 1024, ge=64 * 1024)
    capture_digest_max_chars: int = Field(default=2_000, ge=200, le=20_000)
    # Projects whose prompts and work are not kept.
    capture_off_projects: Annotated[list[str], NoDecode] = Field(default_factory=list)

    @model_validator(mode="after")
    def _embedder_server(self) -> "Settings":
        if self.embedder == "openai-compatible" and not (self.embedder_url and self.embedder_model):
            raise ValueError(
                "ALETHEIA_EMBEDDER=openai-compatible needs ALETHEIA_EMBEDDER_URL (the API's base,"
                " e.g. http://127.0.0.1:11434/v1) and ALETHEIA_EMBEDDER_MODEL"
            )
        return self

    @field_validator("capture_off_for", mode="before")
    @classmethod
    def _host_names(cls, value: object) -> object:
        if isinstance(value, str):
            return parse_hosts(value)
        if isinstance(value, list) and all(isinstance(name, str) for name in value):
            return host_keys(value)
        return value

    @field_validator("capture_off_projects", mode="before")
    @classmethod
    def _project_names(cls, value: object) -> object:
        if isinstance(value, str) and not value.strip().startswith("["):
            return [name for name in (part.strip() for part in value.split(",")) if name]
        if isinstance(value, str):
            return json.loads(value)
        return value

    def capture_limits(self) -> CaptureLimits:
        return CaptureLimits(
            max_age_days=self.capture_max_age_days,
            max_per_project=self.capture_max_per_project,
            max_bytes_per_project=self.capture_max_bytes_per_project,
            max_prompt_bytes=self.capture_max_prompt_bytes,
        )

    def work_limits(self) -> WorkLimits:
        return WorkLimits(
            max_per_session=self.capture_max_events_per_session,
            max_per_project_day=self.capture_max_events_per_project_day,
            max_bytes_per_project=self.capture_max_work_bytes_per_project,
            max_age_days=self.capture_max_age_days,
            digest_max_chars=self.capture_digest_max_chars,
        )

    def capture_is_off_for_project(self, project: str) -> bool:
        return project in self.capture_off_projects

    def resolved_database_url(self) -> str:
        """PostgreSQL URL when given, else the SQLite file (hub_db, else data_dir/hub.db)."""
        url = database_url(
            database_url=self.database_url, hub_db=self.hub_db, data_dir=self.data_dir
        )
        return normalize_database_url(url)

    def served_store(self) -> StoreLocation:
        """The store this hub serves, as `/healthz` names it (never with a password)."""
        return store_location(self.resolved_database_url())

    def hub_record_path(self) -> Path:
        """Where this hub, when it is a local hub, records its pid and port."""
        return record_path(self.served_store(), self.data_dir.expanduser().resolve())

    def idle_exit_after(self) -> int | None:
        """Seconds without a request after which this hub stops, or None when it never does:
        only a local hub a proxy started goes by itself; one a user started stays."""
        if self.started_by == "proxy" and not self.team_mode:
            return self.idle_exit_seconds
        return None


def normalize_database_url(url: str) -> str:
    """Use psycopg 3 for plain postgres:// and postgresql:// URLs."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url
