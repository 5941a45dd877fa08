"""Text to search terms, the same for indexing and querying on every backend.

Words are lower-cased runs of letters and digits, English stop words are dropped and the
rest stemmed (Snowball), so SQLite FTS5 and PostgreSQL index and match identical terms.
"""

import re
from functools import lru_cache
from typing import Final

import snowballstemmer

_WORD: Final = re.compile(r"[^\W_]+")
MAX_TERM_CHARS: Final = 64
MAX_QUERY_TERMS: Final = 16

_STOP_WORD_TEXT: Final = """
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing done down during each either
else ever few for from further get got had has have having he her here hers herself him
himself his how i if in into is it its itself just let me more most much my myself near no
nor not now of off on once only or other our ours ourselves out over own per please same
she should so some such than that the their theirs them themselves then there these they
this those through to too under until up upon us very via was we were what when where
which while who whom why will with within without would yes yet you your yours yourself
yourselves
"""
STOP_WORDS: Final = frozenset(_STOP_WORD_TEXT.split())
# What an apostrophe leaves of a word ("Caroline's", "don't", "we'll"): matched, the "s" of a
# possessive would find every memory holding "it's" or "that's". Queries skip them; the index
# keeps them (dropping them there would change every stored row's terms).
CONTRACTION_PARTS: Final = frozenset({"s", "t", "d", "ll", "re", "ve", "m"})


@lru_cache(maxsize=65_536)
def _stem(word: str) -> str:
    """A word's stem; its own stemmer, since one keeps the word it works on (4 us of 90)."""
    stem: str = snowballstemmer.stemmer("english").stemWord(word)
    return stem


def words(text: str) -> list[str]:
    """Lower-cased words of a text, punctuation and operators ignored."""
    return [word for word in _WORD.findall(text.lower()) if len(word) <= MAX_TERM_CHARS]


def index_terms(text: str) -> str:
    """The stemmed, stop-word-free terms of a text, space separated, for the index."""
    return " ".join(_stem(word) for word in words(text) if word not in STOP_WORDS)


def term_set(text: str) -> set[str]:
    """The distinct terms of a text: set(index_terms(text).split()), each word stemmed once."""
    found = {_stem(word) for word in set(words(text)) if word not in STOP_WORDS}
    found.discard("")  # split() would drop an empty stem
    return found


def query_terms(query: str) -> list[str]:
    """The distinct meaningful terms of a query, in order, at most MAX_QUERY_TERMS."""
    terms = dict.fromkeys(
        _stem(word)
        for word in words(query)
        if word not in STOP_WORDS and word not in CONTRACTION_PARTS
    )
    return list(terms)[:MAX_QUERY_TERMS]


def project_term(project: str) -> str:
    """One index term that stands for a project exactly (hex keeps it a single token)."""
    return "p" + project.encode().hex()
