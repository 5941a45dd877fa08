"""Export and import of a project's memory as one versioned JSON document.

document.py holds the schema and its validation, export.py builds a document from the store,
importer.py applies one in the caller's transaction, one record kind at a time: import_run.py
holds what the import has seen and counted, import_memories.py writes its observations,
import_tombstones.py their trails and removed state, import_facts.py its facts, rules.py
checks and adds its rules, import_work_lists.py its work-state lists.
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
