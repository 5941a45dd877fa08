"""Capture of the work itself: edits, commands and test runs that hosts' hooks report, kept
without any model, bounded, and summed up in one digest when a session ends."""
