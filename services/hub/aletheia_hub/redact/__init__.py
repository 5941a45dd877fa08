"""Secret redaction: every pattern in one place, applied before anything is stored or hashed.

`redact` cleans one text (`redact_name` a name, quickly; `holds_secret` tells whether a name
holds one); `redact_json` and `redact_fact` clean the other shapes the store keeps, where a key
or a predicate that names a secret makes its whole value one. The patterns live in `tokens`
(provider tokens), `contexts` (headers, cookies, URLs, command lines, config lines) and
`assignments` (values whose key, as `names` reads it, names a secret); `text` runs them in
order behind cheap gates.
"""

from aletheia_hub.redact.assignments import is_placeholder, looks_like_reference
from aletheia_hub.redact.names import names_secret
from aletheia_hub.redact.patterns import SecretPattern, entropy, marker
from aletheia_hub.redact.shapes import (
    SECRET_VALUE,
    RedactedJson,
    redact_fact,
    redact_json,
)
from aletheia_hub.redact.text import PATTERNS, Redacted, holds_secret, redact, redact_name

__all__ = [
    "PATTERNS",
    "SECRET_VALUE",
    "Redacted",
    "RedactedJson",
    "SecretPattern",
    "entropy",
    "holds_secret",
    "is_placeholder",
    "looks_like_reference",
    "marker",
    "names_secret",
    "redact",
    "redact_fact",
    "redact_json",
    "redact_name",
]
