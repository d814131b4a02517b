"""Settings every test shares."""

import pytest
from stop_on_sigterm import pytest_configure, pytest_unconfigure  # noqa: F401  (SIGTERM stops the run and its children)


@pytest.fixture(scope="session", autouse=True)
def sb3_logs_in_the_session_directory(tmp_path_factory):
    """Stable-Baselines3 makes a folder for its logger at every ``learn`` (``/tmp/SB3-<time>``,
    empty when nothing is logged) unless ``SB3_LOGDIR`` names one: name the session's, so that
    the suite leaves nothing in ``/tmp`` (training processes the tests start inherit it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SB3_LOGDIR", str(tmp_path_factory.mktemp("sb3_logs")))
        yield
