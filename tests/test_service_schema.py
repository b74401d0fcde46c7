"""The scenario format's JSON Schema (service/scenario.schema.json, in the service's OpenAPI
document) against the loader: every document the loader accepts the schema accepts, and a
document the schema refuses the loader refuses too — on every example and on a fuzz corpus;
and where the loader's refusal is about the shape the schema covers (an unknown field, a value
of the wrong type, a missing table), the schema refuses it as well."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import jsonschema
import pytest

import scenario
from geom.errors import TmgError
from service.openapi import scenario_schema
from tests import _fuzz

VALIDATOR = jsonschema.Draft202012Validator(scenario_schema())
# loader messages about what the schema covers: the document's shape and the values' types
SHAPE = re.compile(r"unknown field|expected a (list|table|point|non-empty string|number|"
                   r"whole number|boolean|true or false)|^missing$")


def loader_verdict(doc: Any) -> TmgError | None:
    try:
        scenario.parse_document(doc, "doc")
    except TmgError as exc:
        return exc
    return None


def test_the_schema_is_one() -> None:
    jsonschema.Draft202012Validator.check_schema(scenario_schema())
    assert not VALIDATOR.is_valid({})
    assert not VALIDATOR.is_valid({"table": {}, "units": []})
    assert not VALIDATOR.is_valid({"table": {"width": "wide"}})


@pytest.mark.parametrize("doc", _fuzz.example_documents(), ids=lambda d: str(d.get("name")))
def test_every_example_is_valid(doc: dict[str, Any]) -> None:
    assert loader_verdict(doc) is None
    assert VALIDATOR.is_valid(json.loads(json.dumps(doc)))


def test_schema_and_loader_agree_on_the_fuzz_corpus() -> None:
    rng = random.Random(2027)
    bases = _fuzz.example_documents()
    seen = {"accepted": 0, "shape": 0, "other": 0}
    for _ in range(600):
        doc = _fuzz.mutate(rng, rng.choice(bases) if rng.random() < 0.7
                           else _fuzz.random_scene(rng))
        try:
            doc = json.loads(json.dumps(doc, allow_nan=False))
        except (ValueError, TypeError, RecursionError):
            continue  # not JSON: no request can carry it
        exc = loader_verdict(doc)
        valid = VALIDATOR.is_valid(doc)
        if exc is None:
            assert valid, ("the loader accepts what the schema refuses",
                           next(VALIDATOR.iter_errors(doc)).message)
            seen["accepted"] += 1
        elif SHAPE.search(exc.detail):
            assert not valid, ("the schema accepts a shape the loader refuses", str(exc))
            seen["shape"] += 1
        else:
            seen["other"] += 1  # geometry, limits, references: the loader's alone
    assert all(n >= 5 for n in seen.values()), seen


def _unit_doc(**unit: Any) -> dict[str, Any]:
    u = {"id": "a", "owner": "red", "size": 1, "base_mm": 25, "models": [[5, 5]], **unit}
    return {"table": {"width": 20, "depth": 20}, "unit": [u]}


@pytest.mark.parametrize("unit", [
    {"coherent": True}, {"coherent": False}, {"coherent": None},
    {"reserve": True, "models": ["m1", "m2"]}, {"reserve": True, "models": [{"id": "m1"}]},
    {"reserve": None}, {"reserve": False, "models": [{"id": "m1", "at": [5, 5]}]},
    {"speed": "4/7"}, {"speed": "-"}, {"speed": 6},
], ids=repr)
def test_the_schema_accepts_what_the_loader_accepts(unit: dict[str, Any]) -> None:
    """The fields the fuzz corpus may not reach: the recorded coherency (§4.4), reserves with
    models by id alone, a split or absent Speed."""
    doc = _unit_doc(**unit)
    assert loader_verdict(doc) is None
    assert VALIDATOR.is_valid(doc), next(VALIDATOR.iter_errors(doc)).message


@pytest.mark.parametrize("unit", [
    {"coherent": "yes"}, {"coherent": 1}, {"reserve": "no"},
    {"models": ["m1"]}, {"models": [{"id": "m1"}]}, {"reserve": False, "models": ["m1"]},
    {"speed": [4]},
], ids=repr)
def test_the_schema_refuses_the_shapes_the_loader_refuses(unit: dict[str, Any]) -> None:
    doc = _unit_doc(**unit)
    exc = loader_verdict(doc)
    assert exc is not None
    assert not VALIDATOR.is_valid(doc), str(exc)
