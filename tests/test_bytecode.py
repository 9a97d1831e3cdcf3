"""The project is compiled before the tests start (tests/conftest.py, `compile_project`):
the servers, migrations and scripts the tests start read its bytecode instead of each
compiling the project again where PYTHONDONTWRITEBYTECODE is set."""

import importlib.util
from pathlib import Path

from tests.conftest import BASE_DIR, COMPILED


def test_every_module_of_the_project_has_its_bytecode_written() -> None:
    sources = [path for package in COMPILED for path in (BASE_DIR / package).rglob("*.py")]
    assert len(sources) > 100, sources
    missing = [
        str(source.relative_to(BASE_DIR))
        for source in sources
        if not Path(importlib.util.cache_from_source(str(source))).exists()
    ]
    assert not missing, f"Not compiled before the tests: {missing[:10]}"
