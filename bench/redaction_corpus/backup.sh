#!/usr/bin/env bash
# Nightly backups of the shop's databases, encrypted before they leave the host.
# Every credential is read from a file or the environment; none is passed on a command line.
set -euo pipefail

BACKUP_DIR="${BACKUP_DIR:-/var/backups/shop}"
RETENTION_DAYS="${RETENTION_DAYS:-14}"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
HOST="$(hostname -s)"
GPG_RECIPIENT="backups@shop.example.com"
GPG_FINGERPRINT="4E8A1F2B9C3D5E6F7A8B9C0D1E2F3A4B5C6D7E8F"
MYSQL_DEFAULTS="/etc/shop/backup.my.cnf"
PGPASSFILE="/etc/shop/backup.pgpass"
export PGPASSFILE

log() { echo "[$(date -u +%H:%M:%S)] $*"; }

dump_postgres() {
  local file="$BACKUP_DIR/postgres-$STAMP.sql.gz"
  # The password comes from $PGPASSFILE (mode 0600): pg_dump never prompts here.
  pg_dump --host=db.internal --username=backup --no-password --format=plain shop | gzip -9 >"$file"
  echo "$file"
}

dump_mysql() {
  local file="$BACKUP_DIR/mysql-$STAMP.sql.gz"
  mysqldump --defaults-extra-file="$MYSQL_DEFAULTS" --single-transaction --routines reports |
    gzip -9 >"$file"
  echo "$file"
}

dump_redis() {
  local file="$BACKUP_DIR/redis-$STAMP.rdb"
  REDISCLI_AUTH="$(cat /etc/shop/redis.pass)" redis-cli -h cache.internal --rdb "$file" >/dev/null
  echo "$file"
}

encrypt() {
  local file="$1"
  gpg --batch --yes --trust-model always --recipient "$GPG_RECIPIENT" --encrypt "$file"
  sha256sum "$file.gpg" >"$file.gpg.sha256"
  rm -f "$file"
  echo "$file.gpg"
}

encrypt_symmetric() {
  # For the offline copy: the passphrase is read from a file descriptor, never an argument.
  local file="$1"
  gpg --batch --yes --pinentry-mode loopback --passphrase-file /etc/shop/offline.pass \
    --symmetric --cipher-algo AES256 "$file"
  openssl enc -aes-256-cbc -pbkdf2 -salt -pass env:BACKUP_PASSPHRASE -in "$file" -out "$file.enc"
}

upload() {
  local file="$1"
  aws s3 cp "$file" "s3://shop-backups/$HOST/" --sse aws:kms --sse-kms-key-id alias/shop-backups
  rclone copy "$file" "offsite:shop-backups/$HOST/" --config /etc/shop/rclone.conf
}

prune() {
  find "$BACKUP_DIR" -type f -mtime +"$RETENTION_DAYS" -name '*.gpg' -delete
  aws s3 ls "s3://shop-backups/$HOST/" | awk '{print $4}' | sort | head -n -30 |
    xargs -r -I{} aws s3 rm "s3://shop-backups/$HOST/{}"
}

verify() {
  local file="$1"
  sha256sum --check "$file.sha256"
  gpg --batch --list-packets "$file" | grep -q "$GPG_FINGERPRINT" || log "unexpected key on $file"
}

main() {
  mkdir -p "$BACKUP_DIR"
  chmod 0700 "$BACKUP_DIR"
  for dump in dump_postgres dump_mysql dump_redis; do
    file="$($dump)"
    encrypted="$(encrypt "$file")"
    verify "$encrypted"
    upload "$encrypted"
    log "backed up $encrypted"
  done
  prune
}

main "$@"
