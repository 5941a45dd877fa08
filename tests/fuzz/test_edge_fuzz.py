"""Hostile text at every REST route and console form: lone surrogates, NULs and invalid UTF-8 in
JSON bodies, form fields, query strings, path segments and the caller's headers. Never a 500,
never a traceback, nothing broken stored. The routes are read from the app itself, so a route
added later is fuzzed too. One in-process hub per kind (local, team) and store per module."""

import json
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote

import httpx
import pytest
import sqlalchemy as sa
from fastapi import params
from fastapi.dependencies.models import Dependant
from fastapi.routing import iter_route_contexts
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aletheia_hub.app import create_app
from aletheia_hub.settings import Settings
from aletheia_hub.store import rules
from aletheia_shared import headers
from tests.conftest import fresh_postgres_schema, prefill_store
from tests.helpers import McpHttpClient
from tests.hub.console.helpers import CSRF, seed
from tests.team.conftest import issue_token

# What lands in a form field or a query string, as the bytes a client sends.
FORM_VALUES: Final = {
    "nul": b"a%00b",
    "raw-nul": b"a\x00b",
    "surrogate": b"a%ED%A0%80b",
    "raw-surrogate": b"a\xed\xa0\x80b",
    "raw-ff": b"a\xffb",
    "escaped-ff": b"a%FFb",
}
# What lands in a JSON string, as the bytes of the JSON literal.
JSON_VALUES: Final = {
    "nul": b'"a\\u0000b"',
    "surrogate": b'"a\\ud800b"',
    "reversed-pair": b'"\\udc00\\ud800"',
    "raw-ff": b'"a\xffb"',
    "raw-surrogate": b'"a\xed\xa0\x80b"',
}
HEADER_VALUES: Final = {
    "raw-ff": b"\xff",
    "nul": b"a%00b",
    "raw-nul": b"a\x00b",
    "surrogate": b"a%ED%A0%80b",
    "raw-surrogate": b"\xed\xa0\x80",
}
CALLER_HEADERS: Final = (
    headers.CALLER_TOOL,
    headers.CALLER_PROJECT,
    headers.CALLER_CWD,
    headers.SESSION_ID,
    headers.PROTOCOL_VERSION,
    headers.METHOD,
    headers.NAME,
)
# Routes outside FastAPI's parameter handling: /mcp reads its own body (fuzzed here through
# its headers, and by test_hub_fuzz through its bodies); the rest take no input.
RAW_ROUTES: Final = frozenset({"/openapi.json", "/mcp", "/mcp/open-mem", "/mcp/all", "/static"})
# A call that writes, at each MCP path: (tool, its arguments but for the text).
MCP_SAVES: Final = {
    "/mcp": ("save_memory", {}),
    "/mcp/all": ("save_memory", {}),
    "/mcp/open-mem": ("mem-create", {"title": "Edge", "type": "change"}),
}
UNSTORABLE: Final = re.compile("[\x00\ud800-\udfff]")
CONSOLE_COOKIE: Final = "aletheia_console"
KINDS: Final = [
    "local-sqlite",
    "team-sqlite",
    pytest.param("local-postgres", marks=pytest.mark.postgres),
    pytest.param("team-postgres", marks=pytest.mark.postgres),
]


@dataclass
class Hub:
    http: TestClient
    app: Any
    path_values: dict[str, str]
    auth: dict[str, str] = field(default_factory=dict)
    admin_secret: str | None = None

    def csrf(self) -> str:
        """This browser session's CSRF token, signing in again where a fuzzed sign-out ended
        it (from another client address, so failed sign-ins here never slow it down)."""
        page = self.http.get("/rules", follow_redirects=False)
        if page.status_code != 200 and self.admin_secret is not None:
            helper = TestClient(self.app, base_url="http://127.0.0.1", client=("10.9.9.9", 1))
            form = CSRF.search(helper.get("/sign-in").text)
            assert form is not None
            signed = helper.post(
                "/sign-in",
                data={"secret": self.admin_secret, "csrf": form.group(1)},
                follow_redirects=False,
            )
            assert signed.status_code == 303, signed.text[:300]
            self.http.cookies.set(CONSOLE_COOKIE, helper.cookies[CONSOLE_COOKIE])
            page = self.http.get("/rules", follow_redirects=False)
        found = CSRF.search(page.text)
        assert found is not None, page.text[:300]
        return found.group(1)


