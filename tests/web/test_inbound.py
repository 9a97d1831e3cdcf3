"""game.web.inbound: any websocket frame becomes a checked Inbound; nothing raises.

Property-based (Hypothesis): any text, any JSON shape, depth and number size,
binary frames, oversized frames; and the rate limit each phone's messages pass first
(game.web.limits.RateLimit).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from game.web.inbound import (
    MAX_ACTION_LENGTH,
    MAX_MESSAGE_BYTES,
    MAX_VERSION,
    Inbound,
    read_message,
    too_fast,
)
from game.web.limits import RateLimit

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)
keys = st.sampled_from(["action", "version", "sync", "ping", "HEADERS", "x"])
messages = st.dictionaries(keys, json_values, max_size=5)
notations = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E),
    min_size=1,
    max_size=MAX_ACTION_LENGTH,
)


def is_well_formed(inbound: Inbound) -> bool:
    if inbound.kind == "bad":
        return bool(inbound.problem) and not inbound.action and inbound.version is None
    if inbound.kind == "action":
        return bool(inbound.action) and inbound.version is not None and not inbound.problem
    return not inbound.problem


@settings(max_examples=500)
@given(st.text(max_size=300))
def test_any_text_is_read_without_raising(text: str) -> None:
    assert is_well_formed(read_message(text))


@settings(max_examples=500)
@given(messages)
def test_any_json_object_is_read_without_raising(message: dict[str, Any]) -> None:
    inbound = read_message(json.dumps(message))
    assert is_well_formed(inbound)
    if inbound.kind == "action":
        assert inbound.action == message["action"]


@settings(max_examples=200)
@given(json_values)
def test_any_json_value_that_is_not_an_object_is_bad(value: Any) -> None:
    inbound = read_message(json.dumps(value))
    assert inbound.kind == "bad" or isinstance(value, dict)


@given(st.binary(max_size=200), st.none() | st.text(max_size=20))
def test_binary_frames_are_bad(data: bytes, text: str | None) -> None:
    assert read_message(text, data).kind == "bad"


@given(notations, st.integers(min_value=0, max_value=MAX_VERSION))
def test_a_real_action_is_read(action: str, version: int) -> None:
    for sent in (version, str(version)):
        text = json.dumps({"action": action, "version": sent, "HEADERS": {"HX-Request": "true"}})
        assert read_message(text) == Inbound("action", action=action, version=version)


@pytest.mark.parametrize(
    "version",
    [
        -1,
        MAX_VERSION + 1,
        10**100,
        1.5,
        True,
        None,
        "",
        "-1",
        " 1",
        "1e3",
        "١٢",
        "9" * 11,
        [1],
        {"v": 1},
    ],
)
def test_odd_versions_are_bad(version: Any) -> None:
    text = json.dumps({"action": "take:wug", "version": version})
    if len(text) <= MAX_MESSAGE_BYTES:
        assert read_message(text).kind == "bad"
    else:
        assert read_message(text).problem == "That message is too long."


@pytest.mark.parametrize(
    "action", ["", "x" * (MAX_ACTION_LENGTH + 1), "take:wüg", "take\x00wug", "\ud800", 17, None]
)
def test_odd_actions_are_bad(action: Any) -> None:
    assert read_message(json.dumps({"action": action, "version": 3})).kind == "bad"


@pytest.mark.parametrize(
    "text",
    [
        "[" * 2000 + "]" * 2000,
        '{"a":' * 1000 + "1" + "}" * 1000,
        "[" * 100_000,
        "9" * 4000,
        '{"action": "take:wug", "version": ' + "9" * 4000 + "}",
        '{"version": NaN, "action": "x"}',
        '{"version": Infinity, "action": "x"}',
        '{"sync": true, "sync": false}',
        "\ud800",
        '"\\ud800"',
        '{"action": "\\ud800", "version": 1}',
        "\x00",
        "",
        "null",
        "1e999999",
    ],
)
def test_hostile_texts_are_refused_not_raised(text: str) -> None:
    assert is_well_formed(read_message(text))


def test_oversized_frames_are_refused_unread() -> None:
    assert read_message(" " * (MAX_MESSAGE_BYTES + 1)).problem == "That message is too long."
    # Counted in bytes: 1,100 emoji are 4,400 bytes.
    assert read_message(json.dumps({"a": "🦄" * 1100}, ensure_ascii=False)).kind == "bad"
    assert read_message("x" * 1_048_576).kind == "bad"


def test_sync_and_ping() -> None:
    assert read_message('{"sync": true}').kind == "sync"
    assert read_message('{"ping": true}').kind == "ping"
    assert read_message('{"sync": "yes"}').kind == "bad"


@pytest.mark.parametrize("language", ["de", "fi"])
def test_problems_are_translated(language: str) -> None:
    english = [read_message("x").problem, read_message("x" * 5000).problem, too_fast().problem]
    with translation.override(language):
        translated = [
            read_message("x").problem,
            read_message("x" * 5000).problem,
            too_fast().problem,
        ]
    assert all(a != b for a, b in zip(english, translated, strict=True))


def test_the_rate_limit_allows_a_burst_then_the_average() -> None:
    limit = RateLimit(per_second=4, burst=5)
    assert [limit.allow(100.0) for _ in range(7)] == [True] * 5 + [False] * 2
    assert limit.allow(100.125) is False  # half a token
    assert limit.allow(100.25) is True
    assert limit.allow(110.0) and sum(limit.allow(110.0) for _ in range(10)) == 4


@given(
    st.floats(min_value=0.1, max_value=100),
    st.integers(min_value=1, max_value=50),
    st.lists(st.floats(min_value=0, max_value=5), max_size=200),
)
def test_the_rate_limit_never_allows_more_than_burst_plus_rate(
    per_second: float, burst: int, gaps: list[float]
) -> None:
    limit = RateLimit(per_second, burst)
    now, allowed = 1000.0, 0
    for gap in gaps:
        now += gap
        allowed += limit.allow(now)
    assert allowed <= burst + per_second * (now - 1000.0) + 1e-6


def test_a_clock_going_back_gives_no_extra_tokens() -> None:
    limit = RateLimit(per_second=1, burst=1)
    assert limit.allow(50.0)
    assert not limit.allow(10.0)
    assert not limit.allow(50.5)
    assert limit.allow(51.0)
