"""Questions generated from the world's triples, each with its gold supporting chain.

Kinds:
    ``chain``: a k-hop question following k relations from a named entity ("In what year
        was the founder of the organisation that X belonged to born?").
    ``comparison``: which of two people was born earlier.
    ``aggregation``: how many members an organisation's records list.
    ``temporal``: which of two events took place earlier.
    ``unanswerable``: a fact no article states; the answer is "not stated in the corpus".

A `Question` carries its answer's aliases and the articles that support it (``support``: the
titles a reader must find), which the oracle follows with real searches.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from palaestra.envs.search.world import World

NOT_STATED = "not stated in the corpus"
NOT_STATED_ALIASES = (NOT_STATED, "not stated", "not in the corpus")
KINDS = ("chain", "comparison", "aggregation", "temporal", "unanswerable")
_NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()

# relation -> noun phrase of the object, given the subject's phrase
_PHRASES = {
    "birthplace": "the city where {x} was born",
    "member_of": "the organisation that {x} belonged to",
    "country": "the country that {x} lies in",
    "capital": "the capital of {x}",
    "headquarters": "the city where {x} has its headquarters",
    "founder": "the founder of {x}",
    "location": "the city where {x} took place",
    "organiser": "the organiser of {x}",
}
# relation -> the question asking for its literal object
_LITERAL_QUESTIONS = {
    "born": "In what year was {x} born?",
    "occupation": "What was the occupation of {x}?",
    "population": "What is the population of {x}?",
    "founded": "In what year was {x} founded?",
    "org_founded": "In what year was {x} founded?",
    "year": "In what year did {x} take place?",
}
_OUT = {
    "person": ["birthplace", "member_of"],
    "city": ["country"],
    "country": ["capital"],
    "organisation": ["headquarters", "founder"],
    "event": ["location", "organiser"],
}
_LITERALS = {
    "person": ["born", "occupation"],
    "city": ["population", "founded"],
    "country": [],
    "organisation": ["org_founded"],
    "event": ["year"],
}


@dataclasses.dataclass(frozen=True)
class Question:
    """A question about the world.

    Attributes:
        text: The question.
        answers: Acceptable answers (the first is canonical).
        kind: One of `KINDS`.
        hops: Relations followed (1 for single-hop questions).
        support: Titles of the articles that support the answer, in reading order.
        chain: The supporting triples as ``(subject name, relation, object)``.
    """

    text: str
    answers: tuple[str, ...]
    kind: str
    hops: int
    support: tuple[str, ...]
    chain: tuple[tuple[str, str, str], ...] = ()


def _the(world: World, entity: str) -> str:
    name = world.name(entity)
    kind = world.entities[entity].kind
    return f"the {name}" if kind in ("organisation", "event") else name


def _object_text(world: World, value: str | int) -> str:
    return world.name(value) if isinstance(value, str) and value in world.entities else str(value)


def chain_question(world: World, hops: int, rng: np.random.Generator) -> Question | None:
    """A ``hops``-hop question from a random entity, or None when this walk dead-ends."""
    kind = ("person", "organisation", "event", "city")[int(rng.integers(4))]
    candidates = world.by_kind[kind]
    start = candidates[int(rng.integers(len(candidates)))]
    path, visited, current = [], {start}, start
    for hop in range(hops):
        kind = world.entities[current].kind
        last = hop == hops - 1
        options = list(_OUT[kind])
        if last:
            options += _LITERALS[kind]
        options = [r for r in options if world.fact(current, r) is not None]
        options = [r for r in options if world.fact(current, r) not in visited]
        if not options:
            return None
        relation = options[int(rng.integers(len(options)))]
        path.append((current, relation))
        current = world.fact(current, relation)
        visited.add(current)
    phrase = _the(world, start)
    for _, relation in path[:-1]:
        phrase = _PHRASES[relation].format(x=phrase)
    final = path[-1][1]
    if final in _LITERAL_QUESTIONS:
        text = _LITERAL_QUESTIONS[final].format(x=phrase)
    else:
        text = f"What is {_PHRASES[final].format(x=phrase)}?"
    text = text[0].upper() + text[1:]
    answer = _object_text(world, current)
    chain = tuple((world.name(s), r, _object_text(world, world.fact(s, r))) for s, r in path)
    support = tuple(world.name(s) for s, _ in path)
    return Question(text, (answer,), "chain", hops, support, chain)


def _two(world: World, kind: str, relation: str, rng: np.random.Generator) -> tuple[str, str]:
    pool = world.by_kind[kind]
    while True:
        a, b = (pool[int(i)] for i in rng.choice(len(pool), size=2, replace=False))
        va, vb = world.fact(a, relation), world.fact(b, relation)
        if va is not None and vb is not None and va != vb:
            return a, b


def comparison_question(world: World, rng: np.random.Generator) -> Question:
    """Which of two people was born earlier."""
    a, b = _two(world, "person", "born", rng)
    earlier = a if world.fact(a, "born") < world.fact(b, "born") else b
    chain = tuple((world.name(p), "born", str(world.fact(p, "born"))) for p in (a, b))
    text = f"Who was born earlier, {world.name(a)} or {world.name(b)}?"
    return Question(
        text, (world.name(earlier),), "comparison", 2, (world.name(a), world.name(b)), chain
    )


def temporal_question(world: World, rng: np.random.Generator) -> Question:
    """Which of two events took place earlier."""
    a, b = _two(world, "event", "year", rng)
    earlier = a if world.fact(a, "year") < world.fact(b, "year") else b
    chain = tuple((world.name(e), "year", str(world.fact(e, "year"))) for e in (a, b))
    text = f"Which took place earlier, the {world.name(a)} or the {world.name(b)}?"
    return Question(
        text, (world.name(earlier),), "temporal", 2, (world.name(a), world.name(b)), chain
    )


def aggregation_question(world: World, rng: np.random.Generator) -> Question:
    """How many members an organisation's records list."""
    pool = world.by_kind["organisation"]
    org = pool[int(rng.integers(len(pool)))]
    count = len(world.members(org))
    answers = (str(count),) + ((_NUMBER_WORDS[count],) if count < len(_NUMBER_WORDS) else ())
    text = f"How many members do the records of the {world.name(org)} list?"
    chain = tuple((world.name(p), "member_of", world.name(org)) for p in world.members(org))
    return Question(text, answers, "aggregation", 1, (world.name(org),), chain)


def unanswerable_question(world: World, rng: np.random.Generator) -> Question:
    """The birth year of a person whose birth year no article states."""
    pool = [p for p in world.by_kind["person"] if world.fact(p, "born") is None]
    person = pool[int(rng.integers(len(pool)))]
    text = f"In what year was {world.name(person)} born?"
    return Question(text, NOT_STATED_ALIASES, "unanswerable", 1, (world.name(person),))


def generate_question(world: World, level: int, kind: str, rng: np.random.Generator) -> Question:
    """A question of ``kind``; chain questions have ``level`` hops."""
    if kind == "chain":
        while True:
            question = chain_question(world, level, rng)
            if question is not None:
                return question
    makers = {
        "comparison": comparison_question,
        "temporal": temporal_question,
        "aggregation": aggregation_question,
        "unanswerable": unanswerable_question,
    }
    return makers[kind](world, rng)
