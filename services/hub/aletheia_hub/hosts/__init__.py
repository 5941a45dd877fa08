"""Connecting hosts (Claude Code, Cursor, Codex, ...): their config files, our entry in them,
rules in their instruction files and their session hooks."""
