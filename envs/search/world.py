"""A procedurally generated encyclopedia of a fictional world: every fact a triple.

No answer about this world can come from pretraining: the people, places, organisations and
events are invented from a seed, and every fact the articles state is stored as a `Triple`,
so every question generated from the triples is checkable.

What the articles do, on purpose:

* They cite each other by title (a person's article names the city they were born in, the
  organisation they belonged to; "See also" lines list related titles).
* Some facts appear in two articles in different words (a founder's article says "In 1790,
  X founded Y"; the organisation's says "founded in 1790 by X"; a capital's article and its
  country's both state the capital).
* Some people are distractors: another person whose surname differs by one letter, with
  facts of their own, so a search for one also finds the other.
* Some facts are missing (a person's birth year is not recorded anywhere), so "not stated in
  the corpus" is a real answer.

The same seed and size give the same world in any process: names, facts and wording are
drawn from ``numpy.random.SeedSequence([seed, size, stream])`` streams.
"""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from collections.abc import Callable

import numpy as np

WORLD_VERSION = 0
"""Bumped whenever generation changes, so cached indexes of older worlds are not reused."""
SHIPPED_SEED = 0
SHIPPED_ARTICLES = 3_000
"""The size of the world shipped with the package (generated at first use)."""

KINDS = ("person", "city", "country", "organisation", "event")
_SHARE = {"country": 0.01, "city": 0.15, "organisation": 0.15, "event": 0.12}
MISSING_BIRTH_YEAR = 0.1
"""Share of people whose birth year no article states."""
DISTRACTOR_SHARE = 0.08
"""Share of people who get a near-namesake (one letter of the surname changed)."""

RELATIONS = {
    # relation: (subject kind, object kind or "literal")
    "born": ("person", "literal"),
    "birthplace": ("person", "city"),
    "occupation": ("person", "literal"),
    "member_of": ("person", "organisation"),
    "country": ("city", "country"),
    "founded": ("city", "literal"),
    "population": ("city", "literal"),
    "capital": ("country", "city"),
    "org_founded": ("organisation", "literal"),
    "headquarters": ("organisation", "city"),
    "founder": ("organisation", "person"),
    "year": ("event", "literal"),
    "location": ("event", "city"),
    "organiser": ("event", "organisation"),
}

_ONSETS = "b br c d dr f g gr h k l m n p r s st t th v w z".split()
_VOWELS = "a e i o u a e o ai ei".split()
_CODAS = ["", "", "", "n", "r", "l", "s", "th", "m", "nd", "rk"]
_SURNAME_ENDS = "ley wick mont dale ford crest vane holt mere by".split()
_CITY_ENDS = "mar holm gard ven bury stead port mouth wick".split()
_COUNTRY_ENDS = "ia land ar esh ovia".split()
_ORG_KINDS = "Guild Company Society Institute Order League Academy Bank".split()
_ORG_ADJECTIVES = "Royal Free Northern Silver Grand United Ancient Eastern".split()
_EVENT_KINDS = "Siege Treaty Council Fair Flood Battle Accord Festival".split()
OCCUPATIONS = (
    "cartographer glassblower astronomer shipwright weaver archivist brewer clockmaker "
    "physician poet merchant engineer botanist sculptor judge"
).split()
_TOPICS = (
    "river trade, tidal charts, the old calendars, bridge building, the salt routes, "
    "lens grinding, the winter markets, copper coinage, herbal remedies, harbour law"
).split(", ")


@dataclasses.dataclass(frozen=True)
class Entity:
    """A person, place, organisation or event of the world.

    Attributes:
        id: A stable id (``"person:17"``).
        kind: One of `KINDS`.
        name: Its name, which is also its article's title (unique in the world).
    """

    id: str
    kind: str
    name: str


@dataclasses.dataclass(frozen=True)
class Triple:
    """One fact: ``subject relation object``.

    Attributes:
        subject: An entity id.
        relation: A key of `RELATIONS`.
        object: An entity id, or a literal (a year, a number, a word).
    """

    subject: str
    relation: str
    object: str | int


@dataclasses.dataclass(frozen=True)
class Article:
    """One encyclopedia article.

    Attributes:
        doc_id: Its id in the corpus (``"w00017"``).
        title: The title (its entity's name).
        text: Paragraphs separated by blank lines.
        entity: The id of the entity it describes.
    """

    doc_id: str
    title: str
    text: str
    entity: str


