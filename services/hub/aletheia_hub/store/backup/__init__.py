"""Backups of a whole store: native (SQLite backup API, pg_dump) and logical (JSON lines)."""
