"""Long conversations between two friends over months, every turn saved as one memory, and the
questions asked about them later.

Each conversation has 18 to 22 sessions a few days to three weeks apart, 300 turns or more.
In a session the friends greet, tell stories (lives.py: the teller says what happened, the
friend asks, the teller answers with details and pronouns), come back to earlier ones ("how
did the race go?"), chat about nothing and say goodbye. Both may tell the same kind of story
(both went camping), so who did what matters. A story told in the past says when ("last
weekend", "two days ago") in its first turn or, asked "when was this?", in the answer; the
turn is saved at the moment of the session it belongs to.

Questions, by category:
- single-hop: one turn answers (what someone said, a detail, a fact about them);
- multi-hop: two turns or more answer (a story and its details, a plan and how it went, the
  same kind of story told twice);
- temporal: "when did ...", answered by the turn that says when (and with it the story);
- open-domain: an inference about a person ("would she enjoy ...?"), answered by the turns
  that show the trait.

A conversation is saved as a host would: "Name: text", "[8 May 2026, 1:56 pm] Name: text" or
"Name said: text", each by one tool in its own project, with an MCP session id per session
for some conversations and none (stateless requests) for others. The first TUNE
conversations are for tuning; the others are held out.
"""

import random
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Final

from .lives import ECHOES, FUTURE_TIMES, PAST_TIMES, STORIES, TRAIT_QUESTIONS, WHEN_ASKS, Story
from .smalltalk import (
    CITIES,
    CLOSINGS,
    GREETING_REPLIES,
    GREETINGS,
    INTRODUCTIONS,
    JOBS,
    KIDS,
    MEN,
    PARTNERS,
    PETS,
    REACTIONS,
    SMALL_TALK,
    WOMEN,
)

CATEGORIES: Final = ("single-hop", "multi-hop", "temporal", "open-domain")
CONVERSATIONS: Final = 12
TUNE: Final = 6  # conversations 1 to 6 tune the ranking; 7 to 12 are held out
TODAY: Final = date(2026, 11, 30)
STYLES: Final = ("colon", "dated", "said")
TOOLS: Final = ("claude-code", "cursor", "codex", "gemini-cli")
STORIES_EACH: Final = (14, 18)  # kinds of story each person tells
QUESTIONS_EACH: Final = {"single-hop": 18, "multi-hop": 10, "temporal": 10, "open-domain": 6}
_FIELD: Final = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True, slots=True)
class Turn:
    """One saved memory: a turn of a conversation."""

    project: str
    text: str
    tool: str
    session_id: str | None
    created_at_ms: int
    speaker: str = ""  # who says it
    said: str = ""  # what they say, without the speaker and the stamp


@dataclass(frozen=True, slots=True)
class ChatQuestion:
    category: str  # one of CATEGORIES
    text: str
    project: str
    gold: tuple[int, ...]  # positions in Conversations.turns
    held_out: bool


@dataclass(frozen=True, slots=True)
class Conversations:
    turns: list[Turn]
    questions: list[ChatQuestion]


@dataclass(frozen=True, slots=True)
class Persona:
    name: str
    she: bool
    partner: str
    kid_rel: str
    kid: str
    age: int
    pet_kind: str
    pet: str
    job: str
    workplace: str
    city: str

    def fields(self) -> dict[str, str]:
        return {
            "name": self.name, "partner": self.partner, "kid_rel": self.kid_rel, "kid": self.kid,
            "age": str(self.age), "pet_kind": self.pet_kind, "pet": self.pet, "job": self.job,
            "a_job": ("an " if self.job[0] in "aeiou" else "a ") + self.job,
            "workplace": self.workplace, "city": self.city,
            "they": "she" if self.she else "he", "them": "her" if self.she else "him",
            "their": "her" if self.she else "his", "themself": "herself" if self.she else "himself",
        }  # fmt: skip


