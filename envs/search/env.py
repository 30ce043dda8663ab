"""Search QA: answer questions about a fictional world by searching its encyclopedia.

The task:
    A question generated from the triples of a procedurally generated world (see
    `palaestra.envs.search.world`), so the answer cannot come from pretraining: single-hop
    and k-hop questions (k = ``level``), comparisons, counts, "which came first", and
    questions the corpus does not answer (answer: "not stated in the corpus"). Each
    question has its gold supporting chain (``info["support"]``, ``info["chain"]``).

Observation:
    The question and how to search; then the results of each search (``protocol="tags"``:
    Search-R1's ``<information>...</information>`` blocks; ``protocol="tools"``: one tool
    message per call of ``search``, ``open`` or ``find``). Text from the backend is escaped
    (``<`` and ``>`` become ``&lt;`` and ``&gt;``), so neither a document nor a query echoed
    back can open, close or forge a tag. Each observation is capped at ``max_output_chars``.

Action:
    ``protocol="tags"`` (Search-R1): ``<search>query</search>`` to search, or
    ``<answer>...</answer>`` to answer. ``protocol="tools"``: native ``tool_calls`` or Hermes
    ``<tool_call>`` calls of ``search(query, k)``, ``open(doc, page)`` and ``find(text)``,
    then a turn without calls holding ``<answer>...</answer>``.

Reward (``info["reward_parts"]``):
    ``outcome``: exact match (``reward="em"``) or token F1 (``reward="f1"``) after SQuAD
    normalisation, against any accepted alias. A hedged answer ("maybe X", conflicting
    answer tags) or a list of candidates (two entity names, "X or Y", "X, Y") scores 0.
    ``provenance``: ``provenance_bonus`` when the answer is right and its text appears in a
    document the env returned in this episode (never in text the policy wrote, including
    ``<information>`` blocks it writes itself).
    ``tool``: 0 per search turn (the call budget caps searching).
    ``invalid``: `INVALID_ACTION_PENALTY` for a turn that neither searches nor answers
    (tags) or whose every call failed (tools).

Episode end:
    Terminated by the answer; truncated when searches continue past ``max_tool_calls`` (or
    by `TurnLimit`). A backend failure (timeout, 5xx, connection refused, after retries)
    truncates the episode with ``info["status"] = "error"`` and ``info["mask"] = True``.

Arguments:
    level: Hops of chain questions (1-4); level 1 asks single-hop and unanswerable
        questions only.
    kinds: Question kinds to draw from (default: all the level allows).
    protocol: ``"tags"`` or ``"tools"``.
    backend: ``"local"`` (BM25 index in process), ``"retrieval"`` (a Search-R1 server at
        ``url``) or ``"web"`` (a web-search API at ``url``; ``palaestra search serve``
        serves one at ``/api/search``).
    url: The server for the HTTP backends.
    articles: Size of the generated world (3,000 ships; larger ones are generated).
    world_seed: Seed of the generated world.
    k: Results per search in the tags protocol, and the default of the ``search`` tool.
    reward: ``"em"`` or ``"f1"``.
    provenance_bonus: Reward added for a right answer found in returned documents.
    max_tool_calls: Searches (and opens, finds) per episode.
    max_calls_per_turn: Calls run per turn.
    max_output_chars: Characters of one observation.
    page_chars: Characters per page of an opened document.
    timeout_s: Seconds per HTTP request.
    retries: Retries of a failed HTTP request.
    questions: A JSONL file of your own NQ/HotpotQA-style questions (see
        `palaestra.envs.search.loaders`) to ask instead of generated ones.
    corpus: A JSONL corpus to search with the local backend (with ``questions``).

Version history:
    v0: first version.
"""

from __future__ import annotations

import functools
import json
import os
import re
from pathlib import Path
from typing import Any

