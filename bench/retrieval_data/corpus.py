"""The corpus: a base of notes and chat turns with questions, grown by varied copies.

The base (BASE_SIZE memories) is the same at every size; larger corpora add variants of its
memories with other people, components and numbers. A question is kept only when no other
memory holds everything it asks about (its signature), and no memory added later may hold a
kept signature either, so every question has exactly its gold answers at every size.
"""

import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Final

from aletheia_hub.store.search.terms import query_terms

from .chat import (
    LINES,
    MEETINGS,
    PAIR_QUESTIONS,
    REPLIES,
    SPEAKER_QUESTIONS,
    WHO_QUESTIONS,
    ChatLine,
    topic_phrase,
    when_phrase,
)
from .index import Index, term_features
from .model import Corpus, Memory, Question
from .notes import NOTE_TEMPLATES, NoteTemplate
from .slots import (
    Values,
    draw,
    features,
    keyword,
    paraphrased_slots,
    render,
    slot_names,
    text_of,
)
from .vocab import PEOPLE, TEAMS, Term

BASE_SIZE: Final = 1_000
TARGET_NOTES: Final = 300
CHAT_SESSIONS: Final = 22
TODAY: Final = date(2026, 11, 30)  # questions say "last week" from this day
SPAN_DAYS: Final = 365
TOOLS: Final = ("claude-code", "codex", "cursor", "gemini-cli", "opencode")


@dataclass(slots=True)
class Draft:
    """A memory with what made it, so a variant can be drawn from it."""

    source: NoteTemplate | ChatLine
    values: Values
    day: date
    memory: Memory
    features: frozenset[str]
    topic: str = ""  # a chat turn's topic slot
    meeting: tuple[Term, str] | None = None  # a chat turn's team and meeting


def build_corpus(size: int, seed: int = 1) -> Corpus:
    """`size` memories (at least BASE_SIZE) and the questions about the base, deterministic."""
    if size < BASE_SIZE:
        raise ValueError(f"size must be at least {BASE_SIZE}")
    builder = Builder(random.Random(seed))
    for _ in range(CHAT_SESSIONS):
        builder.session()
    builder.notes(BASE_SIZE - len(builder.memories), TARGET_NOTES)
    builder.variants(size - BASE_SIZE)
    return Corpus(builder.memories, builder.questions)


def moment_ms(day: date, rng: random.Random) -> int:
    start = datetime(day.year, day.month, day.day, 8, tzinfo=UTC)
    return int((start + timedelta(minutes=rng.randrange(0, 10 * 60))).timestamp() * 1000)


