"""JSON answers checked against a schema and, optionally, an expected value.

The JSON is read from the last ``<answer>`` tag after the reasoning, else the last fenced
```` ```json ```` block, else the whole text after the reasoning. Duplicate keys, ``NaN`` and
``Infinity`` are invalid JSON here (parsers disagree on them, which makes them a way to show a
validator one value and a consumer another). The schema checker implements the JSON Schema
keywords most tasks use: type, enum, const, properties, required, additionalProperties,
patternProperties is not supported (the schema is rejected), items, prefixItems, minItems,
maxItems, uniqueItems, minLength, maxLength, pattern, minimum, maximum, exclusiveMinimum,
exclusiveMaximum, multipleOf, anyOf, oneOf, allOf, not. An unknown keyword in the schema is an
error in the task, reported as ``error``.

Statuses: invalid JSON or a schema violation -> `bad_format`; valid but different from the
reference -> `incorrect`; valid (and equal to the reference, when one is given) -> `correct`.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from palaestra.verdict import Status, Verdict
from palaestra.verifiers.base import Verifier, VerifierConfig, as_text, verdict
from palaestra.verifiers.extract import (
    fenced_blocks,
    normalize_unicode,
    strip_reasoning,
    tag_contents,
)

_KNOWN = {
    "type",
    "enum",
    "const",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "title",
    "description",
    "$schema",
    "$id",
    "default",
    "examples",
}
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (
        isinstance(v, int) and not isinstance(v, bool) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaError(ValueError):
    """The schema itself is malformed or uses an unsupported keyword."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError(f"duplicate key {next(k for k in keys if keys.count(k) > 1)!r}")
    return dict(pairs)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def loads_strict(text: str) -> Any:
    """`json.loads` without duplicate keys, NaN or Infinity."""
    return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=False))
    return type(a) is type(b) and a == b


def validate(value: Any, schema: Any, path: str = "$", depth: int = 0) -> str | None:
    """The first schema violation (a readable path and message), or None.

    Raises:
        SchemaError: The schema is malformed or uses an unsupported keyword.
    """
    if depth > 64:
        return f"{path}: nesting deeper than 64"
    if schema is True or schema == {}:
        return None
    if schema is False:
        return f"{path}: no value is allowed here"
    if not isinstance(schema, Mapping):
        raise SchemaError(f"a schema must be an object or a boolean, got {schema!r}")
    unknown = set(schema) - _KNOWN
    if unknown:
        raise SchemaError(f"unsupported schema keywords: {sorted(unknown)}")
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        for t in types:
            if t not in _TYPES:
                raise SchemaError(f"unknown type {t!r}")
        if not any(_TYPES[t](value) for t in types):
            return f"{path}: expected {' or '.join(types)}, got {type(value).__name__}"
    if "enum" in schema and not any(_equal(value, e) for e in schema["enum"]):
        return f"{path}: {value!r} is not one of {schema['enum']!r}"
    if "const" in schema and not _equal(value, schema["const"]):
        return f"{path}: must equal {schema['const']!r}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                return f"{path}: missing required property {key!r}"
        properties = schema.get("properties", {})
        for key, item in value.items():
            if key in properties:
                problem = validate(item, properties[key], f"{path}.{key}", depth + 1)
            elif "additionalProperties" in schema:
                problem = validate(item, schema["additionalProperties"], f"{path}.{key}", depth + 1)
            else:
                problem = None
            if problem:
                return problem
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return f"{path}: fewer than {schema['minItems']} items"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{path}: more than {schema['maxItems']} items"
        if schema.get("uniqueItems"):
            for i in range(len(value)):
                if any(_equal(value[i], value[j]) for j in range(i)):
                    return f"{path}: items are not unique"
        prefix = schema.get("prefixItems", [])
        for i, item in enumerate(value):
            sub = prefix[i] if i < len(prefix) else schema.get("items", True)
            problem = validate(item, sub, f"{path}[{i}]", depth + 1)
            if problem:
                return problem
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            return f"{path}: shorter than {schema['minLength']}"
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return f"{path}: longer than {schema['maxLength']}"
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return f"{path}: does not match {schema['pattern']!r}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        checks = (
            ("minimum", lambda b: value < b, "less than"),
            ("maximum", lambda b: value > b, "greater than"),
            ("exclusiveMinimum", lambda b: value <= b, "not greater than"),
            ("exclusiveMaximum", lambda b: value >= b, "not less than"),
        )
        for key, bad, words in checks:
            if key in schema and bad(schema[key]):
                return f"{path}: {value!r} is {words} {schema[key]!r}"
        if "multipleOf" in schema and (value / schema["multipleOf"]) % 1:
            return f"{path}: not a multiple of {schema['multipleOf']!r}"
    for sub in schema.get("allOf", []):
        problem = validate(value, sub, path, depth + 1)
        if problem:
            return problem
    if "anyOf" in schema and all(validate(value, s, path, depth + 1) for s in schema["anyOf"]):
        return f"{path}: matches none of anyOf"
    if "oneOf" in schema:
        matches = sum(validate(value, s, path, depth + 1) is None for s in schema["oneOf"])
        if matches != 1:
            return f"{path}: matches {matches} of oneOf, not exactly one"
    if "not" in schema and validate(value, schema["not"], path, depth + 1) is None:
        return f"{path}: matches the 'not' schema"
    return None