@pytest.fixture(scope="module", params=KINDS)
def hub(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hub]:
    kind, store = str(request.param).split("-")
    folder = tmp_path_factory.mktemp("edge-fuzz")
    if store == "sqlite":
        yield from _hub(kind, f"sqlite:///{folder / 'hub.db'}", folder, request)
        return
    with fresh_postgres_schema() as url:
        yield from _hub(kind, url, folder, request)


def _hub(kind: str, url: str, folder: Path, request: pytest.FixtureRequest) -> Iterator[Hub]:
    prefill_store(request.getfixturevalue("sqlite_template"), url)
    hub_settings = Settings(
        database_url=url,
        data_dir=folder,
        cwd=folder,
        team_mode=kind == "team",
        rate_limit_per_minute=100_000,
    )
    app = create_app(hub_settings)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as http:
        # The console's routes join the app's with its first request: ask for a page first.
        assert http.get("/sign-in").status_code == 200
        db = app.state.db
        memory_id = seed(db)["shop"]
        with db.write_session() as session:
            rule = rules.add_rule(
                session=session,
                then="Run the linter",
                when=None,
                scope_tier="everywhere",
                scope_name=None,
                source="tests",
                project="shop",
                reach=None,
            )
        values = {"memory_id": str(memory_id), "rule_id": rule.id}
        hub = Hub(http, app, values)
        if kind == "team":
            hub.path_values["token_id"], _spare = issue_token(url, "read", ["shop"])
            _id, hub.admin_secret = issue_token(url, "admin", None, name="owner")
            hub.auth = {"Authorization": f"Bearer {hub.admin_secret}"}
        yield hub


@dataclass(frozen=True)
class Slot:
    """One place a value goes: a path parameter, a query parameter, a form or JSON field."""

    where: str  # "path", "query", "form", "json"
    name: str


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str
    path_params: tuple[str, ...]
    query: tuple[str, ...]
    form: dict[str, Any]  # field name: its annotation
    json_fields: tuple[str, ...]

    def slots(self) -> list[Slot]:
        return [
            *(Slot("path", name) for name in self.path_params),
            *(Slot("query", name) for name in self.query),
            *(Slot("form", name) for name in self.form if name != "csrf"),
            *(Slot("json", name) for name in self.json_fields),
        ]


def _dependants(dependant: Dependant) -> Iterator[Dependant]:
    yield dependant
    for sub in dependant.dependencies:
        yield from _dependants(sub)


def endpoints(app: Any) -> list[Endpoint]:
    """Every REST and console endpoint with the parameters it reads, from the app's routes."""
    found = []
    for route in iter_route_contexts(app.routes):
        dependant = getattr(route, "dependant", None)
        if dependant is None:
            assert route.path in RAW_ROUTES, f"{route.path} is not fuzzed: add it here"
            continue
        every = list(_dependants(dependant))
        bodies = [param for one in every for param in one.body_params]
        form = {p.alias: p.field_info.annotation for p in bodies if _is_form(p.field_info)}
        models = [p.field_info.annotation for p in bodies if not _is_form(p.field_info)]
        json_fields = tuple(name for model in models for name in model.model_fields)
        for method in sorted(set(route.methods or ()) - {"HEAD"}):
            found.append(
                Endpoint(
                    method,
                    route.path,
                    tuple(p.name for one in every for p in one.path_params),
                    tuple(p.alias for one in every for p in one.query_params),
                    form,
                    json_fields,
                )
            )
    return found


def _is_form(info: Any) -> bool:
    return isinstance(info, params.Form)


