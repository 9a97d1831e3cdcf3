"""The vocabulary reaches templates (context processor) and the JavaScript (base.html)."""

from __future__ import annotations

import json
import re

import pytest
from django.template import engines
from django.test import Client, RequestFactory

from game.engine.vocabulary import COLOUR_LETTERS, ActionKind, Colour, Phase

pytestmark = pytest.mark.django_db

JSON_SCRIPT = re.compile(
    r'<script id="splendor-vocabulary" type="application/json">(.*?)</script>', re.S
)


def test_every_page_hands_the_javascript_the_vocabulary() -> None:
    page = Client().get("/").content.decode()
    (found,) = JSON_SCRIPT.findall(page)
    vocabulary = json.loads(found)
    assert vocabulary["letters"] == COLOUR_LETTERS == "wugrky"
    assert vocabulary["colours"] == [c.slug for c in Colour]
    assert vocabulary["phases"] == {p.name: p.value for p in Phase}
    assert vocabulary["actions"] == {k.name: k.value for k in ActionKind}


def test_a_template_compares_with_the_vocabulary_instead_of_strings() -> None:
    template = engines["django"].from_string(
        "{% if phase == PHASE.RETURN %}give back{% endif %} {{ ACTION.BUY }} {{ COLOUR.BLACK }}"
    )
    request = RequestFactory().get("/")
    assert template.render({"phase": Phase.RETURN}, request) == "give back buy black"
    assert template.render({"phase": "main"}, request) == " buy black"
