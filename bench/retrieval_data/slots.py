"""Drawing values for a template's slots and writing the template out with them."""

import random
import re
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import Final

from .artifacts import CASES, COMMANDS, DIRECTORIES, ERROR_KINDS, ERRORS, FILES, FLAGS, KEYS
from .libraries import ALL_LIBRARIES, CATEGORY_OF, LIBRARIES
from .vocab import COMPONENTS, ENVIRONMENTS, PEOPLE, TEAMS, Term

SLOT: Final = re.compile(r"\{([a-z]+)(\d?)(:p)?\}")
TERMS: Final[dict[str, tuple[Term, ...]]] = {
    "comp": COMPONENTS,
    "person": PEOPLE,
    "speaker": PEOPLE,
    "team": TEAMS,
    "env": ENVIRONMENTS,
    "err": ERRORS,
    "case": CASES,
    "key": KEYS,
    "flag": FLAGS,
    "cmd": COMMANDS,
    "lib": ALL_LIBRARIES,
    **LIBRARIES,
    **ERROR_KINDS,
}
TICKET_PREFIXES: Final = (
    "PAY",
    "AUTH",
    "INFRA",
    "WEB",
    "OPS",
    "DATA",
    "MOB",
    "SEC",
    "CORE",
    "BILL",
)
SLO_TARGETS: Final = ("99", "99.5", "99.9", "99.95")

Value = Term | str
Values = dict[str, Value]


def family(slot: str) -> str:
    """What a slot's value is, for telling notes apart: `{db}` holds a `lib`, `{dberr}` an `err`."""
    base = slot.rstrip("0123456789")
    return "lib" if base in LIBRARIES else "err" if base in ERROR_KINDS else base


def paraphrased_slots(text: str) -> list[str]:
    """The slots a text asks to paraphrase (`{slot:p}`), in order."""
    return list(dict.fromkeys(m.group(1) + m.group(2) for m in SLOT.finditer(text) if m.group(3)))


def slot_names(texts: Iterable[str]) -> list[str]:
    """The slots of some texts, first ones (no digit) before their numbered companions."""
    found = dict.fromkeys(m.group(1) + m.group(2) for text in texts for m in SLOT.finditer(text))
    return sorted(found, key=lambda name: name[-1].isdigit())


def draw(names: Iterable[str], rng: random.Random, day: date, keep: Mapping[str, Value]) -> Values:
    """A value for each slot name, keeping those in `keep`; values of one family differ."""
    values: Values = {}
    for name in names:
        if name in keep:
            values[name] = keep[name]
            continue
        base = name.rstrip("0123456789")
        if base == "file":
            values[name] = _file(rng)
        elif base in TERMS:
            pool = TERMS[base]
            first = values.get(base)
            if base == "lib" and name != base and isinstance(first, Term):
                pool = LIBRARIES[CATEGORY_OF[first.name]]  # "from X to Y" within one kind
            taken = {value for value in values.values() if isinstance(value, Term)}
            values[name] = rng.choice([term for term in pool if term not in taken])
        else:
            values[name] = _number(base, name != base, rng, day)
    return values


def _file(rng: random.Random) -> Term:
    stem = rng.choice(FILES)
    return Term(f"{rng.choice(DIRECTORIES)}/{stem.name}", stem.paraphrases, stem.name)


def _number(base: str, second: bool, rng: random.Random, day: date) -> str:
    if base == "date":
        offset = rng.randint(14, 90) if second else -rng.randint(0, 20)
        return (day + timedelta(days=offset)).isoformat()
    if base == "ver":
        return f"{rng.randint(1, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 20)}"
    if base == "ticket":
        return f"{rng.choice(TICKET_PREFIXES)}-{rng.randint(100, 9999)}"
    if base == "ms":
        return str(rng.randrange(50, 5000, 10))
    if base == "pct":
        return str(rng.randint(1, 40))
    if base == "slo":
        return rng.choice(SLO_TARGETS)
    if base == "n":
        return str(rng.randint(2, 60))
    raise ValueError(f"unknown slot {base!r}")


def render(
    text: str, values: Mapping[str, Value], rng: random.Random, literal: Iterable[str] = ()
) -> str:
    """The text with each `{slot}` replaced by its value and `{slot:p}` by a paraphrase
    (by its value, as saved, for the slots named in `literal`)."""
    kept = frozenset(literal)

    def replace(match: re.Match[str]) -> str:
        name = match.group(1) + match.group(2)
        value = values[name]
        if isinstance(value, str):
            return value
        if match.group(3) and value.paraphrases and name not in kept:
            return rng.choice(value.paraphrases)
        return value.name

    return SLOT.sub(replace, text)


def features(values: Mapping[str, Value], names: Iterable[str] | None = None) -> set[str]:
    """`family=value` for the named (default: all) slots that hold a term or a ticket."""
    chosen = values if names is None else names
    found = set()
    for name in chosen:
        value = values[name]
        if isinstance(value, Term):
            found.add(f"{family(name)}={value.name}")
        elif name.startswith("ticket"):
            found.add(f"ticket={value}")
    return found


def keyword(value: Value) -> str:
    return value if isinstance(value, str) else value.keyword


def text_of(value: Value) -> str:
    return value if isinstance(value, str) else value.name
