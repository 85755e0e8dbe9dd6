"""Which Host headers a server answers to (the requests themselves: test_app.py)."""

from autobyteus_like.web._access_guard import allowed_hosts


def test_a_loopback_server_answers_to_its_loopback_names_only():
    assert allowed_hosts("127.0.0.1", 8000) == {"127.0.0.1:8000", "localhost:8000",
                                                "[::1]:8000"}
    assert allowed_hosts("192.168.1.5", 80) == {"192.168.1.5:80"}
    assert allowed_hosts("0.0.0.0", 80) is None  # every address: the token alone guards it
