"""Unit-test set-up lives in the repository's root ``conftest.py`` (profiles, sys.path)."""
