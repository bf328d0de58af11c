"""The package's names (protocol/__init__.py): each one its module's, imported when first
asked for, so that one submodule does not import the others (python-chess among them)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import protocol


def test_every_name_is_its_modules() -> None:
    for name in protocol.__all__:
        module = importlib.import_module(protocol._MODULES[name])
        assert getattr(protocol, name) is getattr(module, name), name
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        protocol.Nothing  # type: ignore[attr-defined]  # noqa: B018


def test_a_submodule_alone_does_not_import_python_chess() -> None:
    code = (
        "import sys; import protocol.notation; assert 'chess' not in sys.modules; "
        "from protocol import Engine; assert 'chess' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
