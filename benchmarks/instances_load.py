"""``bohnanza load`` against 1, 2 and 3 instances of ``bohnanza serve`` on one PostgreSQL
database behind nginx (docs/deploy.md, deploy/nginx.conf): actions a second, latency,
errors, and each instance's CPU per action, so that the scaling can be read on a machine
whose cores are the ceiling.

    python benchmarks/instances_load.py --instances 1 2 3 --tables 60 --duration 30

A throwaway PostgreSQL cluster is started for each line-up (the binaries of Debian's
``postgresql`` package), nginx from ``/usr/sbin/nginx``.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bohnanza.web.load import OPEN_LIMITS, cpu_seconds

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kill_under_load import Server, database, free_port

ROOT = Path(__file__).resolve().parents[1]


def nginx_conf(folder: Path, ports: list[int], listen: int) -> Path:
    text = (ROOT / "deploy" / "nginx.conf").read_text()
    servers = "".join(f"\t\tserver 127.0.0.1:{p} max_fails=1 fail_timeout=5s;\n" for p in ports)
    text = re.sub(r"(\t\tserver 127\.0\.0\.1:\d+[^\n]*\n)+", servers, text)
    text = text.replace("listen 8080;", f"listen 127.0.0.1:{listen};")
    text = text.replace(
        "http {", f"http {{\n\taccess_log off;\n\tclient_body_temp_path {folder}/body;"
    )
    text = text.replace(
        "events {}",
        f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log;\nevents {{ worker_connections 4096; }}",
    )
    conf = folder / "nginx.conf"
    conf.write_text(text)
    return conf


def one(instances: int, tables: int, duration: float, think: float) -> dict[str, object]:
    with database("postgresql", None) as (url, _name):
        folder = Path(tempfile.mkdtemp(prefix="bohnanza-instances-"))
        log = folder / "server.log"
        servers = [Server(url, list(OPEN_LIMITS), log) for _ in range(instances)]
        listen = free_port()
        conf = nginx_conf(folder, [int(s.url.rsplit(":", 1)[1]) for s in servers], listen)
        proxy = subprocess.Popen(
            ["/usr/sbin/nginx", "-p", str(folder), "-c", str(conf), "-g", "daemon off;"]
        )
        base = f"http://127.0.0.1:{listen}"
        try:
            for _ in range(100):
                try:
                    if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            time.sleep(1.5)  # the instances know each other
            before = [cpu_seconds(s.proc.pid) or 0.0 for s in servers]
            out = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "bohnanza",
                    "load",
                    "--url",
                    base,
                    "--tables",
                    str(tables),
                    "--duration",
                    str(duration),
                    "--think",
                    str(think),
                    "--json",
                ],
                capture_output=True,
                text=True,
                timeout=duration * 4 + 300,
            )
            after = [cpu_seconds(s.proc.pid) or 0.0 for s in servers]
        finally:
            proxy.terminate()
            proxy.wait(10)
            for s in servers:
                s.stop()
        try:
            figures = json.loads(out.stdout)
        except json.JSONDecodeError:
            raise RuntimeError(out.stdout[-2000:] + out.stderr[-2000:]) from None
        cpu = [b - a for a, b in zip(before, after, strict=True)]
        return {"instances": instances, "load": figures, "cpu_s": cpu}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--instances", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--tables", type=int, default=60)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--think", type=float, default=1.0)
    args = ap.parse_args()
    for n in args.instances:
        result = one(n, args.tables, args.duration, args.think)
        load = result["load"]
        cpu = result["cpu_s"]
        assert isinstance(load, dict) and isinstance(cpu, list)
        lat = load["latency_ms"]
        print(
            f"{n} instance(s): {load['actions']} actions, {load['actions_per_s']}/s, "
            f"latency p50 {lat['p50']} ms p99 {lat['p99']} ms, errors {load['errors']}, "
            f"moved {load.get('moved', 0)} {load.get('errors_by_kind') or ''}, "
            f"server CPU s {[round(c, 1) for c in cpu]} "
            f"({1000 * sum(cpu) / max(1, load['actions']):.2f} ms per action), "
            f"client CPU {load['client_cpu']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
