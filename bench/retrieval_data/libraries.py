"""Libraries, tools and vendors by category, each with the words a person would use instead.

A template slot names a category (`{db}`, `{queue}`) or takes any library (`{lib}`); a second
library in one note (`{lib2}`) comes from the first one's category, so "switch from X to Y"
stays sensible.
"""

# ruff: noqa: E501  (a table keeps one term or line per row, however long)

from typing import Final

from .vocab import Term, table

LIBRARIES: Final[dict[str, tuple[Term, ...]]] = {
    "db": table("""
postgres | our main relational database; the primary SQL store
mysql | the relational database of the old monolith; the older SQL server
mongodb | the document database; the schemaless JSON store
dynamodb | the AWS managed key-value table; the serverless NoSQL table
clickhouse | the columnar analytics database; the OLAP store
cassandra | the wide-column cluster; the write-heavy NoSQL ring
sqlite | the embedded file database; the single-file DB
elasticsearch | the full-text lookup cluster; the Lucene-based engine
cockroachdb | the distributed SQL cluster; the geo-replicated relational store
timescaledb | the time-series extension database; the metrics history store
"""),
    "cache": table("""
redis | the in-memory key-value server; the single-threaded data structure server
memcached | the old distributed memory store; the slab-allocated key store
valkey | the open-source fork of the popular in-memory store; the BSD-licensed key-value server
keydb | the multithreaded in-memory store; the fork with active replication
varnish | the HTTP accelerator in front of the site; the VCL proxy layer
hazelcast | the JVM in-memory data grid; the clustered map on the Java side
dragonfly | the drop-in in-memory replacement written in C++; the high-throughput key-value engine
cloudflare kv | the globally replicated store at the CDN edge; the edge key store of our CDN vendor | cloudflare
"""),
    "queue": table("""
celery | the Python task queue; the background job framework
kafka | the event streaming log; the distributed commit log
rabbitmq | the AMQP broker; the message broker with exchanges
sqs | the AWS managed queue; Amazon's hosted message queue
sidekiq | the Ruby job processor; the background worker gem
nats | the lightweight pub/sub messaging system; the cloud-native message bus
bullmq | the Node job queue on top of Redis; the TypeScript background job library
temporal | the durable workflow engine; the workflow orchestration service
google pub/sub | the GCP managed topic service; the hosted publish-subscribe system on GCP | pub/sub
dramatiq | the simpler Python task processing library; the actor-based job runner
"""),
    "orm": table("""
sqlalchemy | the Python ORM; the object-relational mapper we use in Python
django orm | the model query layer of the batteries-included framework; the mapper that ships with our Python web framework | django
prisma | the TypeScript ORM with a schema file; the Node database toolkit
typeorm | the decorator-based Node ORM; the entity mapper for Nest
activerecord | the Rails model layer; the Ruby ORM
sequelize | the older Node ORM; the promise-based SQL mapper
gorm | the Go ORM; the struct-to-table mapper in Go
hibernate | the Java ORM; the JPA implementation
peewee | the tiny Python ORM; the lightweight model library
drizzle | the lightweight TypeScript SQL toolkit; the type-safe query builder
"""),
    "infra": table("""
kubernetes | the container orchestrator; the cluster scheduler
helm | the chart packaging for the cluster; the templated manifests tool
terraform | the infrastructure-as-code tool; the HCL provisioning
argocd | the GitOps continuous delivery controller; the sync tool applying manifests from git
ansible | the configuration management playbooks; the agentless provisioning tool
docker | the container runtime; the image builder
nomad | the HashiCorp workload scheduler; the lighter alternative to k8s
pulumi | the infrastructure-as-code in TypeScript; the programmatic cloud provisioning
cert-manager | the TLS renewal controller; the cluster add-on that issues HTTPS keys automatically | cert-manager
istio | the service mesh; the sidecar mesh for traffic policy
"""),
    "codegen": table("""
protobuf | the binary schema serialization; the gRPC message definitions
openapi-generator | the tool that turns the REST spec into clients; the spec-to-SDK builder | openapi-generator
graphql-codegen | the tool that builds typed hooks from the schema; the typed query hook builder | graphql-codegen
sqlc | the tool that compiles SQL into typed Go; the query-to-code compiler
buf | the protobuf linting and build CLI; the proto toolchain
thrift | the Apache RPC schema compiler; the cross-language IDL from Facebook
avro | the schema-registry record format; the Hadoop serialization format
quicktype | the JSON-to-types tool; the converter from sample payloads to classes
"""),
    "migr": table("""
alembic | the Python schema migration tool; the SQLAlchemy migration runner
flyway | the Java SQL migration runner; the versioned-script database tool
liquibase | the XML changelog migration tool; the changeset-based schema tool
knex | the Node query builder; the JavaScript SQL builder and its migrations
golang-migrate | the schema versioning CLI for Go; the up-and-down SQL files runner for Go | golang-migrate
dbmate | the lightweight language-agnostic migration tool; the tiny standalone schema runner
atlas | the declarative schema tool; the schema-as-code migrator
sqitch | the dependency-based change management for databases; the Perl change planner
"""),
    "http": table("""
httpx | the async-capable Python web client; the modern Python requests replacement
aiohttp | the asyncio web client library; the async Python networking toolkit
axios | the promise-based browser client; the JS fetch wrapper
ky | the tiny fetch-based JS client; the minimal browser request helper
okhttp | the Android networking client; the Square HTTP library for Java
urllib3 | the low-level Python connection-pooling client; the transport under Python requests
reqwest | the Rust web client; the async Rust request crate
resty | the Go REST client library; the chainable Go request helper
undici | the Node core fetch implementation; the fast Node web client
faraday | the Ruby networking adapter library; the Ruby middleware-based client
"""),
    "secrets": table("""
vault | the HashiCorp secrets manager; the self-hosted credential broker
aws secrets manager | the Amazon-hosted credential store; the hosted password storage on Amazon | aws
doppler | the hosted env-config service for credentials; the SaaS config syncer
sops | the encrypted YAML files in the repo; the age-encrypted config files
sealed secrets | the encrypted cluster objects only the controller can open; the one-way encrypted manifests | sealed
infisical | the open-source credential platform; the self-hostable env sync tool
gcp secret manager | Google's hosted credential store; the hosted credential storage on Google Cloud | gcp
azure key vault | Microsoft's hosted credential store; the credential service on Microsoft's cloud | azure
"""),
    "runtime": table("""
node.js | the JavaScript server runtime; the V8-based backend runtime | node.js
python | the CPython interpreter; the snake-named scripting language
go | the compiled language from Google; the gopher toolchain
ruby | the MRI interpreter; the language Rails is written in
openjdk | the JVM; the Java virtual machine build
deno | the secure-by-default JS runtime; the TypeScript-first runtime by Node's creator
bun | the fast all-in-one JS runtime; the Zig-built JavaScript toolkit
php-fpm | the FastCGI process pool; the FastCGI worker supervisor | php-fpm
"""),
    "obs": table("""
grafana | the dashboards tool; the panels UI on top of metrics
datadog | the hosted monitoring vendor; the paid APM
kibana | the log exploration UI; the Elastic visualisation frontend
new relic | the older APM vendor; the application performance SaaS we had before | relic
honeycomb | the high-cardinality tracing vendor; the event-based observability SaaS
sentry | the error tracking service; the exception reporter
prometheus | the metrics scraper; the time-series monitoring
jaeger | the trace viewer; the distributed tracing UI
loki | the log aggregation for the dashboards stack; the label-indexed log store
"""),
    "vendor": table("""
stripe | the payments provider; the card processor
twilio | the SMS provider; the text message API vendor
sendgrid | the transactional email provider; the mail delivery API
github api | the code hosting platform's REST endpoints; the endpoints of our source host | github
slack api | the chat platform's web endpoints; the workspace messaging endpoints | slack
shopify | the storefront platform; the e-commerce SaaS
hubspot | the CRM; the marketing contacts platform
mailgun | the other email delivery service; the bulk mail sending vendor
algolia | the hosted search-as-a-service; the instant query SaaS
plaid | the bank account linking provider; the open-banking aggregator
openai | the LLM provider; the language model vendor
"""),
    "pm": table("""
pnpm | the content-addressed JS package manager; the disk-efficient Node installer
npm | the default Node package manager; the installer bundled with Node
yarn | the Facebook-born JS package manager; the JS installer with workspaces and plug'n'play
poetry | the Python dependency and packaging tool; the pyproject-based installer
pip | the standard Python installer; the default tool for Python wheels
uv | the Rust-based fast Python installer; the Astral resolver
bundler | the Ruby gem installer; the Gemfile resolver
cargo | the Rust build tool and crate installer; the Rust package manager
composer | the PHP dependency installer; the PHP package manager
gradle | the JVM build tool; the Groovy and Kotlin build system
"""),
    "flags": table("""
launchdarkly | the hosted toggle vendor; the paid rollout switches service
unleash | the self-hosted toggle server; the open-source rollout switches
flagsmith | the open-source toggle service with remote config; the hosted remote config vendor
growthbook | the experimentation and toggle platform; the A/B testing tool
configcat | the hosted config toggle service; the cheap switches SaaS
"""),
    "web": table("""
fastapi | the async Python web framework; the pydantic-based API framework
django | the batteries-included Python framework; the Python web framework with an admin
flask | the micro web framework; the minimal WSGI framework
rails | the Ruby web framework; the convention-over-configuration framework
express | the minimal Node web framework; the Node server middleware framework
nestjs | the Angular-style Node framework; the decorator-based TypeScript backend framework
spring boot | the Java web framework; the JVM application framework | spring
next.js | the server-side rendering React framework; the Vercel frontend framework | next.js
gin | the Go web framework; the Go HTTP router
phoenix | the Elixir web framework; the BEAM web framework
"""),
    "frontend": table("""
react | the UI component library; the Meta view library
vue | the progressive UI framework; the single-file component framework
svelte | the compile-time UI framework; the disappearing framework
angular | the Google frontend framework; the RxJS-heavy UI framework
tailwind | the utility-first CSS framework; the class-based styling toolkit
webpack | the JS bundler; the loader-based asset packer
vite | the dev server with instant reload; the Rollup-based frontend tooling
esbuild | the Go-based bundler; the very fast JS compiler
babel | the JS transpiler; the syntax transformer for old browsers
storybook | the UI component sandbox; the isolated component explorer
"""),
    "testing": table("""
pytest | the Python test runner; the fixture-based Python suite tool
jest | the JS unit test runner; the snapshot testing tool from Meta
playwright | the browser end-to-end test tool; the headless browser automation from Microsoft
cypress | the older browser test framework; the in-browser e2e runner
vitest | the Vite-native unit test runner; the fast Jest-compatible runner
hypothesis | the property-based testing library; the Python fuzzing-style generator of inputs
k6 | the load testing tool; the JavaScript-scripted traffic generator
locust | the Python load generator; the swarm-based traffic tool
testcontainers | the throwaway containers for tests; the library that starts real dependencies in Docker
"""),
    "general": table("""
pydantic | the validation models library; the data validation layer
structlog | the structured logging library; the key-value log formatter
opentelemetry | the tracing instrumentation; the vendor-neutral telemetry SDK
pandas | the dataframe library; the tabular analysis toolkit
numpy | the array math library; the numerical arrays package
pillow | the image processing library; the Python imaging fork
ffmpeg | the video transcoding tool; the media conversion CLI
boto3 | the AWS SDK for Python; the Amazon client library for Python
gunicorn | the WSGI process manager; the pre-fork Python web server
uvicorn | the ASGI server; the uvloop-based Python server
nginx | the reverse proxy in front of the app; the front web server
envoy | the sidecar proxy; the L7 proxy of the mesh
pgbouncer | the connection pooler in front of Postgres; the transaction-mode pooler
jsonwebtoken | the JWT signing library for Node; the bearer-credential helper in JS
"""),
}

ALL_LIBRARIES: Final = tuple(term for terms in LIBRARIES.values() for term in terms)
CATEGORY_OF: Final = {
    term.name: category for category, terms in LIBRARIES.items() for term in terms
}
