"""The retrieval bench's corpus: deterministic, large enough, every question answerable by
exactly its gold memories, and paraphrases that do not lean on the note's rare words."""

from collections import Counter
from functools import cache

import pytest

from aletheia_hub.redact import redact
from aletheia_hub.store.search.terms import index_terms, query_terms
from bench.retrieval_data import BASE_SIZE, KINDS, Corpus, build_corpus
from bench.retrieval_data.artifacts import FILES
from bench.retrieval_data.chat import LINES
from bench.retrieval_data.notes import NOTE_TEMPLATES
from bench.retrieval_data.slots import TERMS, slot_names

RARE_SHARE = 0.02  # a word in at most 2% of memories counts as rare


@cache
def corpus(size: int = BASE_SIZE, seed: int = 1) -> Corpus:
    return build_corpus(size, seed)


def terms_of(corpus: Corpus) -> list[set[str]]:
    return [
        set(index_terms(" ".join((m.title, m.text, *m.files))).split()) for m in corpus.memories
    ]


def test_the_same_seed_gives_the_same_corpus_and_another_seed_another() -> None:
    assert build_corpus(BASE_SIZE, 1) == corpus()
    assert build_corpus(BASE_SIZE, 2).memories != corpus().memories


def test_the_base_holds_a_thousand_memories_with_distinct_texts() -> None:
    memories = corpus().memories
    assert len(memories) == BASE_SIZE
    assert len({(m.title, m.text) for m in memories}) == len(memories)
    kinds = Counter(m.kind for m in memories)
    assert kinds["note"] > 800 and kinds["chat"] > 100
    assert {m.type for m in memories} == {"decision", "gotcha", "bugfix", "note", "discovery"}


def test_every_question_has_gold_memories_in_the_corpus() -> None:
    questions = corpus().questions
    counts = Counter(q.kind for q in questions)
    assert set(counts) == set(KINDS)
    assert min(counts[kind] for kind in ("keyword", "sentence", "paraphrase")) >= 250
    assert counts["chat"] >= 50
    assert any(len(q.gold) == 2 for q in questions if q.kind == "chat")
    for question in questions:
        assert question.gold and all(0 <= gold < BASE_SIZE for gold in question.gold)


def test_a_larger_corpus_is_the_base_plus_distinct_variants() -> None:
    larger = corpus(2 * BASE_SIZE)
    assert larger.memories[:BASE_SIZE] == corpus().memories
    assert larger.questions == corpus().questions
    assert len({(m.title, m.text) for m in larger.memories}) == len(larger.memories)


def test_only_the_gold_memory_holds_every_word_of_a_keyword_question() -> None:
    larger = corpus(2 * BASE_SIZE)
    words = terms_of(larger)
    for question in larger.questions:
        if question.kind == "keyword":
            wanted = set(query_terms(question.text))
            holders = [n for n, found in enumerate(words) if wanted <= found]
            assert holders == list(question.gold), question.text


def rare_words_shared(kind: str) -> list[int]:
    words = terms_of(corpus())
    frequency = Counter(word for found in words for word in found)
    rare = {word for word, count in frequency.items() if count <= RARE_SHARE * BASE_SIZE}
    return [
        len(set(query_terms(q.text)) & words[q.gold[0]] & rare)
        for q in corpus().questions
        if q.kind == kind
    ]


def test_paraphrase_questions_share_few_rare_words_with_their_note() -> None:
    paraphrased, keyword = rare_words_shared("paraphrase"), rare_words_shared("keyword")
    mean = sum(paraphrased) / len(paraphrased)
    none = paraphrased.count(0) / len(paraphrased)
    # Measured at 0.09 and 92%; a keyword question shares about two by construction.
    assert mean < 0.25, f"paraphrases share {mean:.2f} rare words on average"
    assert none > 0.8, f"only {none:.0%} of paraphrases share no rare word"
    assert sum(keyword) / len(keyword) > 1.5


@pytest.mark.parametrize("kind", sorted(TERMS))
def test_no_paraphrase_repeats_a_word_of_its_term(kind: str) -> None:
    for term in TERMS[kind] + (FILES if kind == "comp" else ()):
        for paraphrase in term.paraphrases:
            assert not set(query_terms(term.name)) & set(query_terms(paraphrase)), paraphrase


def test_questions_ask_only_about_values_their_note_holds() -> None:
    for template in NOTE_TEMPLATES:
        held = set(slot_names((template.title, template.text)))
        for question in template.sentences + template.paraphrases:
            assert set(slot_names([question])) <= held, question
            assert len(slot_names([question])) >= 2, question
        assert set(template.keywords) <= held
    for line in LINES:
        assert set(slot_names([line.who])) <= set(slot_names([line.text])), line.who


def test_no_memory_text_looks_like_a_secret() -> None:
    for memory in corpus().memories:
        assert redact(memory.title).count == redact(memory.text).count == 0, memory.text


def test_mixed_questions_keep_a_saved_name_among_other_words() -> None:
    mixed, paraphrased = rare_words_shared("mixed"), rare_words_shared("paraphrase")
    keyword = rare_words_shared("keyword")
    assert len(mixed) == len(paraphrased)
    share_one = sum(count > 0 for count in mixed) / len(mixed)
    assert share_one > 0.6, f"only {share_one:.0%} of mixed questions keep a rare word"
    assert sum(paraphrased) < sum(mixed) < sum(keyword)
