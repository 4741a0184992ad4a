"""A small JSON Schema (draft 2020-12) validator for the subset the app's exported schemas use
(run-spec.schema.json, made from the zod contract). Stdlib only: the runner must start before
torch or anything else is importable, and the engine environment carries no jsonschema.

validate(instance, schema) returns a copy with `default`s filled in, or raises SchemaError naming
the field ("model.hiddenSize: must be an integer > 0, got 0"). A keyword outside the subset
raises too (UnsupportedKeyword), so a schema change that needs more is caught by the tests
rather than silently ignored.
"""
import copy
import math
import re

SUPPORTED = frozenset({
    "$schema", "$comment", "title", "description", "default",
    "type", "enum", "const",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "pattern",
    "properties", "required", "additionalProperties", "propertyNames",
    "items", "minItems", "maxItems",
    "anyOf",
})


class SchemaError(ValueError):
    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class UnsupportedKeyword(RuntimeError):
    pass


def _name(path):
    return ".".join(str(p) for p in path) if path else "(root)"


def _is_type(value, t):
    if t == "null":
        return value is None
    if t == "boolean":
        return isinstance(value, bool)
    if t == "string":
        return isinstance(value, str)
    if t == "object":
        return isinstance(value, dict)
    if t == "array":
        return isinstance(value, list)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    if t == "number":
        return True
    if t == "integer":
        return isinstance(value, int) or value.is_integer()
    raise UnsupportedKeyword(f"type {t!r}")


_ARTICLE = {"integer": "an integer", "object": "an object", "array": "an array", "null": "null",
            "boolean": "true or false", "string": "a string", "number": "a number"}


def _describe(schema):
    t = schema.get("type")
    if isinstance(t, list):
        return " or ".join(_ARTICLE.get(x, x) for x in t)
    if t:
        return _ARTICLE.get(t, t)
    if "anyOf" in schema:
        return " or ".join(_describe(s) for s in schema["anyOf"])
    return "valid"


def _check(value, schema, path):
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise UnsupportedKeyword(f"{_name(path)}: schema keyword(s) {sorted(unknown)} not supported by schema_check.py")
    if "anyOf" in schema:
        errors = []
        for branch in schema["anyOf"]:
            try:
                return _check(value, branch, path)
            except SchemaError as exc:
                errors.append((branch, exc))
        # The branch of the value's own type says the most precise thing.
        for branch, exc in errors:
            t = branch.get("type")
            if t and (_is_type(value, t) if isinstance(t, str) else any(_is_type(value, x) for x in t)):
                raise exc
        raise SchemaError(_name(path), f"must be {_describe(schema)}, got {value!r}")

    t = schema.get("type")
    if t is not None:
        types = t if isinstance(t, list) else [t]
        if not any(_is_type(value, x) for x in types):
            raise SchemaError(_name(path), f"must be {_describe(schema)}, got {value!r}")
    if "const" in schema and value != schema["const"]:
        raise SchemaError(_name(path), f"must be {schema['const']!r}, got {value!r}")
    if "enum" in schema and value not in schema["enum"]:
        raise SchemaError(_name(path), f"must be one of {', '.join(repr(e) for e in schema['enum'])}, got {value!r}")

    if _is_type(value, "number"):
        for key, ok, words in (("minimum", lambda v, b: v >= b, ">="), ("maximum", lambda v, b: v <= b, "<="),
                               ("exclusiveMinimum", lambda v, b: v > b, ">"), ("exclusiveMaximum", lambda v, b: v < b, "<")):
            if key in schema and not ok(value, schema[key]):
                raise SchemaError(_name(path), f"must be {words} {schema[key]:g}, got {value!r}")
    if isinstance(value, str):
        if len(value) < schema.get("minLength", 0):
            raise SchemaError(_name(path), "must not be empty" if schema["minLength"] == 1 else f"must have at least {schema['minLength']} characters")
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            raise SchemaError(_name(path), f"must have at most {schema['maxLength']} characters")
        if "pattern" in schema and not re.search(schema["pattern"], value):
            raise SchemaError(_name(path), f"must match {schema['pattern']}")

    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            raise SchemaError(_name(path), f"must have at least {schema['minItems']} item(s)")
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            raise SchemaError(_name(path), f"must have at most {schema['maxItems']} item(s)")
        if "items" in schema:
            value = [_check(v, schema["items"], path + [i]) for i, v in enumerate(value)]
        return value

    if isinstance(value, dict):
        props = schema.get("properties", {})
        out = dict(value)
        for key, sub in props.items():
            if key not in out and "default" in sub:
                out[key] = copy.deepcopy(sub["default"])
        for key in schema.get("required", []):
            if key not in out:
                raise SchemaError(_name(path + [key]), "is required")
        names = schema.get("propertyNames")
        extra = schema.get("additionalProperties", True)
        for key in list(out):
            if names is not None:
                _check(key, names, path + [key])
            if key in props:
                out[key] = _check(out[key], props[key], path + [key])
            elif extra is False:
                allowed = ", ".join(props)
                raise SchemaError(_name(path + [key]), f"is not a known field (known: {allowed})")
            elif isinstance(extra, dict):
                out[key] = _check(out[key], extra, path + [key])
        return out
    return value


def validate(instance, schema):
    """A copy of `instance` with defaults filled in; SchemaError names the first bad field."""
    return _check(copy.deepcopy(instance), schema, [])
