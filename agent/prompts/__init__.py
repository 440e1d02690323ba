"""Prompt templates (Jinja, strict about missing variables): one file per use, rendered here."""

from pathlib import Path
from typing import Any

import jinja2

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent),
    undefined=jinja2.StrictUndefined,
    autoescape=False,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
)

TEMPLATES = ("system.j2", "edit_finding.j2", "fix_failure.j2", "fix_parity.j2")


def render(template: str, **variables: Any) -> str:
    """Render `template`; a variable the template uses but the caller did not pass is an error."""
    return _ENVIRONMENT.get_template(template).render(**variables)
