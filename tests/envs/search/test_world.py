"""The generated world: deterministic, every fact a triple stated in an article, traps built in."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from palaestra.envs.search.world import SHIPPED_ARTICLES, generate_world


def _digest(world) -> str:
    text = "".join(a.doc_id + a.title + a.text for a in world.articles)
    return hashlib.sha256(text.encode()).hexdigest()


def test_same_seed_same_world_in_another_process():
    code = (
        "import hashlib; from palaestra.envs.search.world import generate_world; w = "
        "generate_world(); print(hashlib.sha256(''.join(a.doc_id + a.title + a.text "
        "for a in w.articles).encode()).hexdigest())"
    )
    other = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "123", "PATH": ""},
    ).stdout.strip()
    assert other == _digest(generate_world())
    assert _digest(generate_world(1, 500)) != _digest(generate_world(2, 500))


def test_the_shipped_world_has_a_few_thousand_unique_articles():
    world = generate_world()
    assert len(world.articles) == SHIPPED_ARTICLES
    assert len({a.title for a in world.articles}) == SHIPPED_ARTICLES
    assert len({a.doc_id for a in world.articles}) == SHIPPED_ARTICLES
    assert min(a.text.count("\n\n") for a in world.articles) >= 1  # paragraphs


def test_every_fact_is_stated_in_its_subjects_article():
    world = generate_world()
    for triple in world.triples:
        text = world.article_of[triple.subject].text
        value = triple.object
        shown = (
            world.name(value) if isinstance(value, str) and value in world.entities else str(value)
        )
        assert shown in text, (triple, text)


def test_citations_duplicates_distractors_and_missing_facts():
    world = generate_world()
    titles = world.names
    cited = [a for a in world.articles if any(t in a.text for t in titles if t != a.title)]
    assert len(cited) == len(world.articles)  # every article cites another by title
    # A founder's article states the founding in other words than the organisation's.
    org = world.by_kind["organisation"][0]
    founder, year = world.fact(org, "founder"), world.fact(org, "org_founded")
    assert f"In {year}, {world.name(founder)} founded the {world.name(org)}." in (
        world.article_of[founder].text
    )
    assert f"founded in {year} by {world.name(founder)}" in world.article_of[org].text
    # Near-namesakes: people whose names differ in one letter.
    people = sorted(world.name(p) for p in world.by_kind["person"])
    near = [
        (a, b)
        for a, b in zip(people, people[1:], strict=False)
        if len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1
    ]
    assert len(near) >= 50
    missing = [p for p in world.by_kind["person"] if world.fact(p, "born") is None]
    assert len(missing) >= 50


@pytest.mark.parametrize("articles", [0, 49, 2.5, True])
def test_bad_sizes_are_refused(articles):
    with pytest.raises(ValueError, match="articles must be an integer >= 50"):
        generate_world(0, articles)


def test_search_build_indexes_a_world_of_the_size_asked(tmp_path):
    command = [sys.executable, "-m", "palaestra.cli", "search", "build", "--articles", "120"]
    env = {"PALAESTRA_CACHE": str(tmp_path), "PATH": ""}
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    assert result.stdout.startswith("120 articles indexed")
    assert (tmp_path / "search" / "world-v0-seed0-n120" / "index" / "palaestra-index").exists()
    refused = subprocess.run(
        [*command[:-1], "10"], capture_output=True, text=True, env=env, check=False
    )
    assert refused.returncode == 2 and "--articles must be >= 50" in refused.stderr
