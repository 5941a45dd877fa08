"""The team hub over TLS: a real `aletheia-sync` with a certificate made here, reached by the
real `aletheia-mcp` proxy (and `aletheia hook`) with a token and ALETHEIA_CA_BUNDLE."""

import datetime
import ipaddress
import json
import ssl
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Final

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from aletheia_hub.cli import server_main, sync_main
from aletheia_shared import jsonrpc
from tests.conftest import BIN, free_port, process_env, stop_process
from tests.jsonrpc_messages import initialize_request, request, tool_call_request
from tests.proxy.process import ProxyProcess, tool_text
from tests.team.conftest import EXIT_SECONDS, run_cli

READY_SECONDS: Final = 30.0


# --- certificates --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Authority:
    key: ec.EllipticCurvePrivateKey
    cert: x509.Certificate
    pem: Path


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _builder(
    subject: str, issuer: x509.Name, public: ec.EllipticCurvePublicKey
) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
        .issuer_name(issuer)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
    )


def make_authority(folder: Path, name: str) -> Authority:
    """A self-signed CA, its certificate written to folder/<name>.pem."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    cert = (
        _builder(name, subject, key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )
    pem = folder / f"{name}.pem"
    pem.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return Authority(key, cert, pem)


def make_server_cert(folder: Path, authority: Authority) -> tuple[Path, Path]:
    """(certificate, key) files for 127.0.0.1 and localhost, signed by `authority`."""
    key = ec.generate_private_key(ec.SECP256R1())
    ca_key_id = x509.SubjectKeyIdentifier.from_public_key(authority.key.public_key())
    cert = (
        _builder("localhost", authority.cert.subject, key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_key_id),
            critical=False,
        )
        .sign(authority.key, hashes.SHA256())
    )
    cert_file, key_file = folder / "hub-cert.pem", folder / "hub-key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(_pem_key(key))
    return cert_file, key_file


# --- the hub -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TlsHub:
    port: int
    mcp_url: str
    ca_bundle: Path
    other_ca_bundle: Path
    token: str
    shop: Path
    data_dir: Path
    started_output: str


def wait_ready_over_https(url: str, ca_bundle: Path, process: "subprocess.Popen[bytes]") -> None:
    """Poll /readyz over https, trusting `ca_bundle`, until it answers 200 (bounded)."""
    deadline = time.monotonic() + READY_SECONDS
    verify = ssl.create_default_context(cafile=ca_bundle)
    with httpx.Client(verify=verify, timeout=1) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"aletheia-sync exited early with code {process.returncode}")
            try:
                if client.get(url).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.05)
    raise TimeoutError(f"{url} not ready in {READY_SECONDS:g} s")


def _output(log: IO[bytes]) -> str:
    log.flush()
    log.seek(0)
    return log.read().decode(errors="replace")


@pytest.fixture(scope="module")
def tls_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TlsHub]:
    """One `aletheia-sync` serving https with a certificate of a CA made here, and a token."""
    folder = tmp_path_factory.mktemp("tls")
    authority = make_authority(folder, "team-ca")
    other = make_authority(folder, "other-ca")
    cert, key = make_server_cert(folder, authority)
    env = process_env()
    env["ALETHEIA_DATA_DIR"] = str(folder / "data")
    team_db = str(folder / "team.db")
    port = free_port()
    argv = [str(BIN / "aletheia-sync"), "--hub-db", team_db, "--port", str(port)]
    argv += ["--tls-cert", str(cert), "--tls-key", str(key)]
    with tempfile.NamedTemporaryFile() as log:
        process = subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            try:
                wait_ready_over_https(f"https://127.0.0.1:{port}/readyz", authority.pem, process)
            except (RuntimeError, TimeoutError) as error:
                raise RuntimeError(f"{error}; its output:\n{_output(log)}") from None
            created = run_cli(
                env, "mcp-link", "create", "--projects", "shop", "--scope", "sync",
                "--hub-db", team_db,
            )  # fmt: skip
            assert created.returncode == 0, created.stderr
            shop = folder / "shop"
            shop.mkdir()
            yield TlsHub(
                port=port,
                mcp_url=f"https://127.0.0.1:{port}/mcp",
                ca_bundle=authority.pem,
                other_ca_bundle=other.pem,
                token=created.stdout.strip().splitlines()[-1],
                shop=shop,
                data_dir=folder / "data",
                started_output=_output(log),
            )
        finally:
            stop_process(process, EXIT_SECONDS)


def proxy_env(hub: TlsHub, ca_bundle: Path | None) -> dict[str, str]:
    env = process_env()
    env.update(
        ALETHEIA_HUB_URL=hub.mcp_url,
        ALETHEIA_TOKEN=hub.token,
        ALETHEIA_CWD=str(hub.shop),
        ALETHEIA_DATA_DIR=str(hub.data_dir),
    )
    if ca_bundle is not None:
        env["ALETHEIA_CA_BUNDLE"] = str(ca_bundle)
    return env


# --- the proxy over https ------------------------------------------------------------------------


def test_the_proxy_reaches_the_team_hub_over_https_with_a_token_and_the_ca_bundle(
    tls_hub: TlsHub,
) -> None:
    proxy = ProxyProcess(proxy_env(tls_hub, tls_hub.ca_bundle))
    try:
        proxy.initialize()
        listed = proxy.request(request("tools/list", request_id=2))
        names = [tool["name"] for tool in listed["result"]["tools"]]
        assert {"save_memory", "search"} <= set(names), names
        saved = proxy.request(
            tool_call_request("save_memory", {"text": "Deploys are blue-green"}, 3)
        )
        assert tool_text(saved) == "Saved as #1 in shop."
        found = proxy.request(tool_call_request("search", {"query": "blue-green"}, 4))
        assert "] Deploys are blue-green  (shop, " in tool_text(found)
        assert proxy.finish() == 0
    finally:
        proxy.stop()


def test_the_team_hub_with_tls_announces_https_addresses(tls_hub: TlsHub) -> None:
    output = tls_hub.started_output
    assert f"listening on https://127.0.0.1:{tls_hub.port}/mcp\n" in output
    assert f"Console: https://127.0.0.1:{tls_hub.port}/ " in output
    assert f"-e ALETHEIA_HUB_URL=https://127.0.0.1:{tls_hub.port}/mcp " in output
    assert "http://" not in output


def test_status_lists_the_team_hub_over_tls_as_https(tls_hub: TlsHub) -> None:
    env = process_env()  # the suite's runtime folder, where the hub listed itself
    env["ALETHEIA_DATA_DIR"] = str(tls_hub.data_dir)
    listed = run_cli(env, "status", "--port", str(tls_hub.port), "--json")
    assert listed.returncode == 0, listed.stderr
    (entry,) = json.loads(listed.stdout)
    assert (entry["state"], entry["scheme"], entry["team"], entry["store"]) == (
        "running",
        "https",
        True,
        {"kind": "sqlite", "location": str((tls_hub.data_dir.parent / "team.db").resolve())},
    )
    trusted = ssl.create_default_context(cafile=tls_hub.ca_bundle)
    health = httpx.get(f"https://127.0.0.1:{tls_hub.port}/healthz", verify=trusted, timeout=10)
    assert entry["pid"] == health.json()["pid"]


@pytest.mark.parametrize("bundle", ["none", "another CA"])
def test_a_proxy_that_does_not_trust_the_certificate_answers_an_error_saying_so(
    tls_hub: TlsHub, bundle: str
) -> None:
    ca_bundle = None if bundle == "none" else tls_hub.other_ca_bundle
    proxy = ProxyProcess(proxy_env(tls_hub, ca_bundle))
    try:
        reply = proxy.request(initialize_request(0))
        assert reply["id"] == 0 and "result" not in reply, reply
        assert reply["error"]["code"] == jsonrpc.SERVER_ERROR
        message = reply["error"]["message"]
        assert message.startswith(
            f"The TLS certificate of the Aletheia hub at {tls_hub.mcp_url} was not trusted ("
        ), message
        tried = "" if ca_bundle is None else f", not even with ALETHEIA_CA_BUNDLE={ca_bundle}"
        assert message.endswith(
            f"){tried}. Set ALETHEIA_CA_BUNDLE to the PEM file of the CA that signed it (or give "
            "the hub a certificate this machine trusts), then restart this server."
        ), message
        assert proxy.finish() == 0
        assert "was not trusted" in proxy.stderr
    finally:
        proxy.stop()


@pytest.mark.parametrize("bundle", ["missing", "not PEM"])
def test_an_unusable_ca_bundle_gets_every_request_an_error_naming_it(
    tls_hub: TlsHub, tmp_path: Path, bundle: str
) -> None:
    ca_bundle = tmp_path / "team-ca.pem"
    if bundle == "not PEM":
        ca_bundle.write_text("not a certificate\n")
    proxy = ProxyProcess(proxy_env(tls_hub, ca_bundle))
    try:
        for request_id in (0, 1):
            reply = proxy.request(initialize_request(request_id))
            assert reply["id"] == request_id and reply["error"]["code"] == jsonrpc.SERVER_ERROR
            message = reply["error"]["message"]
            assert message.startswith(f"ALETHEIA_CA_BUNDLE={ca_bundle} cannot be used ("), message
            assert message.endswith(
                "): set it to a readable PEM file of CA certificates, or unset it, then restart "
                "this server."
            ), message
            if bundle == "missing":
                assert "(No such file or directory)" in message
        assert proxy.finish() == 0
    finally:
        proxy.stop()


def test_plain_http_to_the_tls_port_gets_no_answer(tls_hub: TlsHub) -> None:
    with pytest.raises(httpx.TransportError):
        httpx.get(f"http://127.0.0.1:{tls_hub.port}/healthz", timeout=5)


# --- the hooks over https ------------------------------------------------------------------------


def run_hook(hub: TlsHub, ca_bundle: Path | None) -> subprocess.CompletedProcess[str]:
    env = proxy_env(hub, ca_bundle)
    return subprocess.run(
        [str(BIN / "aletheia"), "hook", "session-start", "--tool", "claude-code"],
        env=env,
        input=json.dumps({"cwd": str(hub.shop), "hook_event_name": "SessionStart"}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_session_start_hook_reaches_the_hub_over_https_with_the_ca_bundle(
    tls_hub: TlsHub,
) -> None:
    done = run_hook(tls_hub, tls_hub.ca_bundle)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    context = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "\n# Memory for shop\n" in context, context


def test_the_session_start_hook_without_the_ca_bundle_says_the_certificate_is_not_trusted(
    tls_hub: TlsHub,
) -> None:
    done = run_hook(tls_hub, None)
    assert done.returncode == 0 and done.stdout == "", done.stdout
    assert done.stderr.startswith(
        "aletheia hook session-start: skipped: The TLS certificate of the Aletheia hub at "
        f"{tls_hub.mcp_url} was not trusted ("
    ), done.stderr


# --- the command line ----------------------------------------------------------------------------


@pytest.fixture
def server_files(tmp_path: Path) -> tuple[Path, Path]:
    return make_server_cert(tmp_path, make_authority(tmp_path, "team-ca"))


def error_line(capsys: pytest.CaptureFixture[str], run: Callable[[], None]) -> str:
    """The last stderr line of a command that must exit 2."""
    with pytest.raises(SystemExit) as exited:
        run()
    assert exited.value.code == 2
    return capsys.readouterr().err.rstrip("\n").splitlines()[-1]


def test_a_certificate_without_a_key_is_refused_in_one_line(
    server_files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cert, _key = server_files
    argv = ["--hub-db", str(tmp_path / "team.db"), "--tls-cert", str(cert)]
    assert error_line(capsys, lambda: sync_main(argv)) == (
        "aletheia-sync: error: TLS needs both --tls-cert and --tls-key "
        "(ALETHEIA_TLS_CERT_FILE and ALETHEIA_TLS_KEY_FILE), or neither"
    )


def test_a_key_from_the_environment_without_a_certificate_is_refused(
    server_files: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ALETHEIA_TLS_KEY_FILE", str(server_files[1]))
    assert error_line(capsys, lambda: server_main(["--port", "0"])) == (
        "aletheia-server: error: TLS needs both --tls-cert and --tls-key "
        "(ALETHEIA_TLS_CERT_FILE and ALETHEIA_TLS_KEY_FILE), or neither"
    )


def test_a_missing_certificate_file_is_named_in_one_line(
    server_files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.pem"
    argv = ["--hub-db", str(tmp_path / "team.db"), "--tls-cert", str(missing)]
    argv += ["--tls-key", str(server_files[1])]
    assert error_line(capsys, lambda: sync_main(argv)) == (
        f"aletheia-sync: error: --tls-cert {missing}: cannot read it (No such file or directory)"
    )


def test_a_key_that_does_not_match_the_certificate_is_refused_in_one_line(
    server_files: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cert, _key = server_files
    other_key = tmp_path / "other-key.pem"
    other_key.write_bytes(_pem_key(ec.generate_private_key(ec.SECP256R1())))
    argv = ["--hub-db", str(tmp_path / "team.db"), "--tls-cert", str(cert)]
    argv += ["--tls-key", str(other_key)]
    assert error_line(capsys, lambda: sync_main(argv)) == (
        f"aletheia-sync: error: --tls-cert {cert} with --tls-key {other_key}: not a PEM "
        "certificate and its unencrypted private key (KEY_VALUES_MISMATCH)"
    )