@dataclasses.dataclass(frozen=True)
class JsonConfig(VerifierConfig):
    """Config of the `json` verifier.

    Attributes:
        schema: The schema as JSON text (None: any JSON; a per-call ``schema`` context wins).
        think: As in `ExtractionConfig.think`.
        max_chars: Longer completions are refused unread.
    """

    VERSION: ClassVar[int] = 1

    schema: str | None = None
    think: str = "strip"
    max_chars: int = 262_144

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.schema is not None:
            json.loads(self.schema)
        if self.think not in ("strip", "require", "ignore"):
            raise ValueError(f"think must be 'strip', 'require' or 'ignore', got {self.think!r}")


def extract_json_text(region: str) -> str:
    """The JSON text of a completion region (answer tag, fenced block or the whole region)."""
    tags, _ = tag_contents(region, "answer")
    if tags:
        return tags[-1][2].strip()
    fences = [body for lang, body in fenced_blocks(region) if lang in ("", "json")]
    if fences:
        return fences[-1].strip()
    return region.strip()


class JsonVerifier(Verifier):
    """Checks that the answer is JSON, valid under a schema, and equal to the reference if given.

    Context:
        schema: The schema (a dict or JSON text) for this call.
    """

    name: ClassVar[str] = "json"
    config_class = JsonConfig
    context_keys = frozenset({"schema"})
    config: JsonConfig

    def _verify(self, completion: Any, reference: Any, context: dict[str, Any]) -> Verdict:
        schema: Any = context.get("schema", self.config.schema)
        if isinstance(schema, str):
            try:
                schema = json.loads(schema)
            except ValueError as e:
                return Verdict.error(f"the schema is not JSON: {e}")
        text = as_text(completion)
        if text is None or len(text) > self.config.max_chars:
            return verdict(Status.BAD_FORMAT, "no completion text, or over the size cap")
        region, why = strip_reasoning(normalize_unicode(text), self.config.think)
        if region is None:
            return verdict(Status.NO_ANSWER, why)
        body = extract_json_text(region)
        if not body:
            return verdict(Status.NO_ANSWER, "no JSON found")
        try:
            value = loads_strict(body)
        except (ValueError, RecursionError) as e:
            return verdict(Status.BAD_FORMAT, f"invalid JSON: {e}", answer=body[:200])
        if schema is not None:
            try:
                problem = validate(value, schema)
            except SchemaError as e:
                return Verdict.error(f"the task's schema is unusable: {e}")
            if problem:
                return verdict(Status.BAD_FORMAT, f"schema violation at {problem}", answer=value)
        if reference is not None and not _equal(value, reference):
            return verdict(
                Status.INCORRECT,
                "valid JSON, but not the expected value",
                answer=value,
                reference=reference,
            )
        return verdict(
            Status.CORRECT,
            "valid JSON" + (" equal to the reference" if reference is not None else ""),
            answer=value,
            reference=reference,
        )
