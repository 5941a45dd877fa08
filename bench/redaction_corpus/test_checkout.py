"""Checkout and accounts: the API end to end against a test database."""

import base64
import hashlib
import json
import uuid
from decimal import Decimal

import pytest
from django.test import Client
from freezegun import freeze_time
from shop.accounts.auth_service import hash_password, issue_api_key, sign_webhook
from shop.accounts.models import User
from shop.catalog.models import Product
from shop.checkout.models import Order

ORDER_ID = uuid.UUID("9c5b94b1-35ad-49bb-b118-8e8fc24abf80")
CART_ID = "3d6f0a2e-7c1b-4b8e-9f2a-6e5d4c3b2a19"
PRODUCT_SKU = "TSHIRT-BLK-M"
# Fixtures below use throwaway credentials that exist only in the test database.
TEST_PASSWORD = "test-password"
ADMIN_PASSWORD = "changeme"
WEBHOOK_SECRET = b"not-a-real-secret"
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


@pytest.fixture
def user(db: None) -> User:  # noqa: ARG001
    return User.objects.create(
        email="ada@example.com",
        password_hash=hash_password(TEST_PASSWORD),
        scopes=["orders:read", "orders:write"],
    )


@pytest.fixture
def admin(db: None) -> User:  # noqa: ARG001
    return User.objects.create(email="admin@example.com", password="changeme", is_staff=True)


@pytest.fixture
def product(db: None) -> Product:  # noqa: ARG001
    return Product.objects.create(
        sku=PRODUCT_SKU,
        name="T-shirt, black, M",
        price=Decimal("19.90"),
        image_sha256=hashlib.sha256(PIXEL).hexdigest(),
    )


@pytest.fixture
def logged_in(client: Client, user: User) -> Client:
    assert client.login(email=user.email, password=TEST_PASSWORD)
    return client


def test_login_with_the_wrong_password_is_refused(client: Client, user: User) -> None:
    response = client.post("/api/login", {"email": user.email, "password": "wrong"})
    assert response.status_code == 401
    assert response.json() == {"detail": "Wrong email or password."}


def test_login_sets_a_session_cookie(client: Client, user: User) -> None:
    response = client.post("/api/login", {"email": user.email, "password": TEST_PASSWORD})
    assert response.status_code == 200
    assert "sessionid" in response.cookies
    assert response.cookies["sessionid"]["httponly"]


def test_five_failed_logins_lock_the_account(client: Client, user: User) -> None:
    for _ in range(5):
        client.post("/api/login", {"email": user.email, "password": "nope"})
    response = client.post("/api/login", {"email": user.email, "password": TEST_PASSWORD})
    assert response.status_code == 429


def test_password_change_needs_the_current_password(logged_in: Client) -> None:
    response = logged_in.post(
        "/api/account/password",
        {"old_password": "wrong", "new_password": "a much longer passphrase"},
    )
    assert response.status_code == 400
    assert "current password" in response.json()["detail"]


def test_password_change_rejects_short_passwords(logged_in: Client) -> None:
    response = logged_in.post(
        "/api/account/password", {"old_password": TEST_PASSWORD, "new_password": "short"}
    )
    assert response.status_code == 400


def test_api_key_is_shown_once_and_stored_hashed(user: User) -> None:
    issued = issue_api_key(user, name="ci")
    stored = user.api_keys.get(id=issued.key_id)
    assert stored.key_hash == hashlib.sha256(issued.plaintext.encode()).hexdigest()
    assert issued.plaintext not in json.dumps(stored.as_dict())


def test_api_key_authenticates_requests(client: Client, user: User) -> None:
    issued = issue_api_key(user, name="ci")
    response = client.get("/api/orders", HTTP_X_API_KEY=issued.plaintext)
    assert response.status_code == 200


def test_a_revoked_api_key_is_refused(client: Client, user: User) -> None:
    issued = issue_api_key(user, name="ci")
    client.delete(f"/api/keys/{issued.key_id}", HTTP_X_API_KEY=issued.plaintext)
    response = client.get("/api/orders", HTTP_X_API_KEY=issued.plaintext)
    assert response.status_code == 401


@freeze_time("2026-11-30 12:00:00")
@pytest.mark.usefixtures("product")
def test_checkout_creates_an_order(logged_in: Client) -> None:
    logged_in.post("/api/cart/items", {"sku": PRODUCT_SKU, "quantity": 2})
    response = logged_in.post(
        "/api/checkout",
        {"cart_id": CART_ID, "payment_method": "pm_card_visa"},
        HTTP_IDEMPOTENCY_KEY="4f9e0c1a-2b3d-4e5f-8a9b-0c1d2e3f4a5b",
    )
    assert response.status_code == 201
    order = Order.objects.get(id=response.json()["id"])
    assert order.total == Decimal("39.80")
    assert order.status == "pending_payment"


@pytest.mark.usefixtures("product")
def test_the_same_idempotency_key_returns_the_same_order(logged_in: Client) -> None:
    headers = {"HTTP_IDEMPOTENCY_KEY": "0e7c5b3a-9d1f-4c2e-8b6a-7f5e4d3c2b1a"}
    first = logged_in.post("/api/checkout", {"cart_id": CART_ID}, **headers)
    second = logged_in.post("/api/checkout", {"cart_id": CART_ID}, **headers)
    assert first.json()["id"] == second.json()["id"]


def test_payment_webhook_with_a_bad_signature_is_refused(client: Client) -> None:
    payload = json.dumps({"type": "payment_intent.succeeded", "order": str(ORDER_ID)}).encode()
    response = client.post(
        "/webhooks/payments",
        payload,
        content_type="application/json",
        HTTP_X_SHOP_SIGNATURE="t=1764504000,v1=deadbeef",
    )
    assert response.status_code == 400


def test_payment_webhook_marks_the_order_paid(client: Client, user: User) -> None:
    order = Order.objects.create(id=ORDER_ID, user=user, total=Decimal("39.80"))
    payload = json.dumps({"type": "payment_intent.succeeded", "order": str(order.id)}).encode()
    signature = sign_webhook(payload, WEBHOOK_SECRET)
    response = client.post(
        "/webhooks/payments",
        payload,
        content_type="application/json",
        HTTP_X_SHOP_SIGNATURE=signature,
    )
    assert response.status_code == 204
    order.refresh_from_db()
    assert order.status == "paid"


@pytest.mark.parametrize(
    ("password", "valid"),
    [("hunter2", False), ("correct horse battery staple", True), ("", False)],
)
def test_password_rules(password: str, valid: bool) -> None:
    from shop.accounts.validation import is_valid_password

    assert is_valid_password(password) is valid


def test_admin_can_list_every_order(client: Client, admin: User) -> None:
    client.login(email=admin.email, password="changeme")
    response = client.get("/api/admin/orders?page=1&page_size=50")
    assert response.status_code == 200
    assert response.json()["count"] == 0


def test_order_export_is_signed(logged_in: Client) -> None:
    response = logged_in.get("/api/orders/export.csv")
    digest = hashlib.sha256(response.content).hexdigest()
    assert response["X-Content-Sha256"] == digest
    assert response["Content-Disposition"] == 'attachment; filename="orders.csv"'


def test_product_image_hash_matches(product: Product) -> None:
    assert product.image_sha256 == hashlib.sha256(PIXEL).hexdigest()
    assert len(product.image_sha256) == 64
