r"""Your own questions and corpus as JSONL: NQ/HotpotQA-style rows and Search-R1-style passages.

Question rows (one JSON object per line), by the names the common datasets use:
    ``{"question": "...", "answer": "..." | [...]}`` (NQ, TriviaQA as Search-R1 ships them use
    ``"golden_answers": [...]``; ``"answers"`` is read too), optionally with HotpotQA's
    ``"supporting_facts": [[title, sentence index], ...]`` (the titles become the gold
    supporting chain the oracle searches).

Corpus rows:
    ``{"id": "...", "title": "...", "text": "..."}``, or Search-R1's
    ``{"id": "...", "contents": "\"Title\"\ntext"}``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from palaestra.envs.search.backends import Document
from palaestra.envs.search.questions import Question


def _rows(path: str | os.PathLike) -> list[tuple[int, dict]]:
    source = Path(path)
    if not source.is_file():
        raise ValueError(f"{source} is not a file; give a JSONL file, one JSON object per line")
    rows = []
    with source.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{source}:{number} is not valid JSON ({e})") from e
            if not isinstance(row, dict):
                raise ValueError(f"{source}:{number} must be a JSON object")
            rows.append((number, row))
    if not rows:
        raise ValueError(f"{source} holds no rows")
    return rows


def load_questions(path: str | os.PathLike) -> list[Question]:
    """The question rows of a JSONL file (see the module docstring).

    Raises:
        ValueError: The file is missing, empty, or a row lacks a question or an answer.
    """
    questions = []
    for number, row in _rows(path):
        text = row.get("question")
        answers = row.get("golden_answers", row.get("answers", row.get("answer")))
        if isinstance(answers, str):
            answers = [answers]
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{path}:{number} has no 'question' string")
        if (
            not isinstance(answers, list)
            or not answers
            or not all(isinstance(a, str) and a.strip() for a in answers)
        ):
            raise ValueError(
                f"{path}:{number} needs 'answer' (a string) or 'answers'/'golden_answers' "
                "(a list of strings)"
            )
        facts = row.get("supporting_facts") or []
        titles = tuple(dict.fromkeys(f[0] for f in facts if isinstance(f, list) and f))
        questions.append(Question(text.strip(), tuple(answers), "loaded", len(titles), titles))
    return questions


def load_corpus(path: str | os.PathLike) -> list[Document]:
    """The documents of a JSONL corpus (see the module docstring).

    Raises:
        ValueError: The file is missing, empty, or a row lacks an id or a text.
    """
    documents = []
    for number, row in _rows(path):
        doc_id = row.get("id", row.get("_id"))
        if doc_id is None:
            raise ValueError(f"{path}:{number} has no 'id'")
        title, text = row.get("title", ""), row.get("text")
        if text is None and isinstance(row.get("contents"), str):
            first, _, rest = row["contents"].partition("\n")
            quoted = len(first) >= 2 and first.startswith('"') and first.endswith('"')
            title, text = (first[1:-1], rest) if quoted and rest else (title, row["contents"])
        if not isinstance(text, str):
            raise ValueError(f"{path}:{number} needs 'text' or 'contents' (a string)")
        documents.append(Document(str(doc_id), str(title), text))
    return documents
