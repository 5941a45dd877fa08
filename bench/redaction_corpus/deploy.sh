#!/usr/bin/env bash
# Build, push and roll out the shop to the cluster named by $CLUSTER.
# Secrets come from the CI environment or from Vault; nothing secret is written to disk.
set -euo pipefail

CLUSTER="${CLUSTER:-staging}"
REGISTRY="${REGISTRY:-registry.example.com}"
IMAGE="$REGISTRY/shop/api"
GIT_SHA="$(git rev-parse HEAD)"
SHORT_SHA="${GIT_SHA:0:12}"
BUILD_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
BASE_IMAGE="python:3.12-slim@sha256:2be8daddbb82756f7d1f2c7ece706aadcb284bf6ab6d769ea695cc3ed6016743"
KUBECTL_SHA256="a2e984a18a0c063279d692533031c1eff93a262afcc0afdc517375432d060989"
HELM_VERSION="3.16.2"

log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

require() {
  for name in "$@"; do
    [[ -n "${!name:-}" ]] || die "$name is not set"
  done
}

install_kubectl() {
  local version="v1.31.2"
  curl -fsSLo /usr/local/bin/kubectl "https://dl.k8s.io/release/${version}/bin/linux/amd64/kubectl"
  echo "${KUBECTL_SHA256}  /usr/local/bin/kubectl" | sha256sum --check --strict
  chmod +x /usr/local/bin/kubectl
}

registry_login() {
  require REGISTRY_USER REGISTRY_PASSWORD
  # --password-stdin keeps the password out of the process list and the shell history.
  printf '%s' "$REGISTRY_PASSWORD" | docker login -u "$REGISTRY_USER" --password-stdin "$REGISTRY"
  helm registry login "$REGISTRY" -u "$REGISTRY_USER" --password-stdin <<<"$REGISTRY_PASSWORD"
}

vault_secret() {
  local path="$1" field="$2"
  vault kv get -field="$field" "secret/shop/${CLUSTER}/${path}"
}

build() {
  log "building $IMAGE:$SHORT_SHA"
  docker build \
    --build-arg BASE_IMAGE="$BASE_IMAGE" \
    --build-arg GIT_SHA="$GIT_SHA" \
    --build-arg BUILD_DATE="$BUILD_DATE" \
    --secret id=pip_index,env=PIP_INDEX_URL \
    --label org.opencontainers.image.revision="$GIT_SHA" \
    -t "$IMAGE:$SHORT_SHA" -t "$IMAGE:latest" .
  docker push "$IMAGE:$SHORT_SHA"
  docker push "$IMAGE:latest"
}

run_smoke_container() {
  docker run --rm -d --name shop-smoke -p 8080:8000 \
    -e DATABASE_URL="postgres://shop@host.docker.internal:5432/shop" \
    -e DJANGO_SECRET_KEY="$(openssl rand -hex 32)" \
    -e DB_PASSWORD \
    "$IMAGE:$SHORT_SHA"
  for attempt in $(seq 1 30); do
    if curl -fsS http://localhost:8080/healthz >/dev/null; then
      log "smoke container healthy after $attempt tries"
      break
    fi
    sleep 1
  done
  docker rm -f shop-smoke
}

migrate() {
  local db_password
  db_password="$(vault_secret postgres password)"
  kubectl -n shop delete secret shop-db --ignore-not-found
  kubectl -n shop create secret generic shop-db \
    --from-literal=username=shop \
    --from-literal=password="$db_password"
  kubectl -n shop run "migrate-$SHORT_SHA" --rm -i --restart=Never \
    --image="$IMAGE:$SHORT_SHA" \
    --env="DB_PASSWORD=$db_password" \
    -- python manage.py migrate --noinput
  unset db_password
}

