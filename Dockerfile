# syntax=docker/dockerfile:1
# The Aletheia team hub: `aletheia-sync` on a store in the /data volume (SQLite by default;
# compose.yaml runs it on PostgreSQL with Redis). Build: docker build -t aletheia-memhub .
#
# Every package comes from requirements-hub.lock (uv.lock's export: exact versions and hashes).
# Meaning-based search is in by default (the hub's `embed` extra, about 250 MB of the image's
# roughly 450 MB); --build-arg HUB_EXTRAS= leaves it out and the hub searches by keyword only.
ARG PYTHON_IMAGE=python:3.12-slim

FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY requirements-hub.lock ./
COPY shared/ shared/
COPY services/stdio-proxy/ services/stdio-proxy/
COPY services/hub/ services/hub/
# Wheels of the locked dependencies and of the three packages; the runtime stage installs from
# these alone, taking what the hub (with HUB_EXTRAS) needs.
RUN pip wheel --no-cache-dir --require-hashes --no-deps --wheel-dir /wheels -r requirements-hub.lock \
    && pip wheel --no-cache-dir --no-deps --wheel-dir /wheels \
        ./shared ./services/stdio-proxy ./services/hub

FROM ${PYTHON_IMAGE}
ARG HUB_EXTRAS=[embed]
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ALETHEIA_DATA_DIR=/data \
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
