"""Settings read from the environment the way the README writes them."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("value, keys", [("", []), ("  ", []), ("a,b", ["a", "b"]), ('["a", "b"]', ["a", "b"]),
                                         ("a, ,b ", ["a", "b"])])
def test_list_settings_read_from_the_environment(monkeypatch, value, keys):
    from indexing.settings import ScholarSettings

    monkeypatch.setenv("SCHOLAR_API_KEYS", value)
    monkeypatch.setenv("SCHOLAR_TRUSTED_PROXIES", value)
    settings = ScholarSettings(_env_file=None)
    assert settings.api_keys == keys and settings.trusted_proxies == keys