backup_database() {
  local stamp file
  stamp="$(date -u +%Y%m%d-%H%M%S)"
  file="/backups/shop-${CLUSTER}-${stamp}.sql.gz"
  # pg_dump reads the password from PGPASSWORD, set by the caller from Vault.
  PGPASSWORD="$(vault_secret postgres password)" pg_dump --no-owner -h "$DB_HOST" -U shop shop |
    gzip >"$file"
  sha256sum "$file" >"$file.sha256"
  aws s3 cp "$file" "s3://shop-backups/${CLUSTER}/" --sse aws:kms --only-show-errors
  aws s3 cp "$file.sha256" "s3://shop-backups/${CLUSTER}/" --only-show-errors
}

mysql_report() {
  # The legacy reports database: mysql asks for the password when -p has no value.
  mysql -h reports.internal -u reporter -p reports <sql/weekly_revenue.sql
  mysql --defaults-extra-file="$HOME/.my.reports.cnf" reports -e 'SELECT COUNT(*) FROM orders'
}

rollout() {
  helm upgrade --install shop ./chart \
    --namespace shop \
    --set image.repository="$IMAGE" \
    --set image.tag="$SHORT_SHA" \
    --set-string podAnnotations.gitSha="$GIT_SHA" \
    --values "chart/values-${CLUSTER}.yaml" \
    --atomic --timeout 10m
  kubectl -n shop rollout status deploy/shop-api --timeout=600s
}

notify() {
  local status="$1"
  curl -fsS -X POST "$SLACK_WEBHOOK_URL" \
    -H 'Content-Type: application/json' \
    -d "{\"text\": \"shop ${CLUSTER} deploy ${SHORT_SHA}: ${status}\"}" || true
  curl -fsS -u "$STATUSPAGE_USER:$STATUSPAGE_TOKEN" \
    "https://status.example.com/api/v1/components/shop-api" \
    -d "status=${status}" || true
}

rotate_ssh_key() {
  # A deploy key without a passphrase: the agent on the runner holds it for one job only.
  ssh-keygen -t ed25519 -N '' -C "deploy@${CLUSTER}" -f "$RUNNER_TEMP/deploy_key"
  gh repo deploy-key add "$RUNNER_TEMP/deploy_key.pub" --title "deploy ${BUILD_DATE}"
}

sync_static() {
  aws s3 sync staticfiles/ "s3://shop-static-${CLUSTER}/" --delete --cache-control max-age=31536000
  aws cloudfront create-invalidation --distribution-id "$CLOUDFRONT_ID" --paths '/static/*'
}

check_tools() {
  command -v docker >/dev/null || die "docker is missing"
  command -v helm >/dev/null || die "helm is missing"
  command -v vault >/dev/null || die "vault is missing"
  helm version --short | grep -q "v${HELM_VERSION}" || log "helm is not ${HELM_VERSION}"
}

usage() {
  cat <<EOF
usage: $0 [--skip-build] [--skip-migrate] [--token-file PATH] [--password-file PATH]

  --skip-build        deploy the image already pushed for this commit
  --skip-migrate      do not run database migrations
  --token-file PATH   read the Vault token from PATH instead of VAULT_TOKEN
  --password-file P   read the registry password from P
EOF
}

main() {
  local skip_build=false skip_migrate=false
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --skip-build) skip_build=true ;;
      --skip-migrate) skip_migrate=true ;;
      --token-file) VAULT_TOKEN="$(<"$2")"; export VAULT_TOKEN; shift ;;
      --password-file) REGISTRY_PASSWORD="$(<"$2")"; export REGISTRY_PASSWORD; shift ;;
      -h | --help) usage; exit 0 ;;
      *) usage; die "unknown option $1" ;;
    esac
    shift
  done
  check_tools
  require VAULT_ADDR VAULT_TOKEN
  registry_login
  $skip_build || { build; run_smoke_container; }
  $skip_migrate || migrate
  rollout
  sync_static
  notify "deployed"
  log "done: $IMAGE:$SHORT_SHA on $CLUSTER"
}

trap 'notify "failed at line $LINENO"' ERR
main "$@"
