"""The `ladder` command line."""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ladder", description=__doc__)
    parser.parse_args(argv)
    return 0