class World:
    """Entities, facts and articles, with the lookups question generation needs.

    Args:
        entities: Every entity.
        triples: Every fact.
        articles: One article per entity, in entity order.
        seed: The seed it was generated from.
    """

    def __init__(
        self, entities: list[Entity], triples: list[Triple], articles: list[Article], seed: int
    ):
        self.entities = {e.id: e for e in entities}
        self.triples = triples
        self.articles = articles
        self.seed = seed
        self.facts: dict[tuple[str, str], str | int] = {}
        self.inverse: dict[tuple[str, str], list[str]] = defaultdict(list)
        for t in triples:
            self.facts[(t.subject, t.relation)] = t.object
            if isinstance(t.object, str) and t.object in self.entities:
                self.inverse[(t.object, t.relation)].append(t.subject)
        self.by_kind: dict[str, list[str]] = defaultdict(list)
        for e in entities:
            self.by_kind[e.kind].append(e.id)
        self.article_of = {a.entity: a for a in articles}

    def name(self, entity_id: str) -> str:
        """The name of an entity."""
        return self.entities[entity_id].name

    def fact(self, subject: str, relation: str) -> str | int | None:
        """The object of ``subject relation ?``, or None when the world does not state it."""
        return self.facts.get((subject, relation))

    def members(self, organisation: str) -> list[str]:
        """The people who belong to an organisation."""
        return self.inverse[(organisation, "member_of")]

    @functools.cached_property
    def names(self) -> frozenset[str]:
        """Every entity name."""
        return frozenset(e.name for e in self.entities.values())

    @functools.cached_property
    def kind_of_name(self) -> dict[str, str]:
        """The kind of the entity with each name."""
        return {e.name: e.kind for e in self.entities.values()}


class _Draws:
    """Uniform draws from a seeded stream, taken from numpy in blocks.

    A world of 100,000 articles takes millions of small draws; one numpy call per draw
    would spend most of the generation time in call overhead.
    """

    def __init__(self, seed: int, size: int, purpose: str):
        # One independent stream per purpose, so adding draws to one never shifts another.
        tag = int.from_bytes(purpose.encode(), "little") % (1 << 32)
        self._rng = np.random.default_rng(np.random.SeedSequence([seed, size, tag]))
        self._block: list[float] = []

    def random(self) -> float:
        """A float in [0, 1)."""
        if not self._block:
            self._block = self._rng.random(4096).tolist()[::-1]
        return self._block.pop()

    def below(self, n: int) -> int:
        """An integer in [0, n)."""
        return int(self.random() * n)

    def between(self, low: int, high: int) -> int:
        """An integer in [low, high)."""
        return low + self.below(high - low)


def _stream(seed: int, size: int, purpose: str) -> _Draws:
    return _Draws(seed, size, purpose)


def _pick(rng: _Draws, items: list[str] | tuple[str, ...]) -> str:
    return items[rng.below(len(items))]


def _syllables(rng: _Draws, count: int) -> str:
    return "".join(
        _pick(rng, _ONSETS) + _pick(rng, _VOWELS) + _pick(rng, _CODAS) for _ in range(count)
    )


class _Names:
    """Draws names that are unique across the whole world."""

    def __init__(self, rng: _Draws):
        self.rng = rng
        self.taken: set[str] = set()

    def unique(self, draw: Callable[[], str]) -> str:
        while True:
            name = draw()
            if name not in self.taken:
                self.taken.add(name)
                return name

    def person(self) -> str:
        rng = self.rng
        return self.unique(
            lambda: (
                f"{_syllables(rng, 2).capitalize()} "
                f"{(_syllables(rng, 1) + _pick(rng, _SURNAME_ENDS)).capitalize()}"
            )
        )

    def city(self) -> str:
        rng = self.rng
        # Two syllables mostly: one-syllable stems alone run out in a 100,000-article world.
        return self.unique(
            lambda: (
                _syllables(rng, 1 + (rng.random() < 0.7)) + _pick(rng, _CITY_ENDS)
            ).capitalize()
        )

    def country(self) -> str:
        rng = self.rng
        return self.unique(lambda: (_syllables(rng, 2) + _pick(rng, _COUNTRY_ENDS)).capitalize())

    def organisation(self) -> str:
        rng = self.rng
        return self.unique(
            lambda: (
                f"{_pick(rng, _ORG_ADJECTIVES)} {_syllables(rng, 2).capitalize()} "
                f"{_pick(rng, _ORG_KINDS)}"
            )
        )

    def event(self, city: str) -> str:
        rng = self.rng
        return self.unique(lambda: f"{_pick(rng, _EVENT_KINDS)} of {city}")

    def near(self, name: str) -> str | None:
        """A name one vowel away from ``name``'s surname, if one is free."""
        first, surname = name.split(" ", 1)
        for index, char in enumerate(surname):
            if char in "aeiou":
                for vowel in "aeiou":
                    candidate = f"{first} {surname[:index]}{vowel}{surname[index + 1 :]}"
                    if vowel != char and candidate not in self.taken:
                        self.taken.add(candidate)
                        return candidate
        return None


