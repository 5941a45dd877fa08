# syntax=docker/dockerfile:1
# The Aletheia team hub: `aletheia-sync` on a store in the /data volume (SQLite by default;
# compose.yaml runs it on PostgreSQL with Redis). Build: docker build -t aletheia-memhub .
#
# Every package comes from requirements-hub.lock (uv.lock's export: exact versions and hashes).
# Meaning-based search is in by default (the hub's `embed` extra, about 250 MB of the image's
# roughly 450 MB); --build-arg HUB_EXTRAS= leaves it out and the hub searches by keyword only.
ARG PYTHON_IMAGE=python:3.12-slim

# Wheels of the locked dependencies and of the three packages; the runtime stage installs from
# these alone, taking what the hub (with HUB_EXTRAS) needs. .dockerignore keeps the venv, git,
# build leftovers, caches and stores out of the context.
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY requirements-hub.lock ./
RUN pip wheel --no-cache-dir --require-hashes --no-deps --wheel-dir /wheels -r requirements-hub.lock
COPY tools/install_user.py tools/
COPY shared/ shared/
COPY services/stdio-proxy/ services/stdio-proxy/
COPY services/hub/ services/hub/
# As `make wheels`: built from copies of the package folders without build/, dist/, *.egg-info
# (setuptools packs whatever a stale build/lib holds, modules since deleted too).
RUN python tools/install_user.py --wheel-dir /wheels

FROM ${PYTHON_IMAGE}
ARG HUB_EXTRAS=[embed]
# One store for every command: the CMD's --hub-db (aletheia-sync needs one) is ALETHEIA_HUB_DB,
# which `docker exec ... aletheia mcp-link create` and the rest read. ALETHEIA_DATABASE_URL
# (compose.yaml) takes precedence over both.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ALETHEIA_DATA_DIR=/data \
    ALETHEIA_HUB_DB=/data/team.db \
    ALETHEIA_HOST=0.0.0.0 \
    ALETHEIA_PORT=7411
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links /wheels "aletheia-memhub${HUB_EXTRAS}" \
    && pip check \
    && useradd --system --uid 10001 --user-group --create-home aletheia \
    && mkdir /data \
    && chown aletheia:aletheia /data
USER aletheia
WORKDIR /home/aletheia
VOLUME /data
EXPOSE 7411
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/readyz' % os.environ.get('ALETHEIA_PORT', '7411'), timeout=4)"]
CMD ["aletheia-sync", "--hub-db", "/data/team.db"]
