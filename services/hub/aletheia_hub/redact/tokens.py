"""Secrets that announce themselves: provider tokens with a fixed prefix or shape, private keys,
JWTs and webhook URLs. Shapes, prefixes and entropy thresholds follow gitleaks' default rules
(config/gitleaks.toml) and Yelp's detect-secrets plugins; each is redacted wherever it stands.
"""

from typing import Final

from aletheia_hub.redact.patterns import SecretPattern, compile_, contains, finds

# After a token: not another character of it (gitleaks ends on a quote, space, `;` or the end).
_END: Final = r"(?![A-Za-z0-9_\-])"
_ALNUM_END: Final = r"(?![A-Za-z0-9])"


def _token(kind: str, regex: str, *literals: str, entropy: float = 0.0) -> SecretPattern:
    """A token found by its literal prefixes (one of them is in every match)."""
    return SecretPattern(kind, compile_(regex), gates=(contains(*literals),), min_entropy=entropy)


_PEM_BEGIN: Final = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_END: Final = r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
_PEM_NEWLINES: Final = r"(?:[ \t]*(?:\r?\n|\\r\\n|\\n))+[ \t]*"
# A short line counts as body only when it ends there: prose may follow an unterminated key.
_PEM_LINE: Final = (
    r"(?:=?[A-Za-z0-9+/]{16,}={0,2}"
    r"|=?[A-Za-z0-9+/]+={0,2}(?=[ \t]*(?:\r?\n|\\r\\n|\\n|[\"'`]|\Z))"
    r"|(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset):[^\r\n\\]*)"
)
# A key without its END line is redacted to the end of its base64 body.
_PEM_UNTERMINATED: Final = rf"(?:[ \t]+[A-Za-z0-9+/]+={{0,2}})*(?:{_PEM_NEWLINES}{_PEM_LINE})*"

