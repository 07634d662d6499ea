"""Every table the web app stores: the models' metadata, for Alembic's environment
(``migrations/env.py``) and the test that the revisions match the models.

It imports every module that defines a model, so it stands above them all; the
migrations package itself knows none of them (``Store`` runs ``migrations.migrate``, and
the models import the store), which keeps the imports free of circles.
"""

from __future__ import annotations

from sqlalchemy import MetaData


def metadata() -> MetaData:
    """Every table the models describe (the modules that define them imported)."""
    from . import accounts, leases, mail, passkeys, ratings  # noqa: F401  (their models join Base.metadata)
    from .store import Base

    return Base.metadata
