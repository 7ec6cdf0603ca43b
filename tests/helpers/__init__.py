"""What several test modules share and is not a fixture: paths to this checkout and the shared
corpora (:mod:`tests.helpers.paths`), throwaway contracts and results
(:mod:`tests.helpers.contracts`), the compat pairs table, the workflow step runner. Fixtures and
hooks stay in the ``conftest.py`` files."""
