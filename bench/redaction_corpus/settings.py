"""Django settings for the shop project.

Values that differ per environment are read from the environment; nothing secret is kept in
this file. See docs/deploy.md for the variables each environment sets.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
import environ

env = environ.Env(
    DEBUG=(bool, False),
    ALLOWED_HOSTS=(list, ["localhost", "127.0.0.1"]),
    SESSION_COOKIE_AGE=(int, 1209600),
)

BASE_DIR = Path(__file__).resolve().parent.parent
environ.Env.read_env(BASE_DIR / ".env")

# SECURITY WARNING: keep the secret key used in production secret!
SECRET_KEY = env("DJANGO_SECRET_KEY")
SECRET_KEY_FALLBACKS = env.list("DJANGO_SECRET_KEY_FALLBACKS", default=[])
DEBUG = env("DEBUG")
ALLOWED_HOSTS = env("ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = ["https://shop.example.com", "https://admin.shop.example.com"]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "corsheaders",
    "shop.accounts",
    "shop.catalog",
    "shop.checkout",
    "shop.webhooks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "corsheaders.middleware.CorsMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "shop.urls"
WSGI_APPLICATION = "shop.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default="postgres://shop@localhost:5432/shop",
        conn_max_age=600,
        conn_health_checks=True,
    ),
}
DATABASES["default"]["OPTIONS"] = {"sslmode": env("DB_SSLMODE", default="prefer")}
DATABASES["default"]["PASSWORD"] = os.environ.get("DB_PASSWORD", "")

CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": env("REDIS_URL", default="redis://localhost:6379/1"),
        "KEY_PREFIX": "shop",
        "TIMEOUT": 300,
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 12},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
PASSWORD_RESET_TIMEOUT = 60 * 60 * 24
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/account/"

SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_COOKIE_NAME = "sessionid"
SESSION_COOKIE_AGE = env("SESSION_COOKIE_AGE")
SESSION_COOKIE_SECURE = not DEBUG
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_NAME = "csrftoken"
CSRF_COOKIE_SECURE = not DEBUG
CSRF_HEADER_NAME = "HTTP_X_CSRFTOKEN"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
        "shop.accounts.auth.ApiKeyAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_RATES": {"anon": "30/minute", "user": "600/minute", "api_key": "6000/hour"},
    "PAGE_SIZE": 50,
}

SIMPLE_JWT = {
    "ACCESS_TOKEN_LIFETIME": timedelta(minutes=15),
    "REFRESH_TOKEN_LIFETIME": timedelta(days=14),
    "ROTATE_REFRESH_TOKENS": True,
    "ALGORITHM": "RS256",
    "SIGNING_KEY": env("JWT_SIGNING_KEY", default=""),
    "VERIFYING_KEY": env("JWT_VERIFYING_KEY", default=""),
    "AUTH_HEADER_TYPES": ("Bearer",),
    "USER_ID_CLAIM": "user_id",
    "TOKEN_TYPE_CLAIM": "token_type",
    "JTI_CLAIM": "jti",
}

STRIPE = {
    "PUBLISHABLE_KEY": env("STRIPE_PUBLISHABLE_KEY", default=""),
    "SECRET_KEY": env("STRIPE_SECRET_KEY", default=""),
    "WEBHOOK_SECRET": env("STRIPE_WEBHOOK_SECRET", default=""),
    "API_VERSION": "2024-06-20",
    "MAX_NETWORK_RETRIES": 2,
}

EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = env("EMAIL_HOST", default="smtp.sendgrid.net")
EMAIL_PORT = 587
EMAIL_USE_TLS = True
EMAIL_HOST_USER = "apikey"
EMAIL_HOST_PASSWORD = env("SENDGRID_API_KEY", default="")
DEFAULT_FROM_EMAIL = "Shop <orders@shop.example.com>"

AWS_STORAGE_BUCKET_NAME = env("AWS_STORAGE_BUCKET_NAME", default="shop-media")
AWS_S3_REGION_NAME = "eu-west-1"
AWS_S3_SIGNATURE_VERSION = "s3v4"
AWS_ACCESS_KEY_ID = env("AWS_ACCESS_KEY_ID", default=None)
AWS_SECRET_ACCESS_KEY = env("AWS_SECRET_ACCESS_KEY", default=None)
AWS_QUERYSTRING_EXPIRE = 3600

SENTRY_DSN = env("SENTRY_DSN", default="")
SENTRY_TRACES_SAMPLE_RATE = 0.05
RELEASE_SHA = env("GIT_SHA", default="3f786850e387550fdab836ed7e6dc881de23001b")

CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="redis://localhost:6379/2")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_DEFAULT_QUEUE = "shop-default"
CELERY_TASK_ROUTES = {
    "shop.checkout.tasks.capture_payment": {"queue": "payments", "routing_key": "payments.capture"},
    "shop.webhooks.tasks.deliver": {"queue": "webhooks", "routing_key": "webhooks.deliver.v2"},
}
CELERY_BEAT_SCHEDULE = {
    "expire-carts": {"task": "shop.checkout.tasks.expire_carts", "schedule": 900.0},
    "rotate-api-keys": {"task": "shop.accounts.tasks.rotate_api_keys", "schedule": 86400.0},
}

CORS_ALLOWED_ORIGINS = ["https://shop.example.com"]
CORS_ALLOW_CREDENTIALS = True
CORS_ALLOW_HEADERS = [
    "authorization",
    "content-type",
    "x-api-key",
    "x-csrftoken",
    "idempotency-key",
]

API_KEY_HEADER = "X-Api-Key"
API_KEY_PREFIX_LENGTH = 8
API_KEY_HASH_ALGORITHM = "sha256"
TOKEN_TTL_SECONDS = 3600
MAX_TOKENS_PER_USER = 20
PASSWORD_MIN_LENGTH = 12
PASSWORD_HISTORY_DEPTH = 5
WEBHOOK_SIGNATURE_HEADER = "X-Shop-Signature"
WEBHOOK_TOLERANCE_SECONDS = 300
FEATURE_FLAGS_KEY = "shop:feature-flags"
IDEMPOTENCY_KEY_TTL = timedelta(hours=24)
CACHE_KEY_VERSION = 3

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"redact": {"()": "shop.logging.RedactSecretsFilter"}},
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.jsonlogger.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s",
        }
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["redact"]}
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "shop.checkout": {"level": "INFO"},
    },
}

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
MEDIA_URL = "/media/"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# A 1x1 transparent PNG, used as the placeholder thumbnail.
PLACEHOLDER_THUMBNAIL = (
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
