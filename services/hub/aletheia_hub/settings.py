"""Hub settings, read from ALETHEIA_* environment variables."""

import os
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from aletheia_shared import env

Scope = Literal["mcp", "read", "sync", "admin"]


class Settings(BaseSettings):
    """Everything the hub can be told; built once per app, never at import time."""

    model_config = SettingsConfigDict(env_prefix="ALETHEIA_", extra="ignore")

    data_dir: Path = Field(default_factory=lambda: Path.home() / env.DEFAULT_DATA_DIR_NAME)
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

    def resolved_database_url(self) -> str:
        """PostgreSQL URL when given, else the SQLite file (hub_db, else data_dir/hub.db)."""
        if self.database_url:
            return normalize_database_url(self.database_url)
        path = self.hub_db if self.hub_db is not None else self.data_dir / env.DB_FILE_NAME
        return f"sqlite:///{Path(path).expanduser().resolve()}"


def normalize_database_url(url: str) -> str:
    """Use psycopg 3 for plain postgres:// and postgresql:// URLs."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url
