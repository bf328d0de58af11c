"""Sizing a site: ``ladder capacity``, a model of the instances, engines and cores N
games need, checked by a simulation of the service behind a balancer
(:mod:`ladder.capacity.model`, :mod:`ladder.capacity.simulation`) and validated against
real instances here (scripts/validate_capacity.py)."""
