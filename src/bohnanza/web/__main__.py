"""``python -m bohnanza.web`` is ``bohnanza serve``."""

from .command import serve

if __name__ == "__main__":
    serve()
