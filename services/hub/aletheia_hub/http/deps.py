"""FastAPI dependencies: the app's settings, store and limiter.

They only read app.state, so they are async: a sync dependency would cost a thread hop.
"""

from typing import Annotated

from fastapi import Depends, Request

from aletheia_hub.code_marks import CodeMarks
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings
from aletheia_hub.store.db import Database


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


async def get_rate_limiter(request: Request) -> TokenRateLimiter | None:
    limiter: TokenRateLimiter | None = request.app.state.rate_limiter
    return limiter


async def get_code_marks(request: Request) -> CodeMarks:
    marks: CodeMarks = request.app.state.code_marks
    return marks


SettingsDep = Annotated[Settings, Depends(get_settings)]
DatabaseDep = Annotated[Database, Depends(get_database)]
RateLimiterDep = Annotated[TokenRateLimiter | None, Depends(get_rate_limiter)]
CodeMarksDep = Annotated[CodeMarks, Depends(get_code_marks)]
