"""``python -m bohnanza``: the same command line as the ``bohnanza`` script (useful from a
source checkout with ``PYTHONPATH=src``, where the script is not installed)."""

from .cli import main

if __name__ == "__main__":
    main()
