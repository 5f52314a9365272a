"""Build hook: the package list, which ``pyproject.toml`` cannot state declaratively.

The built-in problem files have one copy, the top-level ``problems/`` folder; the wheel
ships them as the package ``mechdesign.problems`` (package data, no ``__init__.py``), mapped
to that folder by ``package-dir`` in ``pyproject.toml``. Package discovery finds only the
folders under ``mechdesign/``, so that one package is added here.
"""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["mechdesign", "mechdesign.*"]), "mechdesign.problems"])
