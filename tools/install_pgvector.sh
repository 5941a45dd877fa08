#!/usr/bin/env bash
# Make `CREATE EXTENSION vector` work in the local PostgreSQL (the test suites' database):
# when it fails, build pgvector from the vendored source and install it, then create the
# extension in schema public of that database. Idempotent: a second run only checks.
# Users get pgvector from their distribution or the pgvector/pgvector images; this is for
# machines whose package lists carry no pgvector build.
set -euo pipefail
cd "$(dirname "$0")/.."

TARBALL=../shared/vendor/pgvector-0.8.6.tar.gz
PSQL=(psql -h 127.0.0.1 -p 5432 -U postgres -d "${PGVECTOR_DATABASE:-test}" -v ON_ERROR_STOP=1 -qAt)

create_extension() {
  # In public, not in whatever schema a test's search_path names first: a test schema is
  # dropped with CASCADE, which would take the extension (and every vector column) with it.
  "${PSQL[@]}" -c "CREATE EXTENSION IF NOT EXISTS vector SCHEMA public" 2>/dev/null
}

if create_extension; then
  echo "pgvector: $("${PSQL[@]}" -c "SELECT extversion FROM pg_extension WHERE extname = 'vector'") ready"
  exit 0
fi

major=$("${PSQL[@]}" -c "SHOW server_version_num" | cut -c1-2)
pg_config=/usr/lib/postgresql/$major/bin/pg_config
if [ ! -f "$("$pg_config" --includedir-server 2>/dev/null)/postgres.h" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "postgresql-server-dev-$major" make gcc >/dev/null
fi
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
tar -xzf "$TARBALL" -C "$build"
# OPTFLAGS="": no -march=native, so the library runs on any machine of this kind.
make -s -C "$build"/pgvector-* PG_CONFIG="$pg_config" OPTFLAGS="" >/dev/null
make -s -C "$build"/pgvector-* PG_CONFIG="$pg_config" OPTFLAGS="" install >/dev/null
create_extension
echo "pgvector: built and installed $("${PSQL[@]}" -c "SELECT extversion FROM pg_extension WHERE extname = 'vector'")"
