import pytest


@pytest.fixture(autouse=True, scope="session")
def _search_cache(tmp_path_factory):
    """Indexes built by these tests go to a temporary cache, never the user's."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PALAESTRA_CACHE", str(tmp_path_factory.mktemp("palaestra-cache")))
    yield
    mp.undo()