class Builder:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.index = Index()
        self.memories: list[Memory] = []
        self.questions: list[Question] = []
        self.drafts: list[Draft] = []

    def add(self, draft: Draft, *, base: bool = True) -> int | None:
        """Append a draft's memory if the index accepts it; its position, or None."""
        if not self.index.accepts(draft.memory, draft.features):
            return None
        position = len(self.memories)
        self.index.add(position, draft.memory, draft.features, post=base)
        self.memories.append(draft.memory)
        if base:
            self.drafts.append(draft)
        return position

    def ask(self, kind: str, text: str, signatures: list[frozenset[str]], gold: list[int]) -> bool:
        if not self.index.claim(signatures, gold):
            return False
        self.questions.append(Question(kind, text, tuple(gold)))
        return True

    # Notes

    def note(self, template: NoteTemplate, day: date, keep: Values) -> Draft:
        texts = (template.title, template.text, *template.sentences, *template.paraphrases)
        values = draw(slot_names(texts), self.rng, day, keep)
        title = render(template.title, values, self.rng)
        text = render(template.text, values, self.rng)
        files = tuple(
            v.name for k, v in values.items() if k.startswith("file") and isinstance(v, Term)
        )
        memory = Memory(
            title, text, template.type, "note", self.rng.choice(TOOLS), files,
            moment_ms(day, self.rng),
        )  # fmt: skip
        found = features(values, slot_names((template.title, template.text)))
        return Draft(template, values, day, memory, frozenset(found | term_features(memory)))

    def notes(self, count: int, targets: int) -> None:
        made = asked = 0
        while made < count:
            day = TODAY - timedelta(days=self.rng.randrange(SPAN_DAYS))
            draft = self.note(self.rng.choice(NOTE_TEMPLATES), day, {})
            position = self.add(draft)
            if position is None:
                continue
            made += 1
            if asked < targets and self.note_questions(draft, position):
                asked += 1

    def note_questions(self, draft: Draft, position: int) -> bool:
        template, values = draft.source, draft.values
        assert isinstance(template, NoteTemplate)
        slots = self.rng.sample(template.keywords, self.rng.choice((2, 3)))
        words = " ".join(keyword(values[slot]) for slot in slots)
        asked = [("keyword", words, frozenset("t:" + term for term in query_terms(words)))]
        for kind, options in (
            ("sentence", template.sentences),
            ("paraphrase", template.paraphrases),
        ):
            form = self.rng.choice(options)
            signature = frozenset(features(values, slot_names([form])))
            asked.append((kind, render(form, values, self.rng), signature))
        if not self.index.claim([signature for _, _, signature in asked], [position]):
            return False
        self.questions += [Question(kind, text, (position,)) for kind, text, _ in asked]
        self.questions.append(
            Question("mixed", self.mixed(template, values, position), (position,))
        )
        return True

    @staticmethod
    def mixed(template: NoteTemplate, values: Values, position: int) -> str:
        """A paraphrase question that keeps one name as saved, as people ask when they recall
        one name and not the words around it. Its own generator leaves the corpus as it was."""
        rng = random.Random(position)
        form = rng.choice(template.paraphrases)
        slots = paraphrased_slots(form)
        return render(form, values, rng, literal=[rng.choice(slots)] if slots else [])

    # Chat

    def turn(
        self, line: ChatLine, day: date, meeting: tuple[Term, str], keep: Values, topic: str
    ) -> Draft:
        names = list(keep) + [
            slot for slot in slot_names((line.text, line.who)) if slot not in keep
        ]
        values = draw(names, self.rng, day, keep)
        speaker, (team, kind) = text_of(values["speaker"]), meeting
        utterance = render(line.text, values, self.rng)
        files = tuple(
            v.name for k, v in values.items() if k.startswith("file") and isinstance(v, Term)
        )
        memory = Memory(
            f"{speaker} in the {team.name} {kind}, {day:%b} {day.day}",
            f"{speaker} said in the {team.name} {kind} on {day:%A} {day.isoformat()}: {utterance}",
            "note", "chat", self.rng.choice(TOOLS), files, moment_ms(day, self.rng),
        )  # fmt: skip
        found = features(values) | term_features(memory) | {"line=" + line.id, f"team={team.name}"}
        return Draft(line, values, day, memory, frozenset(found), topic, meeting)

    def reply_keep(self, previous: Draft, speaker: Term) -> Values:
        """A reply's fixed values: its speaker, the previous speaker and the topic."""
        value = previous.values[previous.topic]
        assert isinstance(previous.values["speaker"], Term)
        topic = {previous.topic: value, "topic": topic_phrase(previous.topic, value)}
        return {"speaker": speaker, "person": previous.values["speaker"], **topic}

    def session(self) -> None:
        """One meeting's turns (a few reply to the turn before) and questions about them."""
        rng = self.rng
        day = TODAY - timedelta(days=rng.randrange(45))
        day -= timedelta(days=max(0, day.weekday() - 4))  # meetings happen on weekdays
        meeting = (rng.choice(TEAMS), rng.choice(MEETINGS))
        speakers = rng.sample(PEOPLE, rng.randint(2, 4))
        turns: list[tuple[int, Draft]] = []
        for _ in range(rng.randint(4, 8)):
            previous = turns[-1][1] if turns else None
            for _attempt in range(20):
                speaker = rng.choice(
                    [s for s in speakers if not previous or s != previous.values["speaker"]]
                )
                if previous is not None and rng.random() < 0.35:
                    line = rng.choice(REPLIES)
                    draft = self.turn(
                        line, day, meeting, self.reply_keep(previous, speaker), previous.topic
                    )
                else:
                    line = rng.choice(LINES)
                    draft = self.turn(line, day, meeting, {"speaker": speaker}, line.topic)
                position = self.add(draft)
                if position is not None:
                    turns.append((position, draft))
                    break
        for number, (position, draft) in enumerate(turns):
            if isinstance(draft.source, ChatLine) and draft.source.reply:
                if rng.random() < 0.6:
                    self.pair_question(turns[number - 1], (position, draft))
            elif rng.random() < 0.65:
                self.turn_question(position, draft)

    def phrases(self, draft: Draft) -> dict[str, str]:
        assert draft.meeting is not None
        team, meeting = draft.meeting
        when = when_phrase(draft.day, TODAY, meeting, self.rng.randrange(4))
        topic = topic_phrase(draft.topic, draft.values[draft.topic])
        speaker = text_of(draft.values["speaker"])
        return {
            "speaker": speaker,
            "topic": topic,
            "when": when,
            "meeting": meeting,
            "team": team.name,
        }

    def turn_question(self, position: int, draft: Draft) -> None:
        line, values = draft.source, draft.values
        assert isinstance(line, ChatLine)
        words = self.phrases(draft)
        if self.rng.random() < 0.3:
            who = render(line.who, values, self.rng)
            text = self.rng.choice(WHO_QUESTIONS).format(who=who, **words)
            signature = features(values, slot_names([line.who])) | {"line=" + line.id}
        else:
            text = self.rng.choice(SPEAKER_QUESTIONS).format(**words)
            signature = features(values, ["speaker", draft.topic])
        self.ask("chat", text, [frozenset(signature)], [position])

    def pair_question(self, first: tuple[int, Draft], second: tuple[int, Draft]) -> None:
        words = self.phrases(first[1])
        words["speaker2"] = text_of(second[1].values["speaker"])
        text = self.rng.choice(PAIR_QUESTIONS).format(**words)
        signatures = [
            frozenset(features(d.values, ["speaker", d.topic])) for _, d in (first, second)
        ]
        self.ask("chat", text, signatures, [first[0], second[0]])

    # Variants

    def variants(self, count: int) -> None:
        """`count` memories drawn from the base ones with about half their values changed."""
        made = attempt = 0
        while made < count:
            source = self.drafts[attempt % len(self.drafts)]
            attempt += 1
            if self.add(self.variant(source), base=False) is not None:
                made += 1

    def variant(self, source: Draft) -> Draft:
        rng = self.rng
        day = TODAY - timedelta(days=rng.randrange(SPAN_DAYS))
        keep: Values = {
            slot: value
            for slot, value in source.values.items()
            if isinstance(value, Term) and not slot[-1].isdigit() and rng.random() < 0.5
        }
        if isinstance(source.source, NoteTemplate):
            return self.note(source.source, day, keep)
        meeting = (rng.choice(TEAMS), rng.choice(MEETINGS))
        keep.setdefault("speaker", rng.choice(PEOPLE))
        if source.source.reply:
            topic = source.topic
            value = keep.get(topic) or draw([topic], rng, day, {})[topic]
            keep.setdefault("person", rng.choice([p for p in PEOPLE if p != keep["speaker"]]))
            keep |= {topic: value, "topic": topic_phrase(topic, value)}
        return self.turn(source.source, day, meeting, keep, source.topic)
