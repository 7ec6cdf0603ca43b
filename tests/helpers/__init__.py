"""What several test modules share and is not a fixture: paths to this checkout and the shared
corpora (:mod:`tests.helpers.paths`), throwaway contracts and results
(:mod:`tests.helpers.contracts`), the CLI run as a subprocess (:mod:`tests.helpers.cli`), the
guard tests' JSON-RPC peer (:mod:`tests.helpers.guard`), the compat pairs table, the workflow
step runner. Fixtures and hooks stay in the ``conftest.py`` files."""
