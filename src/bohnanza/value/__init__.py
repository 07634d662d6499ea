"""A value model learned from play: what a position is worth to each seat.

:mod:`.features` turns a seat's view into numbers, :mod:`.data` records positions and
their outcomes from seeded games of a varied pool of bots, :mod:`.model` fits a small
numpy model (ridge or a one-hidden-layer network) that predicts a seat's coins still
to come, :mod:`.train` is ``bohnanza train value``. The ``valuesearch`` bot
(:mod:`bohnanza.agents.valuesearch`) scores its roll-outs' ends with it. docs/value.md
has the figures and the commands that made them.
"""
