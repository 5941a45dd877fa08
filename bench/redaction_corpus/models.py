"""SQLAlchemy models of the billing service and its first migration."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime
from decimal import Decimal
from typing import ClassVar

import sqlalchemy as sa
from alembic import op
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

# Alembic identifiers: revision ids are random hex, not secrets.
revision = "3f2a1c9b7d4e"
down_revision = "9e8d7c6b5a41"
branch_labels = None
depends_on = None


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[type, sa.types.TypeEngine]] = {Decimal: sa.Numeric(12, 2)}


class InvoiceStatus(enum.StrEnum):
    DRAFT = "draft"
    OPEN = "open"
    PAID = "paid"
    VOID = "void"


class Customer(Base):
    __tablename__ = "customers"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    email: Mapped[str] = mapped_column(sa.String(320), unique=True, index=True)
    password_hash: Mapped[str | None] = mapped_column(sa.Text, doc="argon2id, never plaintext")
    stripe_customer_id: Mapped[str | None] = mapped_column(sa.String(64), unique=True)
    api_key_id: Mapped[uuid.UUID | None] = mapped_column(sa.ForeignKey("api_keys.id"))
    tax_id: Mapped[str | None] = mapped_column(sa.String(32))
    created_at: Mapped[datetime] = mapped_column(server_default=sa.func.now())

    invoices: Mapped[list[Invoice]] = relationship(back_populates="customer")

    def __repr__(self) -> str:
        return f"Customer(id={self.id!s}, email={self.email!r})"


class ApiKey(Base):
    __tablename__ = "api_keys"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    prefix: Mapped[str] = mapped_column(sa.String(16), index=True)
    key_hash: Mapped[str] = mapped_column(sa.String(64), unique=True)
    scopes: Mapped[list[str]] = mapped_column(sa.ARRAY(sa.String(32)), default=list)
    expires_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]


class Invoice(Base):
    __tablename__ = "invoices"
    __table_args__ = (sa.UniqueConstraint("customer_id", "number", name="invoice_number_uniq"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    customer_id: Mapped[uuid.UUID] = mapped_column(sa.ForeignKey("customers.id"), index=True)
    number: Mapped[str] = mapped_column(sa.String(32))
    status: Mapped[InvoiceStatus] = mapped_column(default=InvoiceStatus.DRAFT)
    total: Mapped[Decimal]
    currency: Mapped[str] = mapped_column(sa.String(3), default="EUR")
    pdf_sha256: Mapped[str | None] = mapped_column(sa.String(64))
    idempotency_key: Mapped[str | None] = mapped_column(sa.String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(server_default=sa.func.now())

    customer: Mapped[Customer] = relationship(back_populates="invoices")
    lines: Mapped[list[InvoiceLine]] = relationship(cascade="all, delete-orphan")


class InvoiceLine(Base):
    __tablename__ = "invoice_lines"

    id: Mapped[int] = mapped_column(primary_key=True)
    invoice_id: Mapped[uuid.UUID] = mapped_column(sa.ForeignKey("invoices.id", ondelete="CASCADE"))
    sku: Mapped[str] = mapped_column(sa.String(64))
    quantity: Mapped[int] = mapped_column(default=1)
    unit_price: Mapped[Decimal]


class WebhookSecret(Base):
    """Signing secrets of outgoing webhooks: only a hash and a hint are kept here; the secret
    itself lives in the KMS under `kms_key_id`."""

    __tablename__ = "webhook_secrets"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=uuid.uuid4)
    endpoint_url: Mapped[str] = mapped_column(sa.Text)
    secret_hash: Mapped[str] = mapped_column(sa.String(64))
    secret_hint: Mapped[str] = mapped_column(sa.String(8))
    kms_key_id: Mapped[str] = mapped_column(sa.String(128))
    rotated_at: Mapped[datetime | None]


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("scopes", sa.ARRAY(sa.String(32)), nullable=False, server_default="{}"),
        sa.Column("expires_at", sa.DateTime(timezone=True)),
        sa.Column("revoked_at", sa.DateTime(timezone=True)),
    )
    op.create_index("api_keys_prefix_idx", "api_keys", ["prefix"])
    op.create_table(
        "customers",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("email", sa.String(320), nullable=False, unique=True),
        sa.Column("password_hash", sa.Text()),
        sa.Column("stripe_customer_id", sa.String(64), unique=True),
        sa.Column("api_key_id", sa.Uuid(), sa.ForeignKey("api_keys.id")),
        sa.Column("tax_id", sa.String(32)),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now()),
    )
    op.create_table(
        "webhook_secrets",
        sa.Column("id", sa.Uuid(), primary_key=True),
        sa.Column("endpoint_url", sa.Text(), nullable=False),
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("secret_hint", sa.String(8), nullable=False),
        sa.Column("kms_key_id", sa.String(128), nullable=False),
        sa.Column("rotated_at", sa.DateTime(timezone=True)),
    )
    op.execute(
        "INSERT INTO api_keys (id, prefix, key_hash) VALUES "
        "('7c9e6679-7425-40de-944b-e07fc1f90ae7', 'bk_live', "
        "'2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae')"
    )


def downgrade() -> None:
    op.drop_table("webhook_secrets")
    op.drop_table("customers")
    op.drop_index("api_keys_prefix_idx", table_name="api_keys")
    op.drop_table("api_keys")


KMS_KEY_ARN = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
SIGNING_KEY_ID = "webhooks-2026-11"
PUBLIC_KEY_FINGERPRINT = "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8"
