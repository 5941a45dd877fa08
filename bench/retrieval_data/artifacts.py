"""What notes point at: error messages, files, test cases, settings and commands."""

# ruff: noqa: E501  (a table keeps one term or line per row, however long)

from typing import Final

from .vocab import Term, table

# Error messages by kind, so a template can ask for one that fits (`{dberr}`); `{err}` takes
# any. Paraphrases are noun phrases: "hitting {err:p}" reads well with each.
ERROR_KINDS: Final[dict[str, tuple[Term, ...]]] = {
    "neterr": table("""
ECONNRESET | a socket dropped by the other side mid-request; the peer hanging up halfway
ETIMEDOUT | an outbound call that hung until it gave up; a remote host never answering in time
DNS_PROBE_FINISHED_NXDOMAIN | a hostname that did not resolve; name resolution finding no record
ReadTimeout | an HTTP client waiting too long for a response; a stalled socket response
BrokenPipeError | writing to a socket the peer had already closed; a connection vanishing during a write
ConnectionRefusedError | nothing listening on the target port; a service that was down when we dialed it
WebSocket is already in CLOSING or CLOSED state | sending on a realtime link that had shut down; a finished live connection | CLOSING
"""),
    "httperr": table("""
429 Too Many Requests | provider throttling; being rate limited upstream | 429
504 Gateway Timeout | the upstream taking too long behind the proxy; the load balancer giving up waiting | 504
401 Unauthorized | rejected credentials; a caller who was not logged in | 401
403 Forbidden | a caller lacking permission; access refused for that role | 403
413 Payload Too Large | an upload body over the size cap; a request bigger than allowed | 413
No 'Access-Control-Allow-Origin' header | the browser blocking calls from another domain; a failed CORS preflight | Access-Control-Allow-Origin
InvalidSignatureError | a failed webhook HMAC check; a callback digest that did not verify
Signature has expired | a signed credential lapsing because of clock drift; a JWT rejected as stale | Signature has expired
CSRF token missing | a form post lacking the anti-forgery value; the cross-site request check rejecting a submit | CSRF
invalid_grant | a refused OAuth refresh; the identity provider rejecting a renewal
TokenExpiredError | a lapsed login credential; a bearer JWT that was too old
"""),
    "tlserr": table("""
SSL: CERTIFICATE_VERIFY_FAILED | a TLS handshake rejecting the cert chain; HTTPS trust that could not be established | CERTIFICATE_VERIFY_FAILED
x509: certificate has expired | an HTTPS cert past its end date; an out-of-date TLS chain | x509
ERR_CERT_AUTHORITY_INVALID | the browser distrusting a self-signed chain; an unknown issuer behind the HTTPS chain
Mixed Content | an HTTPS page loading an insecure resource; the browser blocking plain-http assets on a secure page | Mixed Content
"""),
    "dberr": table("""
deadlock detected | two transactions waiting on each other forever; concurrent writes blocking one another
sqlite3.OperationalError: database is locked | the embedded DB refusing a second writer; writes colliding on the single-file store | database is locked
IntegrityError: duplicate key value violates unique constraint | a second identical row being refused; a repeated insert hitting the index | IntegrityError
QueuePool limit of size 5 overflow 10 reached | every pooled DB connection checked out; the app exhausting its SQL handles | QueuePool
Lock wait timeout exceeded | a row held by another transaction for too long; a transaction stuck behind a busy row | Lock wait timeout
SerializationFailure | concurrent transactions conflicting under strict isolation; the database aborting one of two racing writers
relation does not exist | a table missing because a migration had not run; SQL referencing an unknown table | relation does not exist
Can't locate revision | a migration history with a missing step; a broken schema version chain | locate revision
FATAL: too many connections for role | the database refusing new sessions at the cap; Postgres hitting its client limit | too many connections
"""),
    "opserr": table("""
EADDRINUSE | a port that was already taken; another process holding the listening address
ENOSPC: no space left on device | a full disk; a volume with no room remaining | ENOSPC
OOMKilled | the container being stopped for using too much RAM; the kernel reaping it over memory use
CrashLoopBackOff | the pod restarting over and over; a container that would not stay up
ImagePullBackOff | the cluster failing to fetch the container image; a failed registry download
OSError: Too many open files | running out of descriptors; the process hitting its handle limit | Too many open files
Segmentation fault | a native extension crashing the interpreter; a C module bringing the process down | Segmentation fault
EACCES: permission denied | binding a port that needed root; a process lacking rights to the path | EACCES
exit code 137 | the job dying from the kernel's memory killer; a task hard-stopped for memory | exit code 137
FATAL: Reached heap limit Allocation failed | the Node process running out of memory; V8 dying for lack of RAM | heap limit
Permission denied (publickey) | a rejected SSH key; git failing to authenticate over ssh | publickey
"""),
    "codeerr": table("""
ModuleNotFoundError | an import failing because a package was absent; a dependency absent at runtime
KeyError: 'user_id' | a dict lookup blowing up on the absent account identifier; a mapping lacking the uid entry | KeyError
RecursionError: maximum recursion depth exceeded | a call stack overflow; a function calling itself endlessly | RecursionError
UnicodeDecodeError | bytes that were not valid UTF-8; a text file in the wrong encoding
JSONDecodeError | a response body that could not be parsed; a malformed payload
ERR_REQUIRE_ESM | a CommonJS import of an ES-module-only package; a CommonJS load of a package that only ships import syntax
TypeError: Cannot read properties of undefined | the frontend dereferencing a missing value; JavaScript touching a field on nothing | properties of undefined
ValueError: Invalid isoformat string | date parsing choking on the timestamp format; a malformed timestamp text | isoformat
AttributeError: 'NoneType' object has no attribute | a null slipping through where code expected a value; Python getting nothing instead of an instance | NoneType
TypeError: Object of type datetime is not JSON serializable | the response encoder choking on a timestamp; dumping a date to the wire failing | not JSON serializable
nil pointer dereference | the Go binary crashing on a missing reference; a Go panic from an unset struct | nil pointer
Unexpected token < in JSON at position 0 | an HTML error page coming back instead of data; the client parsing markup as a payload | Unexpected token
ERESOLVE unable to resolve dependency tree | the package manager finding conflicting peer versions; npm failing to reconcile versions | ERESOLVE
Error: Cannot find module | the runtime failing to locate a required file; Node failing to load an import | Cannot find module
IndexError: list index out of range | code reading past the end of an array; an off-the-end access on a sequence | IndexError
ZeroDivisionError | a ratio computed with an empty denominator; a division by nothing
Hydration failed because the initial UI does not match | server-rendered HTML differing from the client render; SSR markup mismatching in the browser | Hydration failed
Maximum update depth exceeded | a component re-rendering in an endless loop; state changes triggering each other forever | Maximum update depth
Navigation timeout of 30000 ms exceeded | a browser page that never finished loading in the e2e run; a stalled headless page load | Navigation timeout
"""),
}
ERRORS: Final = tuple(term for terms in ERROR_KINDS.values() for term in terms)

