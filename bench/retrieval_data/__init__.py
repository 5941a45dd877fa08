"""A deterministic corpus of coding-agent memories with questions, for the retrieval bench."""

from .corpus import BASE_SIZE, TODAY, build_corpus
from .model import KINDS, Corpus, Memory, Question

__all__ = ["BASE_SIZE", "KINDS", "TODAY", "Corpus", "Memory", "Question", "build_corpus"]
