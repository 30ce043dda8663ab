"""Your own questions and corpus: NQ/HotpotQA-style rows over a JSONL corpus."""

from __future__ import annotations

import json

import pytest

from palaestra.envs.search.env import SearchEnv
from palaestra.envs.search.loaders import load_corpus, load_questions

CORPUS = [
    {"id": "d1", "title": "Lake Orvanne", "text": "Lake Orvanne lies north of the Teskel hills."},
    {"id": "d2", "contents": '"Teskel hills"\nThe Teskel hills were mapped by Ina Varro.'},
    {"id": "d3", "title": "Ina Varro", "text": "Ina Varro was a surveyor born in Quellmoor."},
]
QUESTIONS = [
    {
        "question": "Who mapped the hills south of Lake Orvanne?",
        "answer": "Ina Varro",
        "supporting_facts": [["Lake Orvanne", 0], ["Teskel hills", 0]],
    },
    {"question": "Where was Ina Varro born?", "golden_answers": ["Quellmoor"]},
]


def write(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return str(path)


@pytest.mark.parametrize("protocol", ["tags", "tools"])
def test_the_oracle_answers_loaded_questions_over_a_loaded_corpus(tmp_path, protocol):
    env = SearchEnv(
        protocol=protocol,
        questions=write(tmp_path / "q.jsonl", QUESTIONS),
        corpus=write(tmp_path / "c.jsonl", CORPUS),
    )
    seen = set()
    for seed in range(8):
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, info = env.step(env.oracle_action())
            total, done = total + reward, terminated or truncated
        assert total == 1.0, info["verdict"]
        seen.add(env.question.text)
    assert len(seen) == 2
    assert env.score("<answer>Ina Varro or Quellmoor</answer>").score == 0.0


def test_rows_are_read_in_each_format(tmp_path):
    (hotpot, nq) = load_questions(write(tmp_path / "q.jsonl", QUESTIONS))
    assert hotpot.support == ("Lake Orvanne", "Teskel hills") and hotpot.answers == ("Ina Varro",)
    assert nq.support == () and nq.answers == ("Quellmoor",)
    documents = load_corpus(write(tmp_path / "c.jsonl", CORPUS))
    assert documents[1].title == "Teskel hills" and documents[1].text.startswith("The Teskel")


@pytest.mark.parametrize(
    "rows, message",
    [
        ([{"question": "q"}], "needs 'answer'"),
        ([{"answer": "a"}], "has no 'question'"),
        ([["not", "an", "object"]], "must be a JSON object"),
    ],
)
def test_bad_question_rows_are_refused_with_their_line(tmp_path, rows, message):
    with pytest.raises(ValueError, match=message):
        load_questions(write(tmp_path / "q.jsonl", rows))


def test_bad_arguments_are_refused(tmp_path):
    questions = write(tmp_path / "q.jsonl", QUESTIONS)
    with pytest.raises(ValueError, match="needs corpus="):
        SearchEnv(questions=questions)
    with pytest.raises(ValueError, match="level and kinds"):
        SearchEnv(questions=questions, corpus=questions, level=2)
    with pytest.raises(ValueError, match="is not a file"):
        load_corpus(tmp_path / "missing.jsonl")