FILES: Final = table("""
rate_limiter.py | the throttling code; the module that caps calls per client
session_store.py | where login state is persisted; the module keeping signed-in users
invoice_pdf.py | the bill document renderer; the code drawing billing documents
retry_policy.py | the backoff settings module; the code deciding how often to try again
webhook_handler.py | the code that receives callbacks from partners; the inbound event endpoint
feature_flags.ts | the toggle definitions; the list of rollout switches
use_cart.ts | the shopping basket hook; the React state for the basket
settings.py | the configuration module; the place environment values are read
conftest.py | the shared pytest fixtures; the common setup for the Python suite
docker-compose.yml | the local stack definition; the file that starts dependencies locally
Dockerfile | the image recipe; the container build instructions
ci.yml | the pipeline workflow; the build job definition
nginx.conf | the proxy configuration; the front server config
values.yaml | the chart overrides; the helm parameters
main.tf | the infra definition; the Terraform root module
Makefile | the build targets file; the developer task shortcuts
package.json | the JS manifest; the Node dependency list
pyproject.toml | the Python project manifest; the Python dependency list
tsconfig.json | the TypeScript compiler options; the TS build config
serializers.py | the JSON converters; the payload encoding classes
permissions.py | the access checks; the role rules module
tasks.py | the background job definitions; the queue consumers module
models.py | the ORM table classes; the database entity definitions
urls.py | the route table; the path-to-view mapping
middleware.ts | the edge request interceptor; the code run before every page
auth_client.go | the Golang sign-in wrapper; the Golang wrapper for signing in
cache.go | the Golang memoization layer; the Golang lookup storage helpers
handler.go | the Golang HTTP entry point; the Golang request dispatcher
cron.yaml | the schedule definitions; the periodic job timetable
seed_data.py | the fixture loader for dev databases; the sample records script
pricing.py | the cost calculation logic; the module computing amounts
tax_rules.py | the VAT computation; the levy tables code
currency.py | the money conversion helpers; the exchange rate utilities
upload_handler.py | the file-receiving endpoint; the attachment intake code
thumbnail.py | the image shrinking code; the picture scaling helper
pagination.py | the page cursor helpers; the offset and limit utilities
jwt_utils.py | the bearer credential helpers; the signing and verifying code
csrf.py | the anti-forgery checks; the cross-site request guard
cors.py | the cross-origin settings; the browser origin allow list
logging.yaml | the verbosity and format config; the output formatting config
i18n.ts | the localisation setup; the translations loader
router.tsx | the client navigation setup; the SPA routes
App.tsx | the root UI component; the top-level React tree
api_client.ts | the frontend's backend wrapper; the browser fetch helper
db.py | the engine and connection setup; the SQL session factory
backup.sh | the dump-and-upload script; the nightly snapshot shell
deploy.sh | the release script; the shell that ships builds
healthcheck.py | the liveness probe; the readiness endpoint code
metrics.py | the counters and histograms module; the telemetry helpers
scheduler.py | the periodic job runner; the cron-like trigger code
worker.py | the queue consumer entry point; the background process main
consumer.py | the event stream reader; the topic subscriber
producer.py | the event publisher; the topic writer
schema.graphql | the API type definitions; the query contract
openapi.yaml | the REST spec; the HTTP contract document
email_templates.py | the mail layouts module; the message body builders
search_query.py | the lookup builder; the code turning filters into index lookups
address_validation.py | the postal details checks; the street and postcode checker
refunds.py | the money-back logic; the code reversing charges
""")

