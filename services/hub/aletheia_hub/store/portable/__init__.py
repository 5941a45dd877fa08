"""Export and import of a project's memory as one versioned JSON document.

document.py holds the schema and its validation, export.py builds a document from the store,
importer.py applies one in the caller's transaction, rules.py checks and adds its rules.
"""

from aletheia_hub.store.portable.document import (
    FORMAT,
    VERSION,
    Document,
    PayloadError,
    Viewer,
    parse_document,
)
from aletheia_hub.store.portable.export import build_document, dump_document
from aletheia_hub.store.portable.importer import ImportCounts, ImportMode, import_document
from aletheia_hub.store.portable.rules import ImportRefused, RuleAccess

__all__ = [
    "FORMAT",
    "VERSION",
    "Document",
    "ImportCounts",
    "ImportMode",
    "ImportRefused",
    "PayloadError",
    "RuleAccess",
    "Viewer",
    "build_document",
    "dump_document",
    "import_document",
    "parse_document",
]