from palaestra.core import INVALID_ACTION_PENALTY, Message, Step, user
from palaestra.envs.search.backends import (
    DEFAULT_PAGE_CHARS,
    Document,
    Hit,
    LocalIndex,
    SearchBackend,
    paginate,
)
from palaestra.envs.search.loaders import load_corpus, load_questions
from palaestra.envs.search.questions import (
    KINDS,
    NOT_STATED,
    Question,
    generate_question,
)
from palaestra.envs.search.world import (
    OCCUPATIONS,
    SHIPPED_ARTICLES,
    SHIPPED_SEED,
    WORLD_VERSION,
    World,
    generate_world,
)
from palaestra.parsers import ParsedAction, XMLTagParser
from palaestra.tools import Tool, ToolEnv, tool
from palaestra.verdict import Status, Verdict
from palaestra.verifiers.extract import ExtractionConfig, extract_answer
from palaestra.verifiers.text import normalize_answer, token_f1

PROTOCOLS = ("tags", "tools")
BACKENDS = ("local", "retrieval", "web")
MAX_K = 10
MAX_FIND_MATCHES = 10
UNANSWERABLE_WEIGHT = 0.5
"""Weight of unanswerable questions relative to each other kind."""

_EXTRACTION = ExtractionConfig(slots=("answer_tag",))
_HEDGE = re.compile(
    r"\b(?:either|maybe|possibly|probably|perhaps|unsure|guess|not\s+sure|or)\b", re.IGNORECASE
)
_LIST_SEPARATORS = re.compile(r"[,;/|&]|\band\b", re.IGNORECASE)