DIRECTORIES: Final = [
    "src/api",
    "src/billing",
    "app/services",
    "packages/web/src",
    "internal/auth",
    "cmd/server",
    "services/payments",
    "infra/k8s",
    "deploy",
    "scripts",
    "frontend/src",
    "backend/app",
    "lib",
    "core",
    "src/workers",
    "apps/admin",
    "services/search",
    "platform/gateway",
    "mobile/shared",
    "tools/ci",
]

CASES: Final = table("""
test_login_redirect | the check that users land on the right page after signing in; the post-sign-in landing spec
test_checkout_total | the check that the basket sum is right; the order amount spec
test_refund_webhook | the partner callback check for money sent back; the reimbursement event spec
test_password_reset_email | the forgot-credential mail check; the spec for the recovery message
test_upload_large_file | the big attachment check; the spec sending a huge document
test_concurrent_signup | the check for two simultaneous registrations; the parallel account creation spec
test_invoice_rounding | the cents precision check on bills; the spec for fractional amounts on billing documents
test_search_pagination | the check for paging through results; the spec walking result pages
test_export_csv | the spreadsheet download check; the tabular file download spec
test_timezone_rollover | the midnight date change check; the spec crossing the day boundary
test_rate_limit_headers | the throttling response fields check; the spec for the quota response fields
test_oauth_callback | the third-party sign-in return check; the identity provider redirect spec
test_cache_invalidation | the stale entries eviction check; the spec for dropping outdated stored values
test_migration_roundtrip | the schema upgrade-then-downgrade check; the spec applying and reverting DDL
test_session_expiry | the logged-out-after-idle check; the spec for idle sign-out
test_webhook_retry | the callback resend check; the spec for redelivering partner events
test_dashboard_snapshot | the admin screen visual comparison; the screenshot diff spec
test_email_unsubscribe | the mailing opt-out check; the spec for leaving the newsletter
test_inventory_sync | the stock reconciliation check; the spec comparing warehouse counts
test_permissions_matrix | the roles-versus-actions access check; the spec crossing every role with every action
test_coupon_stacking | the check that discounts don't combine; the spec for applying two promo codes
test_currency_conversion | the exchange rate check; the spec turning euros into dollars
test_tax_exemption | the VAT-free customer check; the spec for customers who owe no levy
test_order_cancellation | the check for calling off a purchase; the spec for aborting a bought item
test_address_validation | the postal details check; the spec for street and postcode rules
test_two_factor_login | the one-time code sign-in check; the 2FA spec
test_image_thumbnail | the picture scaling check; the spec for small previews
test_feature_flag_default | the toggle fallback check; the spec for a switch nobody configured
test_websocket_reconnect | the live connection resume check; the spec dropping and restoring the realtime link
test_bulk_import | the mass data load check; the spec ingesting thousands of rows
test_report_schedule | the recurring summary generation check; the spec for periodic PDFs
test_gift_card_balance | the voucher remaining amount check; the prepaid credit spec
test_shipping_estimate | the delivery cost check; the postage quote spec
test_search_ranking | the result ordering check; the relevance order spec
test_locale_fallback | the missing translation check; the spec for untranslated copy
test_audit_trail | the who-did-what record check; the staff action history spec
test_subscription_renewal | the recurring plan charge check; the membership rebilling spec
test_health_endpoint | the liveness probe check; the readiness route spec
test_graphql_schema | the API type definitions check; the query contract spec
test_mobile_deeplink | the app link opening check; the spec for URLs opening the phone client
test_payment_decline | the rejected card check; the spec for a refused charge
test_admin_impersonation | the staff acting-as-user check; the spec for support logging in as someone
test_retry_backoff | the increasing wait between attempts check; the exponential delay spec
""")

