"""Chat turns from team meetings and the questions people ask about them later.

Each turn is one memory: who said what, in which meeting, on which day. A line is about one
of its slots (`topic`); `who` completes "who ... ?". Replies pick up the previous turn's topic,
so "what did A and B say about X?" has two turns as its answer.
"""

# ruff: noqa: E501  (a table keeps one term or line per row, however long)

from dataclasses import dataclass
from datetime import date
from typing import Final

from .slots import Value, family


@dataclass(frozen=True, slots=True)
class ChatLine:
    id: str
    text: str
    topic: str
    who: str = ""  # empty for replies

    @property
    def reply(self) -> bool:
        return not self.who


MEETINGS: Final = (
    "standup", "retro", "sprint planning", "incident review", "design review", "pairing session",
    "on-call handover", "architecture review", "release planning", "demo",
)  # fmt: skip

LINES: Final = (
    ChatLine("l01", "I looked at {case}: it only fails when {db} is slow to start, not because of our code.", "case", "looked into why {case} fails"),
    ChatLine("l02", "Let's pin {lib} to {ver} until they fix the {err} regression.", "lib", "wanted to pin {lib}"),
    ChatLine("l03", "{comp} p99 went from {ms} ms to {ms2} ms after the last deploy.", "comp", "said {comp} got slower after the deploy"),
    ChatLine("l04", "I can take {ticket}; I'll pair with {person} on it.", "ticket", "offered to take {ticket}"),
    ChatLine("l05", "We should move {comp} off {lib} before the contract renews.", "comp", "suggested moving {comp} off {lib}"),
    ChatLine("l06", "The flaky {case} is back, three red builds this morning.", "case", "complained that {case} is flaky again"),
    ChatLine("l07", "I'd rather not add {lib} just for this; {lib2} already does it.", "lib", "argued against adding {lib}"),
    ChatLine("l08", "Heads-up: {key} changes its default next sprint, check your services.", "key", "warned that {key} is changing"),
    ChatLine("l09", "Seeing {err} again in the {comp} logs, I think it's the {lib} upgrade.", "err", "blamed the {lib} upgrade for {err}"),
    ChatLine("l10", "Can someone review my PR for {file}? It's blocking the {comp} release.", "file", "asked for a review of {file}"),
    ChatLine("l11", "I benchmarked {lib} against {lib2}; {lib2} is about {n}x faster for our payloads.", "lib", "benchmarked {lib} against {lib2}"),
    ChatLine("l12", "I'll write the postmortem for the {comp} outage by Friday.", "comp", "volunteered to write the {comp} postmortem"),
    ChatLine("l13", "We agreed: no more direct writes to {db} from {comp}, everything goes through the API.", "db", "said {comp} must stop writing to {db} directly"),
    ChatLine("l14", "My vote is to drop support for {lib} {ver} in {comp}.", "lib", "voted to drop {lib} {ver}"),
    ChatLine("l15", "I reproduced {codeerr} locally with {case}, it's a race in {file}.", "codeerr", "reproduced {codeerr} locally"),
    ChatLine("l16", "The {obs} alert for {comp} fired {n} times overnight, all false positives.", "comp", "said the {comp} alert in {obs} was noisy"),
    ChatLine("l17", "Customers of {comp} are hitting {httperr} since Monday, support has {n} tickets.", "httperr", "reported customers of {comp} hitting {httperr}"),
    ChatLine("l18", "I'd like {person} to own {comp} from next quarter.", "comp", "proposed a new owner for {comp}"),
    ChatLine("l19", "Can we bump {key} to {n} for {comp}? The queue backs up every evening.", "key", "asked to raise {key} for {comp}"),
    ChatLine("l20", "Moving {comp} to {infra} is done in staging, production next week.", "comp", "finished moving {comp} to {infra} in staging"),
    ChatLine("l21", "{vendor} changed their webhook format again, {comp} is dropping events.", "vendor", "noticed {vendor} changed its webhook format"),
    ChatLine("l22", "I want {cache} in front of {comp}; the same lookups run {n} times per page.", "cache", "wanted {cache} in front of {comp}"),
)  # fmt: skip

REPLIES: Final = (
    ChatLine("r1", "Agree with {person} on {topic}, but we need a rollback plan first.", "topic"),
    ChatLine(
        "r2", "I don't think {topic} is the real problem, {person}; look at {comp2} first.", "topic"
    ),
    ChatLine("r3", "Same here with {topic}: it started after the {date} release.", "topic"),
    ChatLine("r4", "+1 to {person}. I can help with {topic} this week.", "topic"),
    ChatLine("r5", "Do we have a ticket for {topic}? I'll open one if not, {person}.", "topic"),
    ChatLine("r6", "For {topic}, let's time-box it to {n} days and then decide.", "topic"),
)

SPEAKER_QUESTIONS: Final = (
    "what did {speaker} say about {topic} {when}?",
    "what was {speaker}'s take on {topic} {when}?",
    "when did {speaker} bring up {topic}?",
    "{speaker} mentioned {topic} in a {meeting}, what was it?",
    "what did {speaker} tell us about {topic} {when}?",
)
WHO_QUESTIONS: Final = ("who {who} {when}?", "which of us {who} in the {meeting}?")
PAIR_QUESTIONS: Final = (
    "what did {speaker} and {speaker2} say about {topic} {when}?",
    "how did {speaker} and {speaker2} discuss {topic} in the {team} {meeting}?",
)


def topic_phrase(slot: str, value: Value) -> str:
    """How people name a line's topic: "the login redirect test", "the ECONNRESET errors"."""
    kind = family(slot)
    if isinstance(value, str):
        return value
    if kind == "case":
        return "the " + value.name.removeprefix("test_").replace("_", " ") + " test"
    if kind == "err":
        return f"the {value.keyword} errors"
    if kind == "comp":
        return f"the {value.name}"
    if kind == "file":
        return value.keyword
    return value.name


def when_phrase(day: date, today: date, meeting: str, pick: int) -> str:
    """A natural pointer to a day, relative to today: "yesterday", "last week", "on Nov 3"."""
    ago = (today - day).days
    if pick == 0:
        return f"in the {meeting} on {day:%B} {day.day}"
    if ago <= 1:
        return "today" if ago == 0 else "yesterday"
    if ago < 7:
        return f"on {day:%A}"
    if ago < 14:
        return "last week"
    if ago < 28:
        return f"{ago // 7} weeks ago" if pick == 1 else f"in {day:%B}"
    return f"in {day:%B}"
