"""How well a save's "Similar to" line finds planted duplicates, on the real store code.

Each pair of bench/dedup_pairs.jsonl (bench/dedup_data.py) gets a project of its own in a new
SQLite store: its first note is saved with the store's save_memory, then the second is looked
up with store/search's similar_memories, as a save's answer does. A pair is called similar
when the first note comes back at the threshold. Prints precision and recall at the default
threshold and a sweep, and the cost of the lookup per save (ms). Words only: the semantic
model is off, as in the tests.

With --cost N it measures instead what the lookup adds to a save in a project that already
holds N memories (random sentences of the pairs' words): each pair's second note is saved with
save_memory, and the lookup a save's answer runs is timed beside the save itself.

    .venv/bin/python bench/dedup.py
    .venv/bin/python bench/dedup.py --cost 5000
"""

import argparse
import random
import tempfile
import time
from pathlib import Path
from statistics import median, quantiles

from dedup_data import read_pairs
from retrieval import print_command
from sqlmodel import Session

from aletheia_hub.store import memories
from aletheia_hub.store.db import Database
from aletheia_hub.store.migrate import upgrade_to_head
from aletheia_hub.store.search import SearchService, similar_memories
from aletheia_hub.store.search.similar import DEFAULT_THRESHOLD

SWEEP = (0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)


def scores(store: Path) -> tuple[list[tuple[bool, float, str]], list[float]]:
    """Each pair's label, the first note's score for the second (0: not found) and kind; and
    the milliseconds each lookup took."""
    db = Database(f"sqlite:///{store}")
    upgrade_to_head(db.engine)
    found: list[tuple[bool, float, str]] = []
    took: list[float] = []
    try:
        with SearchService() as service, Session(db.engine) as session:
            for index, pair in enumerate(read_pairs()):
                first, second = pair["first"], pair["second"]
                assert isinstance(first, dict) and isinstance(second, dict)
                project = f"pair-{index}"
                saved = memories.save_memory(
                    session=session,
                    project=project,
                    text=first["text"],
                    title=first["title"],
                    type="note",
                    kind="note",
                    tool="bench",
                    pinned=False,
                )
                session.commit()
                start = time.perf_counter()
                similar = similar_memories(
                    session=session,
                    service=service,
                    project=project,
                    owner=None,
                    title=second["title"],
                    text=second["text"],
                    threshold=0.0,
                )
                took.append((time.perf_counter() - start) * 1000)
                score = next((s.score for s in similar if s.id == saved.id), 0.0)
                found.append((bool(pair["duplicate"]), score, str(pair["kind"])))
    finally:
        db.dispose()
    return found, took


def rates(found: list[tuple[bool, float, str]], threshold: float) -> tuple[float, float]:
    called = [label for label, score, _ in found if score >= threshold]
    true = sum(called)
    precision = true / len(called) if called else 1.0
    recall = true / sum(label for label, _, _ in found)
    return precision, recall


def save_cost(store: Path, filler: int) -> tuple[list[float], list[float]]:
    """The milliseconds of each save into a project of `filler` memories, and of the lookup
    its answer adds."""
    db = Database(f"sqlite:///{store}")
    upgrade_to_head(db.engine)
    pairs = read_pairs()
    words = sorted(
        {
            word
            for pair in pairs
            for note in (pair["first"], pair["second"])
            if isinstance(note, dict)
            for word in str(note["text"]).split()
        }
    )
    pick = random.Random(46)
    saves: list[float] = []
    lookups: list[float] = []
    try:
        with SearchService() as service, Session(db.engine) as session:
            for index in range(filler):
                text = " ".join(pick.choices(words, k=pick.randint(12, 30)))
                memories.save_memory(
                    session=session,
                    project="big",
                    text=f"{text} ({index})",
                    title=None,
                    type="note",
                    kind="note",
                    tool="bench",
                    pinned=False,
                )
                if index % 500 == 499:
                    session.commit()
            session.commit()
            for pair in pairs:
                second = pair["second"]
                assert isinstance(second, dict)
                start = time.perf_counter()
                saved = memories.save_memory(
                    session=session,
                    project="big",
                    text=second["text"],
                    title=second["title"],
                    type="note",
                    kind="note",
                    tool="bench",
                    pinned=False,
                )
                middle = time.perf_counter()
                similar_memories(
                    session=session,
                    service=service,
                    project="big",
                    owner=None,
                    title=second["title"],
                    text=second["text"],
                    exclude=[saved.id],
                )
                end = time.perf_counter()
                session.commit()
                saves.append((middle - start) * 1000)
                lookups.append((end - middle) * 1000)
    finally:
        db.dispose()
    return saves, lookups


def print_cost(filler: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        saves, lookups = save_cost(Path(folder) / "cost.db", filler)
    save_cuts, lookup_cuts = quantiles(saves, n=10), quantiles(lookups, n=10)
    print(f"{len(saves)} saves into a project of {filler} memories (SQLite, words only):")
    print(f"  save alone:       median {median(saves):.2f} ms, p90 {save_cuts[8]:.2f} ms")
    print(f"  similar lookup:   median {median(lookups):.2f} ms, p90 {lookup_cuts[8]:.2f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cost",
        type=int,
        metavar="N",
        help="measure what the lookup adds to a save in a project of N memories",
    )
    args = parser.parse_args()
    print_command()
    if args.cost is not None:
        print_cost(args.cost)
        return
    with tempfile.TemporaryDirectory() as folder:
        found, took = scores(Path(folder) / "dedup.db")
    duplicates = sum(label for label, _, _ in found)
    print(f"{len(found)} pairs: {duplicates} duplicates, {len(found) - duplicates} distinct")
    precision, recall = rates(found, DEFAULT_THRESHOLD)
    print(f"default threshold {DEFAULT_THRESHOLD}: precision {precision:.3f}, recall {recall:.3f}")
    print("threshold  precision  recall")
    for threshold in SWEEP:
        precision, recall = rates(found, threshold)
        print(f"{threshold:>9.2f}  {precision:>9.3f}  {recall:>6.3f}")
    for kind in dict.fromkeys(kind for _, _, kind in found):
        kept = [score for _, score, k in found if k == kind]
        hit = sum(score >= DEFAULT_THRESHOLD for score in kept)
        print(f"  {kind:<18} called similar {hit}/{len(kept)} (median score {median(kept):.2f})")
    cuts = quantiles(took, n=100)
    print(f"lookup per save: median {median(took):.2f} ms, p99 {cuts[98]:.2f} ms")


if __name__ == "__main__":
    main()