KEYS: Final = table("""
DATABASE_POOL_SIZE | the number of DB connections each process holds open; the count of reusable SQL handles
REDIS_TTL_SECONDS | the lifetime of cached entries in memory; the expiry of stored lookups
MAX_UPLOAD_MB | the attachment size cap; the biggest document users may send
WORKER_CONCURRENCY | the number of jobs run in parallel per process; the background parallelism setting
HTTP_TIMEOUT_MS | the cap on waiting for remote services; the limit on how long outbound calls may hang
LOG_LEVEL | the verbosity setting; how chatty the output is
SENTRY_SAMPLE_RATE | the fraction of exceptions reported; the share of crashes sent to error tracking
JWT_EXPIRY_MINUTES | the lifetime of signed sign-in proofs; how long bearer credentials stay valid
CORS_ALLOWED_ORIGINS | the list of sites that may call us from a browser; the cross-site caller whitelist
RATE_LIMIT_PER_MINUTE | the per-client throttle; the quota of calls each caller gets
EMAIL_BATCH_SIZE | the number of mails sent per run; the number of messages per mailer chunk
RETRY_MAX_ATTEMPTS | the cap on tries; how many times a failed call is repeated
SESSION_COOKIE_SECURE | the HTTPS-only attribute on login state; the TLS-only marker for sign-in
DB_STATEMENT_TIMEOUT | the cap on how long a SQL query may run; the query duration limit in Postgres
GUNICORN_WORKERS | the number of web server processes; the count of pre-forked Python servers
PAGE_SIZE_DEFAULT | the number of rows a list returns when unspecified; the fallback listing length
SEARCH_REINDEX_CRON | the timing of the nightly catalog rebuild; the schedule of the lookup refresh
TRACE_SAMPLE_RATIO | the share of spans we keep; the fraction of traffic with spans recorded
ALLOWED_HOSTS | the accepted domain list; the hostnames we answer for
UPLOAD_BUCKET | the object storage location for attachments; the S3 place for user documents
PDF_RENDER_TIMEOUT | the cap on generating printable documents; the limit for drawing printable documents
QUEUE_VISIBILITY_TIMEOUT | the lease length on messages; how long a taken job stays hidden from other consumers
MAX_CONNECTIONS | the cap on simultaneous clients; the server's socket limit
CACHE_SIZE_MB | the memory budget for memoized results; the in-process lookup store capacity
""")

