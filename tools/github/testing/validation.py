"""Request-body checks worded as GitHub words them (REST documentation, "Validation Failed")."""

import json
from typing import Any

from tools.github.testing.fake_state import FakeResponse, error

DOCS = {
    "repo": "https://docs.github.com/rest/repos/repos#get-a-repository",
    "list": "https://docs.github.com/rest/pulls/pulls#list-pull-requests",
    "create": "https://docs.github.com/rest/pulls/pulls#create-a-pull-request",
    "get": "https://docs.github.com/rest/pulls/pulls#get-a-pull-request",
    "update": "https://docs.github.com/rest/pulls/pulls#update-a-pull-request",
    "labels": "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue",
}
MAX_LABEL_NAME = 50
_TYPE_NAMES = {str: "string", bool: "boolean", int: "integer"}


def check_fields(
    body: Any, schema: dict[str, type], *, required: tuple[str, ...], docs: str
) -> FakeResponse | None:
    """A 422 "Invalid request" when `body` is not an object, lacks a required field or has a
    field of the wrong JSON type (null included); None when the shape is right."""
    if not isinstance(body, dict):
        return error(422, f"Invalid request.\n\n{_ruby(body)} is not an object.", docs)
    missing = [name for name in required if name not in body]
    if missing:
        names = ", ".join(f'"{name}"' for name in missing)
        verb = "wasn't" if len(missing) == 1 else "weren't"
        return error(422, f"Invalid request.\n\n{names} {verb} supplied.", docs)
    for name, kind in schema.items():
        if name in body and not _has_type(body[name], kind):
            message = f"For 'properties/{name}', {_ruby(body[name])} is not a {_TYPE_NAMES[kind]}."
            return error(422, f"Invalid request.\n\n{message}", docs)
    return None


def parse_labels(body: Any, docs: str) -> list[str] | FakeResponse:
    """Label names from any of the shapes GitHub accepts: `["a"]`, `{"labels": ["a"]}` or
    `{"labels": [{"name": "a"}]}`; a 422 answer otherwise."""
    labels = body.get("labels") if isinstance(body, dict) else body
    if not isinstance(labels, list) or not labels:
        return error(422, 'Invalid request.\n\nNo subschema in "oneOf" matched.', docs)
    raw = [label.get("name") if isinstance(label, dict) else label for label in labels]
    names = [name for name in raw if isinstance(name, str) and name]
    if len(names) != len(raw):
        return error(422, 'Invalid request.\n\nNo subschema in "oneOf" matched.', docs)
    too_long = [name for name in names if len(name) > MAX_LABEL_NAME]
    if too_long:
        message = f"name is too long (maximum is {MAX_LABEL_NAME} characters)"
        return validation_failed(
            docs, {"resource": "Label", "code": "custom", "field": "name", "message": message}
        )
    return names


def validation_failed(docs: str, *problems: dict[str, Any]) -> FakeResponse:
    """GitHub's 422 "Validation Failed" with its `errors` list."""
    return error(422, "Validation Failed", docs, errors=list(problems))


def invalid_field(resource: str, field: str, value: Any) -> dict[str, Any]:
    """One `errors` entry for a field whose value GitHub cannot use."""
    return {"resource": resource, "field": field, "code": "invalid", "value": value}


def _has_type(value: Any, kind: type) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def _ruby(value: Any) -> str:
    """A value as GitHub's messages show it (`nil` for null)."""
    return "nil" if value is None else json.dumps(value)
