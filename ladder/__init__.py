"""Mistboard's engine ladder: rules checker, strength levels, move service, matches."""
