"""Shared pytest configuration (keep it small: engine tests need no Django fixtures)."""

from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent


@pytest.fixture
def base_dir() -> Path:
    """Return the project root (where manage.py lives)."""
    return BASE_DIR