def _plain(name: str, annotation: Any) -> bytes:
    """A valid value for a form field of this name and type."""
    if name == "items":  # a work-state list, as JSON
        return b"[]"
    choices = getattr(annotation, "__args__", None)
    if choices:
        return str(choices[0]).encode()
    return b"true" if annotation is bool else b"x"


def _url_text(value: bytes) -> str:
    """`value` in a URL: raw bytes there are percent-escaped by any client."""
    return "".join(chr(byte) if 0x21 <= byte < 0x7F else f"%{byte:02X}" for byte in value)


def send(hub: Hub, endpoint: Endpoint, slot: Slot | None, value: bytes) -> httpx.Response:
    """The endpoint called with `value` in `slot` and valid values everywhere else."""
    path = endpoint.path
    for name in endpoint.path_params:
        chosen = _url_text(value) if slot == Slot("path", name) else hub.path_values.get(name, "1")
        path = path.replace("{" + name + "}", chosen)
    query = {name: _url_text(value) for name in endpoint.query if slot == Slot("query", name)}
    if query:
        path += "?" + "&".join(f"{name}={text}" for name, text in query.items())
    sent = dict(hub.auth)
    content = None
    if endpoint.form:
        parts = [b"csrf=" + hub.csrf().encode()]
        for name, annotation in endpoint.form.items():
            if name != "csrf":
                chosen = value if slot == Slot("form", name) else _plain(name, annotation)
                parts.append(name.encode() + b"=" + chosen)
        content = b"&".join(parts)
        sent["Content-Type"] = "application/x-www-form-urlencoded"
    if endpoint.json_fields:
        members = [
            json.dumps(name).encode() + b":" + (value if slot == Slot("json", name) else b'"x"')
            for name in endpoint.json_fields
        ]
        content = b"{" + b",".join(members) + b"}"
        sent["Content-Type"] = "application/json"
    return hub.http.request(
        endpoint.method, path, content=content, headers=sent, follow_redirects=False
    )


def assert_clean_answer(response: httpx.Response, what: object) -> None:
    assert response.status_code < 500, (what, response.status_code, response.text[:300])
    assert "Traceback" not in response.text and 'File "' not in response.text, what
    if response.headers.get("content-type", "").startswith("application/json"):
        response.json()  # valid JSON, whatever it echoes


def test_the_routes_read_from_the_app_are_the_hubs_rest_and_console_routes(hub: Hub) -> None:
    found = {(endpoint.method, endpoint.path) for endpoint in endpoints(hub.app)}
    assert {("POST", "/api/requests"), ("POST", "/rules"), ("GET", "/audit.csv")} <= found
    rules_form = next(e for e in endpoints(hub.app) if (e.method, e.path) == ("POST", "/rules"))
    assert {"then", "when", "project", "csrf"} <= set(rules_form.form)


def test_hostile_text_in_any_parameter_of_any_route_gets_a_clean_answer(hub: Hub) -> None:
    tried = 0
    for endpoint in endpoints(hub.app):
        for slot in endpoint.slots():
            values = JSON_VALUES if slot.where == "json" else FORM_VALUES
            for label, value in values.items():
                what = (endpoint.method, endpoint.path, slot, label)
                assert_clean_answer(send(hub, endpoint, slot, value), what)
                tried += 1
    assert tried > 300


# Any text, lone surrogates and NULs included, with the hostile characters made likely.
TEXTS: Final = st.text(
    st.characters(exclude_categories=()) | st.sampled_from(["\x00", "\ud800", "\udfff", "\xff"]),
    max_size=12,
)


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,  # the same examples every run
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), text=TEXTS)
def test_any_text_in_any_parameter_of_any_route_gets_a_clean_answer(
    hub: Hub, data: st.DataObject, text: str
) -> None:
    endpoint = data.draw(st.sampled_from([e for e in endpoints(hub.app) if e.slots()]))
    slot = data.draw(st.sampled_from(endpoint.slots()))
    if slot.where == "json":
        value = json.dumps(text).encode()  # \ud800 and \u0000 as JSON escapes
    else:
        value = quote(text.encode("utf-8", "surrogatepass"), safe="").encode()
    assert_clean_answer(send(hub, endpoint, slot, value), (endpoint.path, slot, text))


