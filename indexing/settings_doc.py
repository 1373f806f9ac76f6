"""The settings as a reader meets them: their variable names, the form each value takes, the one-line error when
a value does not fit, and docs/settings.md (generated: `python -m indexing.settings_doc > docs/settings.md`; a
test keeps it in sync with ScholarSettings)."""

from __future__ import annotations

import re
import types
import typing
from pathlib import Path
from typing import Any, Literal

import annotated_types
from pydantic import ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import SettingsError

from indexing.errors import SettingsInvalidError
from indexing.settings import _REPO, _SHARED, ScholarSettings

# Values never repeated back in an error message: they are credentials.
SECRET_FIELDS = frozenset({"api_keys", "chat_users", "database_url"})
MAX_ECHO_CHARS = 40


def load_settings(**overrides: Any) -> ScholarSettings:
    """ScholarSettings from the environment and .env, or SettingsInvalidError with one line per variable at fault
    (pydantic's own report is an 18-line traceback naming Python fields, not the variables a reader sets)."""
    try:
        return ScholarSettings(**overrides)
    except ValidationError as exc:
        raise SettingsInvalidError(describe_errors(exc)) from None
    except SettingsError as exc:  # pydantic-settings could not decode a JSON value before validation
        match = re.search(r'field "(\w+)"', str(exc))
        name = match.group(1) if match else None
        field = ScholarSettings.model_fields.get(name or "")
        where = env_name(name, field) if name and field else "a SCHOLAR_ setting"
        form = expected_form(field) if field else "valid JSON"
        raise SettingsInvalidError(f"{where}: cannot be read; expected {form}") from None


def env_name(name: str, field: FieldInfo | None = None) -> str:
    field = field or ScholarSettings.model_fields[name]
    alias = field.validation_alias
    if isinstance(alias, str):
        return alias
    prefix = ScholarSettings.model_config.get("env_prefix", "")
    return f"{prefix}{name}".upper()


def describe_errors(exc: ValidationError) -> str:
    lines: list[str] = []
    for err in exc.errors():
        loc = err.get("loc") or ()
        name = _field_of(loc)
        message = str(err.get("msg", "invalid"))
        if err.get("type") == "value_error":  # our own validators' reasons
            message = message.removeprefix("Value error, ")
        if name is None:  # a check across settings (its message names them)
            lines.append(message)
            continue
        field = ScholarSettings.model_fields[name]
        where = env_name(name, field)
        value = err.get("input")
        if isinstance(value, str) and name not in SECRET_FIELDS:
            shown = value if len(value) <= MAX_ECHO_CHARS else value[:MAX_ECHO_CHARS] + "…"
            where = f"{where}={shown!r}"
        reason = message if err.get("type") == "value_error" else f"expected {expected_form(field)}"
        line = f"{where}: {reason}"
        if line not in lines:  # a union (`int | None`) reports each member's failure: one line says it
            lines.append(line)
    return "\n".join(lines)


def _field_of(loc: tuple) -> str | None:
    if not loc:
        return None
    head = str(loc[0])
    if head in ScholarSettings.model_fields:
        return head
    for name, field in ScholarSettings.model_fields.items():
        if field.validation_alias == head:
            return name
    return None


# ---- the form of a value -----------------------------------------------------------------------------------------


def expected_form(field: FieldInfo) -> str:
    form = _form(field.annotation)
    bounds = _bounds(field)
    if bounds:
        form = f"{form} {bounds}"
    if _optional(field.annotation):
        form += ", or unset for the default"
    return form


def _optional(annotation: Any) -> bool:
    return _is_union(annotation) and type(None) in typing.get_args(annotation)


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _form(annotation: Any) -> str:
    if _is_union(annotation):
        inner = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _form(inner[0]) if len(inner) == 1 else " or ".join(_form(a) for a in inner)
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _form(typing.get_args(annotation)[0])
    if origin is Literal:
        return "one of " + ", ".join(f"`{v}`" for v in typing.get_args(annotation))
    if origin is list:
        (item,) = typing.get_args(annotation)
        if item is Path:
            return 'a path, or a JSON list of paths (`["a", "b"]`)'
        return 'comma-separated values (`a,b`) or a JSON list (`["a", "b"]`)'
    return {int: "a whole number", float: "a number", bool: "true or false", Path: "a path",
            str: "text"}.get(annotation, str(annotation))


def _bounds(field: FieldInfo) -> str:
    parts = []
    for meta in field.metadata:
        if isinstance(meta, annotated_types.Ge):
            parts.append(f"≥ {meta.ge}")
        elif isinstance(meta, annotated_types.Gt):
            parts.append(f"> {meta.gt}")
        elif isinstance(meta, annotated_types.Le):
            parts.append(f"≤ {meta.le}")
        elif isinstance(meta, annotated_types.Lt):
            parts.append(f"< {meta.lt}")
    return " and ".join(parts)


# ---- docs/settings.md --------------------------------------------------------------------------------------------


def _default(field: FieldInfo) -> str:
    value = field.get_default(call_default_factory=True)
    if value is None:
        return "—"
    if isinstance(value, list):
        return ", ".join(_show(v) for v in value) if value else "(empty)"
    return _show(value)


def _show(value: object) -> str:
    if isinstance(value, Path):
        for root, shown in ((_REPO, ""), (_SHARED, "../shared/")):
            if value.is_relative_to(root):
                return f"`{shown}{value.relative_to(root).as_posix()}`"
    text = str(value)
    return f"`{text}`" if text else "(empty)"


def render_markdown() -> str:
    rows = ["| variable | default | value | meaning |", "|---|---|---|---|"]
    for name, field in ScholarSettings.model_fields.items():
        meaning, form = (text.replace("|", "\\|") for text in (field.description or "", expected_form(field)))
        rows.append(f"| `{env_name(name, field)}` | {_default(field)} | {form} | {meaning} |")
    return "\n".join([
        "# Settings",
        "",
        "Generated from `indexing/settings.py` by `python -m indexing.settings_doc > docs/settings.md`; "
        "tests/test_settings.py fails when the two differ.",
        "",
        "Every setting is an environment variable (or a line of `.env` in the working directory), read once at "
        "start. A value of the wrong form or outside its bounds stops every `scholar` command with one line naming "
        "the variable and the form it takes, and exit status 2. Paths in the defaults are relative to the "
        "repository.",
        "",
        *rows,
        "",
    ])


if __name__ == "__main__":
    import sys

    sys.stdout.write(render_markdown())
