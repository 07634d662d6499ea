"""``bohnanza serve``: options, and one clear error line for what cannot work."""

from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from bohnanza.web.command import serve


def test_help_lists_the_options() -> None:
    result = CliRunner().invoke(serve, ["--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--database-url", "DATABASE_URL", "--away-timeout"):
        assert option in result.output


def test_a_port_in_use_is_one_clear_error(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = CliRunner().invoke(
            serve, ["--port", str(port), "--database-url", f"sqlite:///{tmp_path / 'g.db'}"]
        )
    assert result.exit_code != 0
    assert f"cannot listen on 127.0.0.1:{port}" in result.output


def test_a_bad_database_url_is_one_clear_error() -> None:
    result = CliRunner().invoke(serve, ["--database-url", "nosuchdb://x/y"])
    assert result.exit_code != 0
    assert "cannot open the database 'nosuchdb://x/y'" in result.output
    result = CliRunner().invoke(serve, [], env={"DATABASE_URL": "nosuchdb://from/env"})
    assert "cannot open the database 'nosuchdb://from/env'" in result.output


def test_a_bad_port_is_refused() -> None:
    result = CliRunner().invoke(serve, ["--port", "70000"])
    assert result.exit_code == 2 and "port" in result.output