def test_a_nul_in_a_console_form_is_refused_with_a_400_page_and_nothing_is_written(
    hub: Hub,
) -> None:
    form = next(e for e in endpoints(hub.app) if (e.method, e.path) == ("POST", "/work"))
    answer = send(hub, form, Slot("form", "name"), b"todo%00x")
    assert answer.status_code == 400
    assert "These fields are not valid here: name." in answer.text
    page = hub.http.get("/work").text
    assert "todo" in page and "todox" not in page and "todo\x00x" not in page


def test_a_nul_in_a_query_is_refused_and_a_lone_surrogate_in_json_is_a_readable_422(
    hub: Hub,
) -> None:
    hub.csrf()  # signed in
    refused = hub.http.get("/memories?q=a%00b", headers=hub.auth)
    assert refused.status_code == 400 and "These fields are not valid here: q." in refused.text
    answer = hub.http.post(
        "/api/requests",
        content=b'{"request":"\\ud800","project":"p"}',
        headers={**hub.auth, "Content-Type": "application/json"},
    )
    assert answer.status_code == 422
    (problem,) = answer.json()["detail"]
    assert problem["loc"] == ["body", "request"] and problem["input"] == "\ufffd"


def test_hostile_caller_headers_on_every_route_get_a_clean_answer(hub: Hub) -> None:
    for endpoint in endpoints(hub.app):
        path = endpoint.path
        for param in endpoint.path_params:
            path = path.replace("{" + param + "}", hub.path_values.get(param, "1"))
        for label, value in HEADER_VALUES.items():
            sent: dict[str, Any] = {**hub.auth, **dict.fromkeys(CALLER_HEADERS, value)}
            response = hub.http.request(endpoint.method, path, headers=sent, follow_redirects=False)
            assert_clean_answer(response, (endpoint.method, endpoint.path, label))


def test_hostile_caller_headers_on_a_tool_call_at_every_mcp_path_get_a_clean_answer(
    hub: Hub,
) -> None:
    for path, (tool, fixed) in MCP_SAVES.items():
        client = McpHttpClient(hub.http, path, project="shop", tool="fuzz")
        client.headers.update(hub.auth)
        client.initialize()
        saved = 0
        for name in CALLER_HEADERS:
            for label, value in HEADER_VALUES.items():
                argument = "text" if tool == "save_memory" else "narrative"
                arguments = {**fixed, argument: f"{name} {label}"}
                call = {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments},
                }
                sent: dict[str, Any] = {**client.headers, headers.SESSION_ID: client.session_id}
                sent[name] = value
                response = hub.http.post(path, json=call, headers=sent)
                assert_clean_answer(response, (path, name, label))
                reply = response.json()
                saved += "result" in reply and not reply["result"]["isError"]
        # The tool, project and working-directory headers are cleaned, and the call runs.
        assert saved >= 3 * len(HEADER_VALUES), path


def test_nothing_broken_is_stored(hub: Hub) -> None:
    # Runs last in this module: whatever the tests above sent, no row holds broken text.
    engine = hub.app.state.db.engine
    tables = sa.MetaData()
    with warnings.catch_warnings():
        # pgvector's column type is unknown to SQLAlchemy: read as text, which it holds none of.
        warnings.filterwarnings("ignore", "Did not recognize type", sa.exc.SAWarning)
        tables.reflect(engine)
    broken = []
    with engine.connect() as connection:
        for table in tables.sorted_tables:
            for row in connection.execute(sa.select(table)):
                for column, value in zip(table.columns, row, strict=True):
                    if isinstance(value, str) and UNSTORABLE.search(value):
                        broken.append((table.name, column.name, value[:80]))
    assert broken == []