# Order matters: specific shapes first, so a key is named by its most precise kind.
PATTERNS: Final[tuple[SecretPattern, ...]] = (
    SecretPattern(
        "private-key",
        compile_(rf"{_PEM_BEGIN}(?:(?:(?!-----BEGIN )[\s\S])*?{_PEM_END}|{_PEM_UNTERMINATED})"),
    ),
    _token("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", "AGE-"),
    SecretPattern(
        "aws-access-key",
        compile_(
            r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b"
        ),
        gates=(finds(r"A(?:KIA|SIA|GPA|IDA|ROA|NPA|NVA|IPA|3T|BIA|CCA)"),),
    ),
    _token("gcp-api-key", rf"\bAIza[0-9A-Za-z_\-]{{35}}{_END}", "AIza"),
    _token(
        "google-oauth",
        rf"\bGOCSPX-[A-Za-z0-9_\-]{{28}}{_END}|\bya29\.[A-Za-z0-9_\-]{{30,}}|\b1//0[A-Za-z0-9_\-]{{40,}}",
        "GOCSPX-",
        "ya29.",
        "1//0",
        entropy=3,
    ),
    # GitHub's prefixes are distinctive enough to need no word start, as in gitleaks' rules: a
    # token stuck to a word (`Editghp_...`, `my_ghp_...`) is a token all the same.
    SecretPattern(
        "github-token",
        compile_(r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b"),
        gates=(finds("gh[pousr]_"),),
    ),
    _token("github-token", r"github_pat_[A-Za-z0-9_]{22,255}\b", "github_pat_"),
    SecretPattern(
        "gitlab-token",
        compile_(
            r"\b(?:glpat|gldt|glft|glsoat|glrt|glcbt|glimt|glagent|gloas|glffct|glptt)"
            rf"-[A-Za-z0-9_\-]{{20,}}{_END}|\bGR1348941[A-Za-z0-9_\-]{{20}}{_END}"
        ),
        gates=(finds(r"gl[a-z]{1,6}-|GR1348941"),),
    ),
    SecretPattern(
        "slack-token",
        compile_(r"\b(?:xox[abposre]|xoxe\.xox[bp]|xapp)-[A-Za-z0-9-]{10,}(?![A-Za-z0-9-])"),
        gates=(finds("x(?:ox|app)"),),
    ),
    SecretPattern(
        "slack-webhook",
        compile_(r"https://hooks\.slack\.com/services/T[A-Z0-9]+/B[A-Z0-9]+/[A-Za-z0-9]+"),
    ),
    _token(
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{60,}",
        "/api/webhooks/",
    ),
    _token(
        "teams-webhook",
        r"https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[a-z0-9\-]{36}@[a-z0-9\-]{36}"
        r"/IncomingWebhook/[a-z0-9]{32}/[a-z0-9\-]{36}",
        "webhook.office.com",
    ),
    SecretPattern(
        "stripe-key",
        compile_(
            r"\b(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{16,}\b|\bwhsec_[A-Za-z0-9]{32,}\b"
        ),
        gates=(finds("_(?:live|test|prod)_|whsec_"),),
    ),
    _token("anthropic-key", rf"\bsk-ant-[A-Za-z0-9_\-]{{20,}}{_END}", "sk-ant-"),
    _token(
        "openai-key",
        rf"\bsk-(?:proj-|svcacct-|admin-)?(?=[A-Za-z_\-]{{0,96}}[0-9])[A-Za-z0-9_\-]{{32,}}{_END}",
        "sk-",
    ),
    _token("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", "eyJ"),
    # --- package registries, AI and developer platforms ------------------------------------
    _token("npm-token", rf"\bnpm_[A-Za-z0-9]{{36}}{_ALNUM_END}", "npm_", entropy=2),
    _token(
        "pypi-token",
        r"\bpypi-AgE(?:IcHlwaS5vcmc|NdGVzdC5weXBpLm9yZw)[A-Za-z0-9_\-]{50,}",
        "pypi-AgE",
    ),
    _token("rubygems-key", r"\brubygems_[a-f0-9]{48}\b", "rubygems_", entropy=2),
    _token("clojars-token", r"\bCLOJARS_[a-z0-9]{60}\b", "CLOJARS_", entropy=2),
    _token(
        "huggingface-token",
        r"\b(?:hf_|api_org_)(?=[a-z0-9]{0,33}[A-Z])(?=[A-Z0-9]{0,33}[a-z])[A-Za-z0-9]{34}\b",
        "hf_",
        "api_org_",
        entropy=2,
    ),
    _token("replicate-token", r"\br8_[A-Za-z0-9]{37}\b", "r8_", entropy=3),
    _token("groq-key", r"\bgsk_[A-Za-z0-9]{52}\b", "gsk_", entropy=3),
    _token("xai-key", r"\bxai-[A-Za-z0-9]{80}\b", "xai-", entropy=3),
    _token("perplexity-key", r"\bpplx-[A-Za-z0-9]{48}\b", "pplx-", entropy=4),
    _token("langsmith-key", r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b", "lsv2_"),
    _token("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b", "dapi", entropy=3),
    _token("linear-key", r"\blin_api_[A-Za-z0-9]{40}\b", "lin_api_", entropy=2),
    _token("notion-token", r"\bntn_[0-9]{11}[A-Za-z0-9]{35}\b", "ntn_", entropy=4),
    _token("postman-key", r"\bPMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}\b", "PMAK-", entropy=3),
    _token("readme-key", r"\brdme_[a-z0-9]{70}\b", "rdme_", entropy=2),
    _token("prefect-key", r"\bpnu_[A-Za-z0-9]{36}\b", "pnu_", entropy=2),
    _token("frameio-token", rf"\bfio-u-[A-Za-z0-9_=\-]{{64}}{_END}", "fio-u-"),
    _token("supabase-token", r"\bsbp_[a-f0-9]{40}\b", "sbp_", entropy=3),
    _token("sentry-token", r"\bsntryu_[a-f0-9]{64}\b|\bsntrys_eyJ[A-Za-z0-9+/=_]{60,}", "sntry"),
    _token(
        "grafana-token",
        r"\bglc_[A-Za-z0-9+/]{32,400}={0,3}|\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b"
        r"|\beyJrIjoi[A-Za-z0-9]{70,400}={0,3}",
        "glc_",
        "glsa_",
        "eyJrIjoi",
        entropy=3,
    ),
    # --- cloud and infrastructure ----------------------------------------------------------
    _token(
        "azure-client-secret",
        r"(?<![\w~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.\-]{31,34}(?![\w~\-]|\.[\w~])",
        "Q~",
        entropy=3,
    ),
    _token("alibaba-key", r"\bLTAI[A-Za-z0-9]{20}\b", "LTAI", entropy=2),
    _token("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", "_v1_", entropy=3),
    _token("heroku-key", rf"\bHRKU-AA[A-Za-z0-9_\-]{{58}}{_END}", "HRKU-AA", entropy=4),
    _token(
        "flyio-token",
        r"\b(?:fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})",
        "fo1_",
        "fm1",
        "fm2",
        entropy=4,
    ),
    _token(
        "vault-token",
        rf"\bhv[sbr]\.[A-Za-z0-9_\-]{{24,300}}{_END}",
        "hvs.",
        "hvb.",
        "hvr.",
        entropy=3.5,
    ),
    _token(
        "terraform-token",
        r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=\-]{60,70}",
        ".atlasv1.",
        entropy=3.5,
    ),
    _token("doppler-token", r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,44}\b", "dp."),
    _token(
        "dynatrace-token", r"\bdt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b", "dt0c01.", entropy=4
    ),
    _token("pulumi-token", r"\bpul-[a-f0-9]{40}\b", "pul-", entropy=2),
    _token(
        "planetscale-token",
        r"\bpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.\-]{31,63}[A-Za-z0-9_=\-]",
        "pscale_",
        entropy=3,
    ),
    _token("scalingo-token", rf"\btk-us-[A-Za-z0-9_\-]{{48}}{_END}", "tk-us-", entropy=2),
    _token("infracost-token", r"\bico-[A-Za-z0-9]{32}\b", "ico-", entropy=3),
    _token("openshift-token", rf"\bsha256~[A-Za-z0-9_\-]{{43}}{_END}", "sha256~", entropy=3.5),
    _token(
        "artifactory-token",
        r"\bAKCp[A-Za-z0-9]{69}\b|\bcmVmd[A-Za-z0-9]{59}\b",
        "AKCp",
        "cmVmd",
        entropy=4.5,
    ),
    _token("atlassian-token", r"\bATATT3[A-Za-z0-9_\-=]{186}", "ATATT3"),
    _token(
        "harness-token",
        r"\b(?:pat|sat)\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}\b",
        "pat.",
        "sat.",
    ),
    _token("octopus-key", r"\bAPI-(?=[A-Z]*[0-9])[A-Z0-9]{26}\b", "API-", entropy=3),
    _token("cloudflare-ca-key", r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}\b", "v1.0-"),
    _token(
        "onepassword-token",
        r"\bops_eyJ[A-Za-z0-9+/]{250,}={0,3}|\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})"
        r"-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b",
        "ops_eyJ",
        "A3-",
        entropy=3.5,
    ),
    _token(
        "newrelic-key",
        r"\bNRAK-[A-Z0-9]{27}\b|\bNRII-[A-Za-z0-9\-]{32}|\bNRJS-[a-f0-9]{19}\b",
        "NRAK-",
        "NRII-",
        "NRJS-",
    ),
    # --- messaging, mail and payments --------------------------------------------------------
    _token(
        "sendgrid-key",
        rf"\bSG\.[A-Za-z0-9_\-]{{22}}\.[A-Za-z0-9_\-]{{43}}{_END}",
        "SG.",
        entropy=2,
    ),
    _token("sendinblue-key", r"\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}\b", "xkeysib-", entropy=2),
    _token("mailchimp-key", r"\b[0-9a-f]{32}-us[0-9]{1,2}\b", "-us", entropy=3),
    # gitleaks' mailgun-private-api-token and mailgun-pub-key are `(pub)key-` and 32 hex digits
    # near the word mailgun; the shape is Mailgun's alone, so it goes bare, as prose pastes it.
    # Older keys (and Mailgun's documentation) use every lowercase letter, not only hex.
    _token(
        "mailgun-key",
        rf"(?<![\w\-])(?:pub)?key-(?=[a-z]{{0,31}}[0-9])(?=[0-9]{{0,31}}[a-z])[a-z0-9]{{32}}{_END}",
        "key-",
        entropy=3,
    ),
    _token("twilio-key", r"\bSK[0-9a-fA-F]{32}\b", "SK", entropy=3),
    SecretPattern(
        "telegram-bot-token",
        compile_(rf"\b\d{{8,10}}:AA[A-Za-z0-9_\-]{{33}}{_END}"),
        gates=(contains(":AA"),),
        min_entropy=3,
    ),
    SecretPattern(
        "discord-bot-token",
        compile_(
            r"\b[MNO][A-Za-z0-9_\-]{23,25}\.[A-Za-z0-9_\-]{6}"
            rf"\.[A-Za-z0-9_\-]{{27,38}}{_END}"
        ),
        gates=(finds(r"\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27}"),),
        min_entropy=3.5,
    ),
    _token("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", "shp", entropy=2),
    _token(
        "square-token",
        rf"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{{22,60}}{_END}|\bEAAA[A-Za-z0-9_\-]{{22,60}}{_END}",
        "sq0",
        "EAAA",
        entropy=2,
    ),
    _token("facebook-token", r"\bEAA[MC][A-Za-z0-9]{100,}\b", "EAA", entropy=4),
    _token("shippo-key", r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b", "shippo_", entropy=2),
    _token(
        "duffel-token", rf"\bduffel_(?:test|live)_[A-Za-z0-9_=\-]{{43}}{_END}", "duffel_", entropy=2
    ),
    _token("flutterwave-key", r"\bFLWSECK(?:_TEST)?-[a-fA-F0-9]{12,32}(?:-X)?\b", "FLWSECK"),
    _token("easypost-key", r"\bEZ[AT]K[A-Za-z0-9]{54}\b", "EZAK", "EZTK", entropy=2),
    _token("mapbox-token", r"\bsk\.eyJ[A-Za-z0-9_\-]{50,}\.[A-Za-z0-9_\-]{20,}", "sk.eyJ"),
    _token("adobe-secret", r"\bp8e-[A-Za-z0-9]{32}\b", "p8e-", entropy=2),
    _token("maxmind-key", r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b", "_mmk", entropy=4),
    _token("django-secret-key", r"django-insecure-[^\s\"'`]{19,}[^\s\"'`.,;]", "django-insecure-"),
)