COMMANDS: Final = tuple(
    Term(term.name, term.paraphrases, term.name)  # a command is typed whole
    for term in table("""
make lint | the style and type checks; the linters target
pnpm typecheck | the TypeScript compiler check; tsc over the whole frontend
alembic upgrade head | the latest schema migration; bringing the database to the newest revision
terraform plan | the infra change preview; the dry run of cloud changes
pytest -x tests/unit | the quick isolated suite; the fast Python specs that stop at the first failure
docker compose up -d | the local stack; the background dependencies on a laptop
npm run build | the production bundle; the frontend release compile
cargo clippy | the Rust lints; the Rust static analysis
ruff check . | the Python lint; the fast Python style checker
mypy --strict | the full static typing pass; the type checker at its toughest setting
pre-commit run --all-files | the git hooks over the whole repo; every git hook at once
bundle exec rspec | the Ruby specs; the Rails test suite
helm lint | the chart validation; the check of the Kubernetes package templates
./scripts/check_migrations.sh | the schema drift detector; the comparison of models with the DDL history
make test | the full suite; every suite at once
npx prettier --check . | the formatting verification; the JS formatter in verify mode
buf lint | the proto style check; the protobuf linter
kubectl diff | the cluster change preview; the dry comparison against live manifests
shellcheck | the bash linter; the static analysis for shell
""")
)

FLAGS: Final = table("""
new-checkout-flow | the redesigned purchase toggle; the switch for the rebuilt basket screens
dark-mode | the night theme toggle; the black UI switch
new-search-ranking | the rebuilt relevance toggle; the switch for the reworked result order
apple-pay-button | the wallet payment option toggle; the iPhone wallet purchase switch
smart-retries | the adaptive charge reattempt toggle; the switch for intelligent payment reattempts
bulk-export-v2 | the rewritten mass download toggle; the switch for the faster spreadsheet dump
inline-editing | the change-in-place toggle; the switch letting people change cells directly
guest-checkout | the buy-without-account toggle; the switch for anonymous purchases
passkeys-login | the passwordless WebAuthn toggle; the biometric sign-in switch
ai-summaries | the LLM digest toggle; the switch for machine-written recaps
realtime-presence | the who-is-online indicator toggle; the live avatars switch
split-payments | the pay-in-installments toggle; the switch for dividing a bill
new-pricing-page | the redesigned plans screen toggle; the switch for the reworked tiers screen
async-invoicing | the background billing documents toggle; the deferred bill generation switch
beta-dashboard | the preview admin screen toggle; the early-access console switch
referral-banner | the invite-a-friend promo toggle; the bring-a-friend strip switch
""")
