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


def test_public_prints_every_address_friends_can_open(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bohnanza.web",
            "--public",
            "--port",
            "0",
            "--database-url",
            f"sqlite:///{tmp_path / 'g.db'}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        lines = []
        while not (lines and lines[-1].startswith("database:")):
            lines.append(proc.stdout.readline())
            assert lines[-1], lines
    finally:
        proc.terminate()
        proc.wait(10)
    assert lines[0].startswith("Bohnanza is running: open http://127.0.0.1:")
    port = lines[0].rsplit(":", 1)[1].strip().rstrip("/")
    # Every other address printed is one friends on the network can open, same port.
    for line in lines[1:-1]:
        assert line.strip().startswith("friends on your network: http://")
        assert line.strip().endswith(f":{port}/")