@dataclass(slots=True)
class Telling:
    """One story told by one person, with the positions of its turns once said."""

    story: Story
    teller: int
    values: dict[str, str]
    time_in_reply: bool
    parts: dict[str, int] = field(default_factory=dict)  # say, reply, update -> position
    time_part: str = "say"


def build_conversations(seed: int = 1, count: int = CONVERSATIONS) -> Conversations:
    """`count` conversations (the first TUNE for tuning) and their questions, deterministic."""
    rng = random.Random(seed)
    out = Conversations([], [])
    women, men = rng.sample(WOMEN, len(WOMEN)), rng.sample(MEN, len(MEN))
    for number in range(count):
        pair = (women.pop(), men.pop() if number % 3 else women.pop())
        Writer(rng, number, pair, out).conversation()
    return out


def fill(template: str, values: dict[str, str]) -> str:
    """The template with its fields filled, spaces tidied and the first letter capitalized."""
    text = _FIELD.sub(lambda m: values[m.group(1)], template)
    text = re.sub(r"\s+([,.!?])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()
    return text[:1].upper() + text[1:]


class Writer:
    """Writes one conversation's turns and questions into `out`."""

    def __init__(
        self, rng: random.Random, number: int, names: tuple[str, str], out: Conversations
    ) -> None:
        self.rng, self.number, self.out = rng, number, out
        self.people = tuple(self.persona(name) for name in names)
        self.project = f"chat-{names[0].lower()}-{names[1].lower()}"
        self.style = STYLES[number % len(STYLES)]
        self.tool = TOOLS[number % len(TOOLS)]
        self.with_sessions = number % 2 == 0
        self.held_out = number >= TUNE
        self.candidates: dict[str, list[tuple[str, tuple[int, ...]]]] = {c: [] for c in CATEGORIES}
        self.traits: dict[tuple[int, str], list[int]] = {}
        self.moment = datetime(2026, 1, 1, tzinfo=UTC)
        self.session_id: str | None = None
        self.said: set[str] = set()  # texts saved so far (a repeat is the same memory)
        self.repeats: set[int] = set()  # positions of turns that repeat an earlier text

    def persona(self, name: str) -> Persona:
        rng = self.rng
        kid_rel, kid = rng.choice(KIDS)
        pet_kind, pet = rng.choice(PETS)
        job, workplace = rng.choice(JOBS)
        she = name in WOMEN
        partner = rng.choice(PARTNERS)
        return Persona(
            name, she, partner, kid_rel, kid, rng.randint(4, 15), pet_kind, pet, job, workplace,
            rng.choice(CITIES),
        )  # fmt: skip

    # Turns

    def say(
        self,
        speaker: int,
        template: str,
        extra: dict[str, str] | None = None,
        about: int | None = None,
    ) -> int:
        """Save one turn by `speaker` about the life of `about` (default: the speaker's own);
        its position. {friend} is whom the speaker talks to."""
        person = self.people[speaker if about is None else about]
        values = person.fields() | {"friend": self.people[1 - speaker].name} | (extra or {})
        text = fill(template, values)
        name = self.people[speaker].name
        if self.style == "colon":
            saved = f"{name}: {text}"
        elif self.style == "dated":
            at = self.moment
            half = "am" if at.hour < 12 else "pm"
            saved = f"[{at.day} {at:%B %Y}, {at.hour % 12 or 12}:{at:%M} {half}] {name}: {text}"
        else:
            saved = f"{name} said: {text}"
        if saved in self.said:
            self.repeats.add(len(self.out.turns))
        self.said.add(saved)
        self.moment += timedelta(seconds=self.rng.randint(15, 150))
        at_ms = int(self.moment.timestamp() * 1000)
        turn = Turn(self.project, saved, self.tool, self.session_id, at_ms, name, text)
        self.out.turns.append(turn)
        return len(self.out.turns) - 1

    # A conversation

    def conversation(self) -> None:
        rng = self.rng
        tellings = self.tellings()
        sessions = rng.randint(18, 22)
        first = TODAY - timedelta(days=rng.randint(300, 340))
        starts = [first]
        for _ in range(sessions - 1):
            starts.append(starts[-1] + timedelta(days=rng.randint(4, 21)))
        schedule: list[list[tuple[str, Telling]]] = [[] for _ in range(sessions)]
        for n, telling in enumerate(tellings):
            at = min(sessions - 1, n * sessions // len(tellings))
            schedule[at].append(("tell", telling))
            if telling.story.update:
                later = at + rng.randint(1, 3)
                if later < sessions:
                    schedule[later].append(("update", telling))
            echo = at + rng.randint(1, 6)
            if telling.story.key in ECHOES and echo < sessions and rng.random() < 0.6:
                schedule[echo].append(("echo", telling))
        intros = [(speaker, n) for n in range(len(INTRODUCTIONS)) for speaker in (0, 1)]
        rng.shuffle(intros)
        for number, day in enumerate(starts):
            self.moment = datetime(day.year, day.month, day.day, rng.randint(8, 20), tzinfo=UTC)
            self.moment += timedelta(minutes=rng.randint(0, 59))
            self.session_id = f"{self.project}-s{number + 1}" if self.with_sessions else None
            items = schedule[number]
            rng.shuffle(items)
            self.session(items, intros[number * 4 : number * 4 + 4] if number < 3 else [])
        self.questions(tellings)

    def tellings(self) -> list[Telling]:
        rng = self.rng
        tellings: list[Telling] = []
        taken: dict[str, set[str]] = {}  # story key -> first slot values already used
        for teller in (0, 1):
            stories = rng.sample(STORIES, rng.randint(*STORIES_EACH))
            for story in stories:
                times = rng.choice((2, 2, 3)) if story.repeat else 1
                for _ in range(times):
                    values = self.draw(story, taken.setdefault(story.key, set()))
                    if values is None:
                        break
                    in_reply = story.tense == "past" and rng.random() < 0.3
                    tellings.append(Telling(story, teller, values, in_reply))
        rng.shuffle(tellings)
        return tellings

    def draw(self, story: Story, taken: set[str]) -> dict[str, str] | None:
        """Values for a story's slots, each not used before for this story in this
        conversation (a question naming one has one answer); None when none is left."""
        values: dict[str, str] = {}
        for name, options in story.slots.items():
            pool = [o for o in options if f"{name}={o}" not in taken]
            if not pool:
                return None
            chosen = self.rng.choice(pool)
            taken.add(f"{name}={chosen}")
            first, *rest = chosen.split("|")
            values[name] = first
            for extra, value in enumerate(rest, start=2):
                values[f"{name}{extra}"] = value
        return values

    def session(self, items: list[tuple[str, Telling]], intros: list[tuple[int, int]]) -> None:
        rng = self.rng
        opener = rng.randrange(2)
        self.say(opener, rng.choice(GREETINGS))
        self.say(1 - opener, rng.choice(GREETING_REPLIES))
        for speaker, n in intros:
            text, questions, trait = INTRODUCTIONS[n]
            position = self.say(speaker, text)
            self.ask_later("single-hop", questions, speaker, {}, (position,))
            if trait:
                self.traits.setdefault((speaker, trait), []).append(position)
            if rng.random() < 0.5:
                self.say(1 - speaker, rng.choice(REACTIONS), about=speaker)
        chats = rng.sample(SMALL_TALK, rng.randint(1, 3))
        for n, (what, telling) in enumerate(items):
            if n < len(chats) and rng.random() < 0.7:
                speaker = rng.randrange(2)
                self.say(speaker, chats[n][0])
                self.say(1 - speaker, chats[n][1])
            if what == "tell":
                self.tell(telling)
            elif what == "update":
                self.update(telling)
            else:
                self.say(telling.teller, rng.choice(ECHOES[telling.story.key]), telling.values)
                self.say(1 - telling.teller, rng.choice(REACTIONS), about=telling.teller)
        closing = rng.choice(CLOSINGS)
        self.say(1 - opener, closing[0])
        self.say(opener, closing[1], about=1 - opener)

    def tell(self, telling: Telling) -> None:
        rng, story, teller = self.rng, telling.story, telling.teller
        when = rng.choice(PAST_TIMES if story.tense == "past" else FUTURE_TIMES)
        values = telling.values | {"when": when, "When": when[:1].upper() + when[1:], "soon": when}
        quiet_says = [say for say in story.say if "{When}" not in say]
        if telling.time_in_reply and quiet_says:
            quiet = values | {"when": ""}
            telling.parts["say"] = self.say(teller, rng.choice(quiet_says), quiet)
            self.say(1 - teller, rng.choice(WHEN_ASKS))
            reply = values["When"] + ". " + rng.choice(story.reply)
            telling.parts["reply"] = self.say(teller, reply, values)
            telling.time_part = "reply"
        else:
            telling.parts["say"] = self.say(teller, rng.choice(story.say), values)
            self.say(1 - teller, rng.choice(story.ask), values, about=teller)
            telling.parts["reply"] = self.say(teller, rng.choice(story.reply), values)
        if rng.random() < 0.7:
            self.say(1 - teller, rng.choice(REACTIONS), about=teller)
        self.traits.setdefault((teller, story.trait), []).append(telling.parts["say"])

    def update(self, telling: Telling) -> None:
        rng, story, teller = self.rng, telling.story, telling.teller
        self.say(1 - teller, rng.choice(story.later_ask), telling.values, about=teller)
        telling.parts["update"] = self.say(teller, rng.choice(story.update), telling.values)
        if rng.random() < 0.6:
            self.say(1 - teller, rng.choice(REACTIONS), about=teller)

    # Questions

    def ask_later(
        self,
        category: str,
        options: tuple[str, ...],
        teller: int,
        values: dict[str, str],
        gold: tuple[int, ...],
    ) -> None:
        if options and not self.repeats.intersection(gold):
            text = fill(self.rng.choice(options), self.people[teller].fields() | values)
            self.candidates[category].append((text, gold))

    def story_questions(self, telling: Telling) -> None:
        story, parts, teller, values = telling.story, telling.parts, telling.teller, telling.values
        for question, part in story.single:
            if part in parts:
                self.ask_later("single-hop", (question,), teller, values, (parts[part],))
        time_gold = (parts[telling.time_part],)
        if telling.time_part != "say":
            time_gold += (parts["say"],)
        self.ask_later("temporal", story.when, teller, values, time_gold)
        for question, joined in story.multi:
            wanted = joined.split("+")
            if all(part in parts for part in wanted):
                gold = tuple(parts[part] for part in wanted)
                self.ask_later("multi-hop", (question,), teller, values, gold)

    def questions(self, tellings: list[Telling]) -> None:
        told: dict[tuple[int, str], list[Telling]] = {}
        for telling in tellings:
            told.setdefault((telling.teller, telling.story.key), []).append(telling)
            self.story_questions(telling)
        for (teller, _), group in told.items():
            story = group[0].story
            if story.repeat and len(group) > 1:
                gold = tuple(t.parts["say"] for t in group)
                self.ask_later("multi-hop", story.repeat, teller, {}, gold)
        for (teller, trait), positions in self.traits.items():
            if trait in TRAIT_QUESTIONS and len(positions) <= 3:
                options = TRAIT_QUESTIONS[trait]
                self.ask_later("open-domain", options, teller, {}, tuple(positions))
        for category, wanted in QUESTIONS_EACH.items():
            found = self.candidates[category]
            for text, gold in self.rng.sample(found, min(wanted, len(found))):
                self.out.questions.append(
                    ChatQuestion(category, text, self.project, gold, self.held_out)
                )