def _counts(articles: int) -> dict[str, int]:
    counts = {kind: max(2, round(articles * share)) for kind, share in _SHARE.items()}
    counts["person"] = articles - sum(counts.values())
    if counts["person"] < 8:
        raise ValueError(f"a world needs at least 50 articles, got {articles}")
    return counts


def _a(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def _listing(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " and " + names[-1]


@functools.lru_cache(maxsize=4)
def generate_world(seed: int = SHIPPED_SEED, articles: int = SHIPPED_ARTICLES) -> World:
    """Generates the world of ``articles`` articles from ``seed`` (cached per process).

    Raises:
        ValueError: ``articles`` is below 50 or ``seed`` is negative.
    """
    if not isinstance(articles, int) or isinstance(articles, bool) or articles < 50:
        raise ValueError(f"articles must be an integer >= 50, got {articles!r}")
    if not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    counts = _counts(articles)
    names = _Names(_stream(seed, articles, "names"))
    rng = _stream(seed, articles, "facts")
    entities: list[Entity] = []
    triples: list[Triple] = []

    def add(kind: str, name: str) -> str:
        entity = Entity(f"{kind}:{len(entities)}", kind, name)
        entities.append(entity)
        return entity.id

    countries = [add("country", names.country()) for _ in range(counts["country"])]
    cities = [add("city", names.city()) for _ in range(counts["city"])]
    for index, city in enumerate(cities):
        # Every country gets a city first, so every country has a capital in it.
        country = countries[index] if index < len(countries) else _pick(rng, countries)
        triples += [
            Triple(city, "country", country),
            Triple(city, "founded", rng.between(600, 1500)),
            Triple(city, "population", rng.between(2_000, 900_000)),
        ]
        if index < len(countries):
            triples.append(Triple(country, "capital", city))
    organisations = [
        add("organisation", names.organisation()) for _ in range(counts["organisation"])
    ]
    city_names = {e.id: e.name for e in entities if e.kind == "city"}
    events: list[str] = []
    for _ in range(counts["event"]):
        city = _pick(rng, cities)
        events.append(add("event", names.event(city_names[city])))
        triples += [
            Triple(events[-1], "year", rng.between(1500, 1950)),
            Triple(events[-1], "location", city),
            Triple(events[-1], "organiser", _pick(rng, organisations)),
        ]
    people: list[str] = []
    while len(people) < counts["person"]:
        name = names.person()
        group = [name]
        if rng.random() < DISTRACTOR_SHARE and len(people) + 1 < counts["person"]:
            near = names.near(name)
            if near is not None:
                group.append(near)
        for person_name in group:
            person = add("person", person_name)
            people.append(person)
            if rng.random() >= MISSING_BIRTH_YEAR:
                triples.append(Triple(person, "born", rng.between(1400, 1950)))
            triples += [
                Triple(person, "birthplace", _pick(rng, cities)),
                Triple(person, "occupation", _pick(rng, OCCUPATIONS)),
                Triple(person, "member_of", _pick(rng, organisations)),
            ]
    for organisation in organisations:
        triples += [
            Triple(organisation, "org_founded", rng.between(1200, 1900)),
            Triple(organisation, "headquarters", _pick(rng, cities)),
            Triple(organisation, "founder", _pick(rng, people)),
        ]
    partial = World(entities, triples, [], seed)
    text_rng = _stream(seed, articles, "text")
    written = [
        Article(f"w{index:06d}", e.name, _write(partial, e, text_rng), e.id)
        for index, e in enumerate(entities)
    ]
    return World(entities, triples, written, seed)


# --- articles ----------------------------------------------------------------------------


def _write(world: World, entity: Entity, rng: _Draws) -> str:
    writer = {
        "person": _person,
        "city": _city,
        "country": _country,
        "organisation": _organisation,
        "event": _event,
    }[entity.kind]
    return "\n\n".join(p for p in writer(world, entity.id, rng) if p)


def _see_also(world: World, ids: list[str]) -> str:
    titles = list(dict.fromkeys(world.name(i) for i in ids))
    return "See also: " + "; ".join(titles) + "."


def _person(world: World, person: str, rng: _Draws) -> list[str]:
    name = world.name(person)
    city = world.fact(person, "birthplace")
    org = world.fact(person, "member_of")
    born = world.fact(person, "born")
    job = world.fact(person, "occupation")
    country = world.fact(city, "country")
    if born is None:
        first = f"{name} was {_a(job)} from {world.name(city)}, a city in {world.name(country)}."
    elif rng.random() < 0.5:
        first = f"{name} (born {born} in {world.name(city)}) was {_a(job)}."
    else:
        first = f"{name} was {_a(job)}, born in {born} in the city of {world.name(city)}."
    second = f"{name} was a member of the {world.name(org)}."
    founded = world.inverse[(person, "founder")]
    if founded:
        # The same fact as in the organisation's article, in other words.
        second += " " + " ".join(
            f"In {world.fact(o, 'org_founded')}, {name} founded the {world.name(o)}."
            for o in founded
        )
    third = f"{name.split(' ')[0]} is remembered for work on {_pick(rng, _TOPICS)}."
    return [first, second, third, _see_also(world, [city, org, *founded])]


def _city(world: World, city: str, rng: _Draws) -> list[str]:
    name = world.name(city)
    country = world.fact(city, "country")
    first = (
        f"{name} is a city in {world.name(country)}, founded in {world.fact(city, 'founded')}. "
        f"It has a population of {world.fact(city, 'population')}."
    )
    if world.fact(country, "capital") == city:
        first += f" {name} is the capital of {world.name(country)}."
    natives = world.inverse[(city, "birthplace")][:6]
    second = (
        f"People born in {name} include {_listing([world.name(p) for p in natives])}."
        if natives
        else ""
    )
    based = world.inverse[(city, "headquarters")][:4]
    third = (
        f"Organisations with their headquarters here: {_listing([world.name(o) for o in based])}."
        if based
        else ""
    )
    return [first, second, third, _see_also(world, [country, *natives[:3]])]


def _country(world: World, country: str, rng: _Draws) -> list[str]:
    name = world.name(country)
    capital = world.fact(country, "capital")
    cities = world.inverse[(country, "country")]
    first = f"{name} is a country. Its capital is {world.name(capital)}."
    others = [c for c in cities if c != capital][:8]
    second = (
        f"Other cities of {name}: {_listing([world.name(c) for c in others])}." if others else ""
    )
    return [first, second, _see_also(world, [capital, *others[:3]])]


def _organisation(world: World, org: str, rng: _Draws) -> list[str]:
    name = world.name(org)
    founder = world.fact(org, "founder")
    city = world.fact(org, "headquarters")
    first = (
        f"The {name} is an organisation founded in {world.fact(org, 'org_founded')} by "
        f"{world.name(founder)}. Its headquarters are in {world.name(city)}."
    )
    members = world.members(org)
    if members:
        second = f"Members in the records: {_listing([world.name(p) for p in members])}."
    else:
        second = "The records list no members."
    events = world.inverse[(org, "organiser")]
    third = f"It organised the {_listing([world.name(e) for e in events])}." if events else ""
    return [first, second, third, _see_also(world, [founder, city])]


def _event(world: World, event: str, rng: _Draws) -> list[str]:
    name = world.name(event)
    city = world.fact(event, "location")
    org = world.fact(event, "organiser")
    first = (
        f"The {name} took place in {world.name(city)} in {world.fact(event, 'year')}. "
        f"It was organised by the {world.name(org)}."
    )
    return [first, _see_also(world, [city, org])]
