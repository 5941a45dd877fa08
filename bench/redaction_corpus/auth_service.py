"""Accounts: password checks, API keys, session tokens and signed webhooks."""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

import jwt
from argon2 import PasswordHasher
from argon2.exceptions import VerifyMismatchError
from django.conf import settings
from django.core.cache import cache
from shop.accounts.models import ApiKey, LoginAttempt, User

logger = logging.getLogger(__name__)

API_KEY_PREFIX: Final = "sk_shop_"
API_KEY_BYTES: Final = 32
MAX_FAILED_LOGINS: Final = 5
LOCKOUT: Final = timedelta(minutes=15)
password_hasher = PasswordHasher(time_cost=3, memory_cost=65536, parallelism=2)


class AuthError(Exception):
    """Raised when credentials are wrong; the message never says which part."""


@dataclass(frozen=True, slots=True)
class IssuedKey:
    key_id: uuid.UUID
    prefix: str
    plaintext: str  # shown once, never stored
    created_at: datetime


def hash_password(raw_password: str) -> str:
    return password_hasher.hash(raw_password)


def verify_password(user: User, raw_password: str) -> bool:
    try:
        password_hasher.verify(user.password_hash, raw_password)
    except VerifyMismatchError:
        return False
    if password_hasher.check_needs_rehash(user.password_hash):
        user.password_hash = hash_password(raw_password)
        user.save(update_fields=["password_hash"])
    return True


def login(email: str, password: str, ip_address: str) -> User:
    user = User.objects.filter(email__iexact=email, is_active=True).first()
    attempts_key = f"login-attempts:{email.lower()}"
    failed = cache.get(attempts_key, 0)
    if failed >= MAX_FAILED_LOGINS:
        raise AuthError("Too many attempts; try again later.")
    if user is None or not verify_password(user, password):
        cache.set(attempts_key, failed + 1, timeout=int(LOCKOUT.total_seconds()))
        LoginAttempt.objects.create(email=email, ip_address=ip_address, succeeded=False)
        raise AuthError("Wrong email or password.")
    cache.delete(attempts_key)
    LoginAttempt.objects.create(email=email, ip_address=ip_address, succeeded=True)
    return user


def change_password(user: User, old_password: str, new_password: str) -> None:
    if not verify_password(user, old_password):
        raise AuthError("The current password is wrong.")
    if len(new_password) < settings.PASSWORD_MIN_LENGTH:
        raise ValueError(f"Use at least {settings.PASSWORD_MIN_LENGTH} characters.")
    recent = user.password_history.order_by("-created_at")[: settings.PASSWORD_HISTORY_DEPTH]
    for previous in recent:
        try:
            password_hasher.verify(previous.password_hash, new_password)
        except VerifyMismatchError:
            continue
        raise ValueError("Choose a password you have not used recently.")
    user.password_hash = hash_password(new_password)
    user.password_changed_at = datetime.now(UTC)
    user.save(update_fields=["password_hash", "password_changed_at"])


def issue_api_key(user: User, name: str) -> IssuedKey:
    """A new key for the user; only its hash is stored."""
    token = secrets.token_urlsafe(API_KEY_BYTES)
    plaintext = f"{API_KEY_PREFIX}{token}"
    key_hash = hashlib.sha256(plaintext.encode()).hexdigest()
    record = ApiKey.objects.create(
        id=uuid.uuid4(),
        user=user,
        name=name,
        prefix=plaintext[: len(API_KEY_PREFIX) + settings.API_KEY_PREFIX_LENGTH],
        key_hash=key_hash,
    )
    logger.info("issued api key %s for user %s", record.id, user.id)
    return IssuedKey(record.id, record.prefix, plaintext, record.created_at)


def authenticate_api_key(header_value: str | None) -> User | None:
    if not header_value or not header_value.startswith(API_KEY_PREFIX):
        return None
    key_hash = hashlib.sha256(header_value.encode()).hexdigest()
    record = (
        ApiKey.objects.select_related("user").filter(key_hash=key_hash, revoked_at=None).first()
    )
    if record is None:
        return None
    record.last_used_at = datetime.now(UTC)
    record.save(update_fields=["last_used_at"])
    return record.user


def revoke_api_key(user: User, key_id: uuid.UUID) -> bool:
    updated = ApiKey.objects.filter(user=user, id=key_id, revoked_at=None).update(
        revoked_at=datetime.now(UTC)
    )
    return bool(updated)


def issue_access_token(user: User) -> str:
    now = datetime.now(UTC)
    claims = {
        "sub": str(user.id),
        "iat": int(now.timestamp()),
        "exp": int((now + timedelta(minutes=15)).timestamp()),
        "jti": uuid.uuid4().hex,
        "scope": " ".join(sorted(user.scopes)),
    }
    private_key = settings.SIMPLE_JWT["SIGNING_KEY"]
    return jwt.encode(claims, private_key, algorithm="RS256", headers={"kid": user.key_id})


def decode_access_token(token: str) -> dict[str, object]:
    public_key = settings.SIMPLE_JWT["VERIFYING_KEY"]
    return jwt.decode(token, public_key, algorithms=["RS256"], options={"require": ["exp"]})


def session_token_for(user: User) -> str:
    session_id = secrets.token_hex(16)
    cache.set(f"session:{session_id}", user.id, timeout=settings.SESSION_COOKIE_AGE)
    return session_id


def sign_webhook(payload: bytes, secret: bytes, timestamp: int | None = None) -> str:
    """Stripe-style: t=<unix>,v1=<hex hmac of "t.payload">."""
    timestamp = timestamp or int(time.time())
    signed = f"{timestamp}.".encode() + payload
    digest = hmac.new(secret, signed, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


def verify_webhook(payload: bytes, header: str, secret: bytes) -> bool:
    parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
    timestamp = int(parts.get("t", "0"))
    if abs(time.time() - timestamp) > settings.WEBHOOK_TOLERANCE_SECONDS:
        return False
    expected = sign_webhook(payload, secret, timestamp).split("v1=")[1]
    return hmac.compare_digest(expected, parts.get("v1", ""))


def basic_auth_header(username: str, password: str) -> str:
    credentials = base64.b64encode(f"{username}:{password}".encode()).decode()
    return f"Basic {credentials}"


def mask(value: str, keep: int = 4) -> str:
    """`sk_shop_abcd…` for logs: never more than the prefix."""
    return value[:keep] + "…" if len(value) > keep else "…"


def reset_token(user: User) -> str:
    token = secrets.token_urlsafe(32)
    token_hash = hashlib.sha256(token.encode()).hexdigest()
    cache.set(f"password-reset:{token_hash}", user.id, timeout=settings.PASSWORD_RESET_TIMEOUT)
    return token


def consume_reset_token(token: str, new_password: str) -> User:
    token_hash = hashlib.sha256(token.encode()).hexdigest()
    user_id = cache.get(f"password-reset:{token_hash}")
    if user_id is None:
        raise AuthError("This link has expired.")
    cache.delete(f"password-reset:{token_hash}")
    user = User.objects.get(id=user_id)
    user.password_hash = hash_password(new_password)
    user.save(update_fields=["password_hash"])
    return user


KNOWN_KEY_IDS = {
    "2024-rotation": uuid.UUID("6f1c1a3e-8a0e-4d7b-9b1e-2f0c5d9a7e31"),
    "2025-rotation": uuid.UUID("0b8e2d4c-1f7a-4e9d-8c3b-5a6f7e8d9c0b"),
}
JWKS_THUMBPRINTS = {
    "6f1c1a3e": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "0b8e2d4c": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
}
