"""The self-hosting kit (Dockerfile, compose.yaml, deploy/): checked as far as this machine
allows without a container engine, and the same setup run without containers: two
instances of ``bohnanza serve`` on a throwaway PostgreSQL cluster behind Debian's nginx,
played through the proxy, one instance killed with SIGKILL mid-game."""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from bohnanza.web.command import serve
from bohnanza.web.store import Store
from scripts import load_script

from .client import Client
from .conftest import Postgres, ServerProcess, free_port
from .test_instances import BOTS, assert_stored
from .test_restart import _play

ROOT = Path(__file__).resolve().parents[2]


def _serve_flags() -> set[str]:
    return set(re.findall(r"--[a-z][a-z-]+", CliRunner().invoke(serve, ["--help"]).output))


def _flags(command: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", command.split("bohnanza serve", 1)[1]))


def test_the_dockerfile_runs_the_compiled_server_as_a_user_with_a_health_check() -> None:
    text = (ROOT / "Dockerfile").read_text()
    assert "BOHNANZA_COMPILE=1" in text  # the compiled core
    user = re.findall(r"^USER (\S+)", text, re.MULTILINE)
    assert user and user[-1] not in ("root", "0")
    assert "HEALTHCHECK" in text and "/healthz" in text
    command = text.rsplit("CMD", 1)[1]
    assert _flags(command) <= _serve_flags(), _flags(command) - _serve_flags()


def test_compose_has_postgres_two_instances_and_caddy() -> None:
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert {"db", "web1", "web2", "caddy"} <= set(services)
    assert services["db"]["image"].startswith("postgres:")
    for name in ("web1", "web2"):
        command = " ".join(services[name]["command"])
        assert _flags(command) <= _serve_flags(), _flags(command) - _serve_flags()
        assert f"--instance-url http://{name}:8000" in command
        assert services[name]["environment"]["DATABASE_URL"].startswith("postgresql")
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "web1:8000" in caddyfile and "web2:8000" in caddyfile
    assert "./deploy/Caddyfile:/etc/caddy/Caddyfile:ro" in services["caddy"]["volumes"]


NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def _nginx_conf(base: Path, ports: list[int], listen: int) -> Path:
    """deploy/nginx.conf with this run's upstreams, port and files (the benchmark's)."""
    conf: Path = load_script("benchmarks/instances_load.py").nginx_conf(base, ports, listen)
    return conf


@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is absent (apt-get install nginx)")
def test_the_nginx_configuration_is_valid(tmp_path: Path) -> None:
    conf = _nginx_conf(tmp_path, [8001, 8002], free_port())
    r = subprocess.run(
        [NGINX, "-t", "-p", str(tmp_path), "-c", str(conf)], capture_output=True, text=True
    )
    assert r.returncode == 0, r.stderr


@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is absent (apt-get install nginx)")
def test_two_instances_behind_nginx_survive_a_kill(postgres: Postgres, tmp_path: Path) -> None:
    """Everything through the proxy: a table made, joined and played; the instance that
    owns it killed with SIGKILL; the player reconnects through the proxy and plays on
    (the other instance took the table over); every acknowledged action is stored."""
    url = postgres.new_database()
    flags = ("--bot-delay", "0.02", "--bot-grace", "0", "--trust-proxy")
    servers = [ServerProcess(url, *flags), ServerProcess(url, *flags)]
    listen = free_port()
    conf = _nginx_conf(tmp_path, [int(s.url.rsplit(":", 1)[1]) for s in servers], listen)
    proxy = subprocess.Popen(
        [NGINX, "-p", str(tmp_path), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{listen}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "nginx did not start"
            time.sleep(0.1)
        time.sleep(1.2)  # the instances know each other's heartbeats
        with httpx.Client(base_url=base, timeout=10) as http:
            body = {"rules": "classic", "players": 3, "name": "Ada", "seats": BOTS, "seed": 9}
            made = http.post("/api/tables", json=body).json()
            table = made["table"]["id"]
            assert http.get(f"/api/tables/{table}").json()["id"] == table
        ws = base.replace("http://", "ws://")
        ada = Client(ws, table)
        ada.hello(made["token"])
        assert ada.request({"type": "start"})["type"] == "ack"
        proposed: set[int] = set()
        acked = _play(ada, 4, proposed)
        owner = _owner(url, table)
        victim = next(s for s in servers if str(s.proc.pid) in owner)
        victim.kill()
        ada.close()
        deadline = time.monotonic() + 15
        while True:
            try:
                ada = Client(ws, table)
                if ada.hello(made["token"]).get("type") == "welcome":
                    break
                ada.close()
            except Exception:
                pass
            assert time.monotonic() < deadline, "the table was not served again"
            time.sleep(0.2)
        assert ada.seq >= acked[-1][0]
        acked += _play(ada, 4, proposed)
        ada.close()
        assert_stored(url, table, acked)
    finally:
        proxy.terminate()
        proxy.wait(10)
        for s in servers:
            if s.proc.poll() is None:
                s.stop()


def _owner(url: str, table: str) -> Any:
    from sqlalchemy import select

    from bohnanza.web.leases import LeaseRow

    store = Store(url)
    try:
        with store.engine.connect() as conn:
            return conn.execute(select(LeaseRow.owner).where(LeaseRow.table_id == table)).scalar()
    finally:
        store.close()
