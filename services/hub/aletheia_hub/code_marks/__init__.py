"""Marks on recalled memories about code: files changed since they were saved, and branches
not merged into the caller's HEAD."""

from aletheia_hub.code_marks.marks import CodeMark, marks_for
from aletheia_hub.code_marks.render import mark_line, ordered_by_mark
from aletheia_hub.code_marks.service import CodeMarks
from aletheia_hub.code_marks.status import CheckoutStatus

__all__ = ["CheckoutStatus", "CodeMark", "CodeMarks", "mark_line", "marks_for", "ordered_by_mark"]
