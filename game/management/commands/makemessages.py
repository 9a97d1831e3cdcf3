"""`makemessages` that reads the project's templates as Jinja2.

Django's makemessages hands each template to its own template lexer, which knows
Django's tags: it would miss `{% trans %}` blocks and plurals. Here a template of
the Jinja2 engine (settings.TEMPLATES) is read by Jinja2's extractor instead
(jinja2.ext.babel_extract, what Babel uses, with the i18n extension and newstyle
gettext as the templates are rendered), and each message it finds becomes a
gettext call on the template's own line, for xgettext like any Python file. The
rest of makemessages (Python files, merging into the catalogues) is Django's.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from django.core.management.commands import makemessages
from django.template import engines
from jinja2.ext import GETTEXT_FUNCTIONS, babel_extract

# As the templates are rendered (game.screens.environment); a syntax error stops the run.
OPTIONS = {"newstyle_gettext": "true", "silent": "false"}
COMMENT_TAGS = ("Translators:",)  # {# Translators: ... #}, as in Django's templates


class JinjaBuildFile(makemessages.BuildFile):
    def preprocess(self) -> None:
        if not self.is_templatized or not _is_jinja(self.path):
            super().preprocess()
            return
        source = Path(self.path).read_text(encoding="utf-8")
        Path(self.work_path).write_text(as_python(source), encoding="utf-8")


class Command(makemessages.Command):
    build_file_class = JinjaBuildFile


def _is_jinja(path: str) -> bool:
    found = Path(path).resolve()
    return any(found.is_relative_to(Path(d).resolve()) for d in engines["jinja2"].template_dirs)


def as_python(source: str) -> str:
    """The template's messages as gettext calls, each on its line, for xgettext."""
    count = source.count("\n") + 1
    calls: list[list[str]] = [[] for _ in range(count)]
    notes: list[list[str]] = [[] for _ in range(count)]
    found = babel_extract(io.BytesIO(source.encode()), GETTEXT_FUNCTIONS, COMMENT_TAGS, OPTIONS)
    for lineno, function, message, comments in found:
        call = _call(function, message)
        if call is None:
            continue  # not a constant: nothing to extract
        calls[lineno - 1].append(call)
        # A translator's comment goes on the line before, where xgettext looks for it.
        notes[max(lineno - 2, 0)].extend(comments)
    return "\n".join(
        "; ".join(line) + "".join(f"  # Translators: {note}" for note in note_list)
        for line, note_list in zip(calls, notes, strict=True)
    )


def _call(function: str, message: Any) -> str | None:
    """`ngettext("%(n)s point", "%(n)s points", n)` for what the extractor found."""
    parts: Iterable[str | None] = message if isinstance(message, tuple) else (message,)
    arguments = [_literal(part) if part is not None else "n" for part in parts]
    strings = sum(1 for part in parts if part is not None)
    needed = {"ngettext": 2, "pgettext": 2, "npgettext": 3}.get(function, 1)
    if strings < needed:
        return None
    name = "gettext" if function == "_" else function
    return f"{name}({', '.join(arguments)})"


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped.replace("\r", "\\r") + '"'
