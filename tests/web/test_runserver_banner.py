"""`manage.py runserver` says where the TV and the phones go."""

from __future__ import annotations

import pytest
from django.core.management import get_commands, load_command_class

from game.management.commands.runserver import Command, where_to_go


def test_runserver_is_ours_and_still_daphnes() -> None:
    assert get_commands()["runserver"] == "game"
    command = load_command_class("game", "runserver")
    assert isinstance(command, Command)
    assert "daphne" in type(command).__mro__[1].__module__


def test_on_every_interface_it_names_the_tv_and_the_phone_addresses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SPLENDOR_HOST", "192.168.1.23")
    text = where_to_go("0.0.0.0", 8000)
    assert "http://localhost:8000/" in text
    assert "http://192.168.1.23:8000/" in text
    assert "0.0.0.0" not in text


def test_on_loopback_it_says_phones_cannot_reach_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPLENDOR_HOST", "192.168.1.23")
    text = where_to_go("127.0.0.1", 8123)
    assert "http://127.0.0.1:8123/" in text
    assert "runserver 0.0.0.0:8123" in text
    assert "192.168.1.23" not in text