def escape(text: str) -> str:
    """Text from outside the policy, made unable to open or close a tag."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def world_cache_dir(seed: int, articles: int) -> Path:
    """Where the index of a generated world is kept: under ``$PALAESTRA_CACHE``.

    (``~/.cache/palaestra`` by default, like the tiny model's artefacts.)
    """
    configured = os.environ.get("PALAESTRA_CACHE")
    root = Path(configured).expanduser() if configured else Path.home() / ".cache" / "palaestra"
    return root / "search" / f"world-v{WORLD_VERSION}-seed{seed}-n{articles}"


@functools.lru_cache(maxsize=4)
def world_index(seed: int = SHIPPED_SEED, articles: int = SHIPPED_ARTICLES) -> LocalIndex:
    """The BM25 index of a generated world, built at first use and kept on disk."""
    world = generate_world(seed, articles)
    documents = [Document(a.doc_id, a.title, a.text) for a in world.articles]
    return LocalIndex(documents, path=world_cache_dir(seed, articles) / "index")


def _entity_names_in(world: World, text: str) -> set[str]:
    """The entity names that ``text`` mentions (compared after normalisation)."""
    names, words = _normalized_names(world), normalize_answer(text).split()
    found = set()
    for size in range(1, 5):  # the longest names have four words
        for start in range(len(words) - size + 1):
            candidate = " ".join(words[start : start + size])
            if candidate in names:
                found.add(candidate)
    return found


@functools.lru_cache(maxsize=4)
def _normalized_names(world: World) -> frozenset[str]:
    return frozenset(normalize_answer(n) for n in world.names)


def listed_or_hedged(answer: str, aliases: tuple[str, ...], world: World | None) -> str | None:
    """Why ``answer`` hedges or lists candidates, or None when it commits to one answer.

    An answer hedges when it has a hedging word ("maybe", "or", ...), lists when it joins
    parts with commas, slashes or "and", or names more of the world's entities than the
    reference does; unless the reference itself does the same.
    """
    reference = aliases[0]
    if _HEDGE.search(answer) and not _HEDGE.search(reference):
        return "the answer hedges between alternatives"
    if _LIST_SEPARATORS.search(answer) and not _LIST_SEPARATORS.search(reference):
        return "the answer lists several candidates"
    if world is not None:
        named = _entity_names_in(world, answer)
        if len(named) > max(1, len(_entity_names_in(world, reference))):
            return f"the answer names {len(named)} entities"
    return None


class SearchEnv(ToolEnv):
    """Questions about a generated world, answered by searching it; see the module docstring."""

    invalid_action_penalty = INVALID_ACTION_PENALTY

    def __init__(
        self,
        level: int = 1,
        kinds: Any = None,
        protocol: str = "tags",
        backend: str = "local",
        url: str | None = None,
        articles: int = SHIPPED_ARTICLES,
        world_seed: int = SHIPPED_SEED,
        k: int = 3,
        reward: str = "em",
        provenance_bonus: float = 0.0,
        max_tool_calls: int = 8,
        max_calls_per_turn: int = 2,
        max_output_chars: int = 4_000,
        page_chars: int = DEFAULT_PAGE_CHARS,
        timeout_s: float = 10.0,
        retries: int = 2,
        questions: str | None = None,
        corpus: str | None = None,
    ):
        if questions is None and corpus is not None:
            raise ValueError("corpus= needs questions=: a JSONL file of questions about it")
        if questions is not None and (level != 1 or kinds is not None):
            raise ValueError("level and kinds apply to generated questions, not to questions=")
        if questions is not None and backend == "local" and corpus is None:
            raise ValueError("questions= with the local backend needs corpus=, a JSONL corpus")
        if not isinstance(level, int) or not 1 <= level <= 4:
            raise ValueError(f"level must be an integer from 1 to 4, got {level!r}")
        allowed = ("chain", "unanswerable") if level == 1 else KINDS
        kinds = tuple(allowed if kinds is None else ([kinds] if isinstance(kinds, str) else kinds))
        unknown = [kind for kind in kinds if kind not in allowed]
        if not kinds or unknown:
            raise ValueError(f"kinds must be drawn from {allowed} at level {level}, got {kinds}")
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        if backend != "local" and not url:
            raise ValueError(f"backend {backend!r} needs url=, e.g. from `palaestra search serve`")
        if not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise ValueError(f"k must be an integer from 1 to {MAX_K}, got {k!r}")
        if reward not in ("em", "f1"):
            raise ValueError(f"reward must be 'em' or 'f1', got {reward!r}")
        if not isinstance(provenance_bonus, (int, float)) or not 0 <= provenance_bonus <= 1:
            raise ValueError(f"provenance_bonus must be in [0, 1], got {provenance_bonus!r}")
        if not isinstance(max_output_chars, int) or max_output_chars < 200:
            raise ValueError(
                f"max_output_chars must be an integer >= 200, got {max_output_chars!r}"
            )
        super().__init__(max_tool_calls=max_tool_calls, max_calls_per_turn=max_calls_per_turn)
        self.level, self.kinds, self.protocol = level, kinds, protocol
        self.backend_name, self.k, self.reward = backend, k, reward
        self.provenance_bonus = float(provenance_bonus)
        self.max_output_chars, self.page_chars = max_output_chars, page_chars
        self.loaded: list[Question] = []
        if questions is None:
            self.world: World | None = generate_world(world_seed, articles)
            local = functools.partial(world_index, world_seed, articles)
        else:
            self.loaded, self.world = load_questions(questions), None
            local = functools.partial(LocalIndex, load_corpus(corpus) if corpus else [])
        self.backend = self._make_backend(backend, url, local, timeout_s, retries)
        if protocol == "tags":
            self.parser = XMLTagParser({"search": ("search", "query")}, answer_tag="answer")
            self._tools = [tool(self._search_tags, name="search", max_output_chars=10**6)]
        else:
            self._tools = [
                tool(self._search_tool, name="search", max_output_chars=10**6),
                tool(self._open_tool, name="open", max_output_chars=10**6),
                tool(self._find_tool, name="find", max_output_chars=10**6),
            ]
        self.question: Question | None = None
        self._reset_episode()

    def _make_backend(
        self,
        backend: str,
        url: str | None,
        local: Any,
        timeout_s: float,
        retries: int,
    ) -> SearchBackend:
        if backend == "local":
            return local()
        from palaestra.envs.search.http import RetrievalClient, WebSearchClient

        transport = {"timeout_s": timeout_s, "retries": retries, "backoff_s": 0.2}
        if backend == "retrieval":
            return RetrievalClient(url, page_chars=self.page_chars, **transport)
        search_url = url if url.rstrip("/").endswith("/search") else url.rstrip("/") + "/api/search"
        return WebSearchClient(search_url, page_chars=self.page_chars, **transport)

    def _reset_episode(self) -> None:
        self._returned_titles: set[str] = set()
        self._returned_text: list[str] = []
        self._opened_titles: set[str] = set()
        self._title_to_doc: dict[str, str] = {}
        self._open_doc: Document | None = None
        self._oracle_searched: set[str] = set()

    def close(self) -> None:
        """Closes the HTTP backend's connections (the local index is shared)."""
        if self.backend_name != "local":
            self.backend.close()
        super().close()

    # --- tools ---------------------------------------------------------------------------

    def available_tools(self) -> list[Tool]:
        """``search`` (tags), or ``search``, ``open`` and ``find`` (tools)."""
        return self._tools

    def _record(self, hits: list[Hit], texts: list[str]) -> None:
        for hit, text in zip(hits, texts, strict=True):
            self._returned_titles.add(hit.title)
            self._title_to_doc.setdefault(hit.title, hit.doc_id)
            self._returned_text.append(f"{hit.title}\n{text}")

    def _cap(self, text: str) -> str:
        if len(text) <= self.max_output_chars:
            return text
        return (
            text[: self.max_output_chars]
            + f" [... {len(text) - self.max_output_chars} characters cut]"
        )

    def _search_tags(self, query: str) -> str:
        """Searches the encyclopedia.

        Args:
            query: What to look for.
        """
        hits = self.backend.search(query, self.k)
        texts = [self.backend.passage(hit)[: self.page_chars] for hit in hits]
        self._record(hits, texts)
        blocks = [
            f"Doc {rank} (Title: {hit.title}) {text}"
            for rank, (hit, text) in enumerate(zip(hits, texts, strict=True), 1)
        ]
        body = "\n".join(blocks) if blocks else "No documents matched the query."
        return f"<information>{self._cap(escape(body))}</information>"

    def _search_tool(self, query: str, k: int = 3) -> str:
        """Searches the encyclopedia; returns titles, document ids and snippets.

        Args:
            query: What to look for, e.g. a name.
            k: How many results (1-10).
        """
        if not 1 <= k <= MAX_K:
            raise ValueError(f"k must be from 1 to {MAX_K}")
        hits = self.backend.search(query, k)
        self._record(hits, [hit.snippet for hit in hits])
        if not hits:
            return f"No documents matched {escape(query)!r}."
        lines = [
            f"{rank}. [{hit.doc_id}] {hit.title}\n   {hit.snippet}"
            for rank, hit in enumerate(hits, 1)
        ]
        return self._cap(escape("\n".join(lines)))

    def _open_tool(self, doc: str, page: int = 1) -> str:
        """Opens a document that a search returned, one page at a time.

        Args:
            doc: The document id (or URL, or title) from a search result.
            page: The page to read, from 1.
        """
        document = self.backend.fetch(self._title_to_doc.get(doc, doc))
        pages = paginate(document.text, self.page_chars)
        if not isinstance(page, int) or not 1 <= page <= len(pages):
            raise ValueError(f"{document.doc_id} has pages 1 to {len(pages)}, not {page!r}")
        self._open_doc = document
        self._opened_titles.add(document.title)
        self._returned_titles.add(document.title)
        self._returned_text.append(f"{document.title}\n{pages[page - 1]}")
        head = f"[{document.doc_id}] {document.title} (page {page} of {len(pages)})"
        return self._cap(escape(f"{head}\n\n{pages[page - 1]}"))

    def _find_tool(self, text: str) -> str:
        """Finds a phrase in the open document (case-insensitive); returns each match in context.

        Args:
            text: The phrase to find.
        """
        if self._open_doc is None:
            raise ValueError("no document is open; open one first")
        if not text.strip():
            raise ValueError("give a phrase to find")
        needle, matches = text.lower(), []
        for number, page in enumerate(paginate(self._open_doc.text, self.page_chars), 1):
            lower, start = page.lower(), page.lower().find(needle)
            while start >= 0 and len(matches) < MAX_FIND_MATCHES:
                context = page[max(0, start - 80) : start + len(needle) + 80].replace("\n", " ")
                matches.append(f"page {number}: ...{context}...")
                start = lower.find(needle, start + 1)
        if not matches:
            return f"{escape(text)!r} does not occur in {escape(self._open_doc.title)}."
        return self._cap(escape("\n".join(matches)))

    # --- episodes ------------------------------------------------------------------------

    def _instructions(self) -> str:
        if self.protocol == "tags":
            how = (
                "Search the encyclopedia by writing <search>query</search>; the results come "
                "back inside <information> and </information>. Search as often as you need"
            )
        else:
            how = (
                "Use the search tool to find articles, open to read one, and find to locate "
                "a phrase in the open article"
            )
        return (
            f"Answer the question about a fictional world using only its encyclopedia. {how} "
            f"(up to {self.budget.max_calls} calls), then give the answer as "
            f'<answer>...</answer>. If the encyclopedia does not state it, answer "{NOT_STATED}".'
        )

    def _reset_task(self, options: dict[str, Any]):
        if options:
            raise ValueError(f"SearchEnv.reset takes no options, got {sorted(options)}")
        self._reset_episode()
        if self.loaded:
            self.question = self.loaded[int(self.np_random.integers(len(self.loaded)))]
        else:
            weights = [UNANSWERABLE_WEIGHT if k == "unanswerable" else 1.0 for k in self.kinds]
            index = self.np_random.choice(len(self.kinds), p=[w / sum(weights) for w in weights])
            self.question = generate_question(
                self.world, self.level, self.kinds[int(index)], self.np_random
            )
        prompt = f"{self._instructions()}\n\nQuestion: {self.question.text}"
        return [user(prompt)], {
            "level": self.level,
            "kind": self.question.kind,
            "reference": list(self.question.answers),
            "support": list(self.question.support),
            "chain": [list(t) for t in self.question.chain],
        }

    def _route(self, action: Message) -> tuple[str, ParsedAction]:
        if self.protocol == "tools":
            return super()._route(action)
        parsed = self.parser.parse(action)
        if parsed.answer is not None:
            return "answer", parsed
        if parsed.tool_calls and not parsed.errors:
            return "tools", parsed
        return "invalid", parsed

    def _tags_invalid(self, parsed: ParsedAction) -> Step:
        if parsed.errors:
            return self.invalid(parsed.error_message())
        return self.invalid(
            "search with <search>query</search> or answer with <answer>...</answer>"
        )

    def _step(self, action: Message) -> Step:
        route, parsed = self._route(action)
        if route == "invalid" and self.protocol == "tags":
            return self._tags_invalid(parsed)
        return super()._step(action)

    async def _astep(self, action: Message) -> Step:
        route, parsed = self._route(action)
        if route == "invalid" and self.protocol == "tags":
            return self._tags_invalid(parsed)
        return await super()._astep(action)

    def _answer(self, action: Message, parsed: ParsedAction) -> Step:
        verdict = self.score(action.get("content") or "")
        bonus = 0.0
        if self.provenance_bonus and verdict.score > 0 and self.found_in_returned(verdict.answer):
            bonus = self.provenance_bonus
        return self.finish(verdict, provenance=bonus)

    def score(self, completion: str) -> Verdict:
        """The verdict on a final turn: EM or F1 of its ``<answer>``, 0 for hedges and lists."""
        answers = self.question.answers
        name = "exact_match" if self.reward == "em" else "f1"
        extraction = extract_answer(completion, _EXTRACTION)
        if not extraction.ok:
            status = Status.INCORRECT if extraction.kind == "conflict" else Status.NO_ANSWER
            return Verdict(
                0.0, status, extraction.answer, list(answers), extraction.reason, verifier=name
            )
        answer = extraction.answer
        problem = listed_or_hedged(answer, answers, self.world)
        if problem:
            return Verdict(0.0, Status.INCORRECT, answer, list(answers), problem, verifier=name)
        if self.reward == "em":
            score = float(any(normalize_answer(answer) == normalize_answer(a) for a in answers))
        else:
            score = max(token_f1(answer, a) for a in answers)
        status = Status.CORRECT if score == 1.0 else Status.INCORRECT
        return Verdict(score, status, answer, list(answers), f"{name} {score:.3f}", verifier=name)

    def found_in_returned(self, answer: str) -> bool:
        """True when ``answer`` appears in a document the backend returned this episode."""
        needle = f" {normalize_answer(answer)} "
        return any(needle in f" {normalize_answer(text)} " for text in self._returned_text)

    def best_return(self) -> float:
        """1, plus the provenance bonus when the answer is stated in the corpus."""
        answerable = self.question is not None and self.question.kind != "unanswerable"
        return 1.0 + (self.provenance_bonus if answerable else 0.0)

    # --- oracle --------------------------------------------------------------------------

    def oracle_action(self) -> str:
        """Follows the supporting chain with real searches, then answers what it found.

        Each supporting article is searched by its title (and opened, with the tools);
        the gold answer is given only if every one of them came back from the backend, so
        the oracle's reward proves the question answerable through the tools.
        """
        if not self.question.support:  # a loaded row without supporting titles
            if self.budget.used == 0:
                return self._search_action(self.question.text)
            return f"<answer>{self.question.answers[0]}</answer>"
        need_read = self._opened_titles if self.protocol == "tools" else self._returned_titles
        for title in self.question.support:
            if title in need_read:
                continue
            if title in self._returned_titles and self.protocol == "tools":
                return self._call("open", {"doc": self._title_to_doc[title]})
            if title in self._oracle_searched:
                return "<answer>the search did not find it</answer>"
            self._oracle_searched.add(title)
            return self._search_action(title)
        return f"<answer>{self.question.answers[0]}</answer>"

    def _search_action(self, query: str) -> str:
        if self.protocol == "tags":
            return f"<search>{query}</search>"
        return self._call("search", {"query": query, "k": self.k})

    @staticmethod
    def _call(name: str, arguments: dict[str, Any]) -> str:
        return f"<tool_call>{json.dumps({'name': name, 'arguments': arguments})}</tool_call>"

    def no_search_action(self) -> str:
        """A baseline that answers at once, guessing an answer of the right type."""
        rng, question, world = self.np_random, self.question, self.world
        if world is None:
            guess = "unknown"
        elif question.kind in ("comparison", "temporal"):
            guess = question.support[0]
        elif question.kind == "aggregation":
            guess = "3"
        elif question.answers[0] in OCCUPATIONS:
            guess = OCCUPATIONS[int(rng.integers(len(OCCUPATIONS)))]
        elif question.answers[0] in world.kind_of_name:
            pool = world.by_kind[world.kind_of_name[question.answers[0]]]
            guess = world.name(pool[int(rng.integers(len(pool)))])
        else:  # a year or a number; a model asked a birth year it cannot know guesses one
            guess = str(int(rng.integers(1400, 1950)))
        return f"<answer>{guess}</answer>"

    def render_text(self) -> str:
        """The question and its gold answer."""
        if self.question is None:
            return ""
        used = f"{self.budget.used} calls used"
        return f"{self.question.text}\n(answer: {self.question.answers[0]}; {used})"
