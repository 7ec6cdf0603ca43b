"""Drift's defaults that the CLI states in ``drift --help`` without loading the runner."""

#: Upstreams checked at once unless asked otherwise.
DEFAULT_CONCURRENCY = 4
