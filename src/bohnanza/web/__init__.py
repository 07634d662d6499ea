"""The multiplayer web app: ``bohnanza serve`` (see ``docs/web.md``).

Importing this package needs nothing beyond the engine; the server's modules need the
``web`` extra (FastAPI, uvicorn, SQLAlchemy, psycopg).
"""

from __future__ import annotations

__all__ = ["serve"]

from .command import serve
