-- Shop schema, PostgreSQL 16. Applied by migrations; kept here as the reference.
-- Passwords and keys are stored hashed: the columns below never hold a plaintext secret.

CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE EXTENSION IF NOT EXISTS citext;

CREATE TABLE users (
    id                  UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    email               CITEXT NOT NULL UNIQUE,
    password_hash       TEXT NOT NULL,
    password_changed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    is_active           BOOLEAN NOT NULL DEFAULT true,
    is_staff            BOOLEAN NOT NULL DEFAULT false,
    scopes              TEXT[] NOT NULL DEFAULT '{}',
    key_id              TEXT,
    created_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE password_history (
    id            BIGSERIAL PRIMARY KEY,
    user_id       UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX password_history_user_idx ON password_history (user_id, created_at DESC);

CREATE TABLE api_keys (
    id           UUID PRIMARY KEY,
    user_id      UUID NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    prefix       TEXT NOT NULL,
    key_hash     CHAR(64) NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    last_used_at TIMESTAMPTZ,
    revoked_at   TIMESTAMPTZ
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id) WHERE revoked_at IS NULL;
COMMENT ON COLUMN api_keys.key_hash IS 'sha256 of the whole key; the key itself is shown once';

CREATE TABLE login_attempts (
    id         BIGSERIAL PRIMARY KEY,
    email      CITEXT NOT NULL,
    ip_address INET NOT NULL,
    succeeded  BOOLEAN NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE products (
    sku          TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    price        NUMERIC(10, 2) NOT NULL CHECK (price >= 0),
    image_sha256 CHAR(64),
    search       TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', name)) STORED
);
CREATE INDEX products_search_idx ON products USING gin (search);

CREATE TABLE carts (
    id         UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id    UUID REFERENCES users (id),
    session_id TEXT,
    expires_at TIMESTAMPTZ NOT NULL DEFAULT now() + interval '24 hours'
);

CREATE TABLE orders (
    id              UUID PRIMARY KEY,
    user_id         UUID NOT NULL REFERENCES users (id),
    status          TEXT NOT NULL DEFAULT 'pending_payment'
        CHECK (status IN ('pending_payment', 'paid', 'shipped', 'cancelled')),
    total           NUMERIC(10, 2) NOT NULL,
    idempotency_key UUID UNIQUE,
    payment_intent  TEXT,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX orders_user_created_idx ON orders (user_id, created_at DESC);

CREATE TABLE webhook_endpoints (
    id             UUID PRIMARY KEY DEFAULT gen_random_uuid(),
    url            TEXT NOT NULL,
    secret_hash    CHAR(64) NOT NULL,
    signing_key_id TEXT NOT NULL,
    events         TEXT[] NOT NULL,
    created_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE webhook_deliveries (
    id          BIGSERIAL PRIMARY KEY,
    endpoint_id UUID NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event       TEXT NOT NULL,
    payload     JSONB NOT NULL,
    signature   TEXT NOT NULL,
    status_code INT,
    attempt     INT NOT NULL DEFAULT 1,
    sent_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Roles. The application role logs in with a password set by the deploy from Vault:
--   psql -v app_password="$APP_PASSWORD" -f roles.sql
CREATE ROLE shop_app LOGIN;
ALTER ROLE shop_app WITH PASSWORD :'app_password';
CREATE ROLE shop_readonly NOLOGIN;
GRANT shop_readonly TO shop_app;
GRANT SELECT ON ALL TABLES IN SCHEMA public TO shop_readonly;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO shop_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO shop_readonly;
REVOKE ALL ON password_history FROM shop_readonly;

-- Local development only: a role for the test suite.
CREATE ROLE shop_test LOGIN PASSWORD 'changeme';

-- Seed data for the local catalogue.
INSERT INTO products (sku, name, price, image_sha256) VALUES
    ('TSHIRT-BLK-M', 'T-shirt, black, M', 19.90, '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'),
    ('TSHIRT-WHT-L', 'T-shirt, white, L', 19.90, '60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752'),
    ('MUG-LOGO', 'Mug with logo', 12.50, 'fd61a03af4f77d870fc21e05e7e80678095c92d808cfb3b5c279ee04c74aca13'),
    ('STICKER-PACK', 'Sticker pack', 4.00, NULL);

INSERT INTO users (id, email, password_hash, is_staff) VALUES
    ('6f1c1a3e-8a0e-4d7b-9b1e-2f0c5d9a7e31', 'admin@example.com',
     '$argon2id$v=19$m=65536,t=3,p=2$c29tZXNhbHRzb21lc2FsdA$RdescudvJCsgt3ub+b+dWRWJTmaaJObG', true),
    ('0b8e2d4c-1f7a-4e9d-8c3b-5a6f7e8d9c0b', 'ada@example.com',
     '$argon2id$v=19$m=65536,t=3,p=2$YW5vdGhlcnNhbHR2YWx1ZQ$M2x9b0aN1u8cYbNq3m0fQ6y0tqJ0Zp1K', false);

INSERT INTO api_keys (id, user_id, name, prefix, key_hash) VALUES
    ('2c9a6b1e-4d3f-4a5b-8c7d-9e0f1a2b3c4d', '0b8e2d4c-1f7a-4e9d-8c3b-5a6f7e8d9c0b', 'ci',
     'sk_shop_q3Xa', 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9');

-- Reports.
CREATE VIEW daily_revenue AS
SELECT date_trunc('day', created_at) AS day,
       count(*)                     AS orders,
       sum(total)                   AS revenue
FROM orders
WHERE status IN ('paid', 'shipped')
GROUP BY 1;

CREATE VIEW stale_api_keys AS
SELECT k.id, k.name, k.prefix, u.email, k.last_used_at
FROM api_keys k
JOIN users u ON u.id = k.user_id
WHERE k.revoked_at IS NULL
  AND (k.last_used_at IS NULL OR k.last_used_at < now() - interval '90 days');

CREATE FUNCTION touch_password_changed() RETURNS trigger AS $$
BEGIN
    IF NEW.password_hash IS DISTINCT FROM OLD.password_hash THEN
        INSERT INTO password_history (user_id, password_hash) VALUES (OLD.id, OLD.password_hash);
        NEW.password_changed_at := now();
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER users_password_history
    BEFORE UPDATE OF password_hash ON users
    FOR EACH ROW EXECUTE FUNCTION touch_password_changed();

-- Housekeeping, run nightly by the scheduler.
DELETE FROM login_attempts WHERE created_at < now() - interval '30 days';
DELETE FROM carts WHERE expires_at < now();
UPDATE api_keys SET revoked_at = now()
WHERE revoked_at IS NULL AND last_used_at < now() - interval '365 days';
