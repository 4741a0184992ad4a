"""schema_check.py: the runner's validator for the subset of JSON Schema the app's zod export uses."""
import json
import os

import pytest

import schema_check
import spec as spec_mod

S = {"type": "object", "properties": {
    "n": {"type": "integer", "exclusiveMinimum": 0},
    "x": {"anyOf": [{"type": "number", "minimum": 0, "maximum": 1}, {"type": "null"}]},
    "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 2},
    "mode": {"default": "a", "type": "string", "enum": ["a", "b"]},
    "free": {"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {}},
}, "required": ["n"], "additionalProperties": False}


def test_valid_instance_gets_defaults_and_is_not_mutated():
    raw = {"n": 3, "x": None, "tags": ["a"], "free": {"k": [1]}}
    out = schema_check.validate(raw, S)
    assert out["mode"] == "a" and "mode" not in raw
    assert schema_check.validate({"n": 4.0}, S)["n"] == 4.0  # JSON integers may be written 4.0


@pytest.mark.parametrize("inst,field,words", [
    ({}, "n", "is required"),
    ({"n": 0}, "n", "> 0"),
    ({"n": True}, "n", "an integer"),
    ({"n": 1.5}, "n", "an integer"),
    ({"n": float("nan")}, "n", "an integer"),
    ({"n": 1, "x": 2}, "x", "<= 1"),
    ({"n": 1, "x": "a"}, "x", "a number or null"),
    ({"n": 1, "tags": ["a", ""]}, "tags.1", "empty"),
    ({"n": 1, "tags": ["a", "b", "c"]}, "tags", "at most 2"),
    ({"n": 1, "mode": "c"}, "mode", "one of 'a', 'b'"),
    ({"n": 1, "other": 1}, "other", "not a known field"),
])
def test_errors_name_the_field(inst, field, words):
    with pytest.raises(schema_check.SchemaError) as info:
        schema_check.validate(inst, S)
    assert info.value.field == field and words in str(info.value), str(info.value)


def test_unknown_keyword_is_refused_not_ignored():
    with pytest.raises(schema_check.UnsupportedKeyword):
        schema_check.validate(1, {"type": "integer", "multipleOf": 2})


def test_the_exported_run_spec_schema_uses_only_the_supported_subset():
    with open(spec_mod.SCHEMA_PATH, encoding="utf-8") as fh:
        schema = json.load(fh)
    seen = set()

    def walk(node):
        if isinstance(node, dict):
            seen.update(node)
            for key, value in node.items():
                if key in ("properties",):
                    for sub in value.values():
                        walk(sub)
                elif key in ("default", "const", "enum", "required"):
                    continue
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)
    walk(schema)
    assert seen <= schema_check.SUPPORTED, seen - schema_check.SUPPORTED
    assert os.path.basename(spec_mod.SCHEMA_PATH) == "run-spec.schema.json"
