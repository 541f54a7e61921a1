import pickle

import pytest

from dashboard.config import DEMO_BASE_URL, PRODUCTION_BASE_URL, ApiSettings, SubscriptionKey

KEY = "0123456789abcdef0123456789abcdef"


def test_key_never_shows_itself():
    key = SubscriptionKey(KEY)
    for text in (repr(key), str(key), f"{key}", f"{key!r:>10}", "%s" % key):
        assert KEY not in text
    assert key.reveal() == KEY
    with pytest.raises(TypeError):
        pickle.dumps(key)


def test_demo_mode_is_on_without_key_and_base_url():
    s = ApiSettings.from_env(environ={})
    assert s.demo and s.base_url == DEMO_BASE_URL


def test_a_key_means_the_real_service():
    s = ApiSettings.from_env(environ={"SEC_API_KEY": KEY})
    assert not s.demo and s.base_url == PRODUCTION_BASE_URL
    assert KEY not in repr(s) and "api_key=set" in repr(s)


def test_per_group_keys_override_the_shared_key():
    s = ApiSettings.from_env(environ={"SEC_API_KEY": "shared", "SEC_LICENSE_API_KEY": "lic"})
    assert s.key_for("fund").reveal() == "shared"
    assert s.key_for("license").reveal() == "lic"


def test_parameters_beat_the_environment_and_demo_can_be_forced():
    s = ApiSettings.from_env(base_url="http://127.0.0.1:9/", environ={"SEC_API_BASE_URL": "http://elsewhere"})
    assert s.base_url == "http://127.0.0.1:9" and not s.demo
    assert ApiSettings.from_env(demo=True, environ={"SEC_API_KEY": KEY}).demo


def test_cache_dir_override(tmp_path):
    s = ApiSettings.from_env(environ={"SEC_DASHBOARD_CACHE_DIR": str(tmp_path / "c")})
    assert s.cache_dir == tmp_path / "c"


@pytest.mark.parametrize("pasted", [KEY[:10] + "\u200b" + KEY[10:], KEY[:5] + "ก" + KEY[5:], KEY[:8] + " " + KEY[8:]])
def test_a_key_no_header_can_carry_is_refused_without_echoing_it(pasted):
    from dashboard.errors import AuthenticationError

    with pytest.raises(AuthenticationError) as err:
        ApiSettings.from_env(environ={"SEC_API_KEY": pasted})
    message = str(err.value)
    assert "copy it again" in message and KEY[:5] not in message and "ก" not in message and err.value.exit_code == 3


@pytest.mark.parametrize("url, words", [
    ("api.sec.or.th", "must start with https://"),
    ("ftp://api.sec.or.th", "must start with https://"),
    ("https://user:secret@api.sec.or.th", "may not hold a user name"),
    ("https://api.sec.or.th/?subscription-key=abc", "may not hold a user name, password, query"),
])
def test_unusable_or_secret_bearing_base_urls_are_refused(url, words):
    with pytest.raises(ValueError, match=words) as err:
        ApiSettings.from_env(base_url=url, environ={})
    assert "secret" not in str(err.value) and "abc" not in str(err.value)
