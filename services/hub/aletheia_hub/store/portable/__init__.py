"""Export and import of a project's memory as one versioned JSON document.

document.py holds the schema and its validation, export.py builds a document from the store,
importer.py applies one in the caller's transaction.
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

__all__ = [
    "FORMAT",
    "VERSION",
    "Document",
    "ImportCounts",
    "ImportMode",
    "PayloadError",
    "Viewer",
    "build_document",
    "dump_document",
    "import_document",
    "parse_document",
]
