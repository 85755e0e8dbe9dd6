"""Which Host headers a server answers to (the requests themselves: test_app.py)."""

from autobyteus_like.web._access_guard import allowed_hosts


def test_a_loopback_server_answers_to_its_loopback_names_only():
    assert allowed_hosts("127.0.0.1", 8000) == {"127.0.0.1:8000", "localhost:8000",
                                                "[::1]:8000"}
    assert allowed_hosts("192.168.1.5", 8080) == {"192.168.1.5:8080"}
    assert allowed_hosts("0.0.0.0", 80) is None  # every address: the token alone guards it


def test_a_server_on_port_80_answers_to_the_host_a_browser_sends():
    # a browser leaves :80 out of Host for the printed http://127.0.0.1:80/ URL
    assert allowed_hosts("127.0.0.1", 80) == {"127.0.0.1:80", "localhost:80", "[::1]:80",
                                              "127.0.0.1", "localhost", "[::1]"}
    assert allowed_hosts("192.168.1.5", 80) == {"192.168.1.5:80", "192.168.1.5"}
    assert "127.0.0.1" not in allowed_hosts("127.0.0.1", 8080)
