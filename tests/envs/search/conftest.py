import os

import pytest

USER_CACHE = os.environ.get("PALAESTRA_CACHE")
"""The cache before these tests redirect it (the trainer's tiny model is built there)."""


@pytest.fixture(autouse=True, scope="session")
def _search_cache(tmp_path_factory):
    """Indexes built by these tests go to a temporary cache, never the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PALAESTRA_CACHE", str(tmp_path_factory.mktemp("palaestra-cache")))
    yield
    mp.undo()


@pytest.fixture
def user_cache() -> str | None:
    """`USER_CACHE`, for tests that run the trainer in a subprocess."""
    return USER_CACHE
