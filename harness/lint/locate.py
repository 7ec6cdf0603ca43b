"""Lines of JSON and YAML files for lint's ``file:line`` and SARIF regions: see :mod:`harness.locate`
(shared with the one-line errors of contract files)."""

from harness.locate import Locator, json_lines, yaml_lines

__all__ = ["Locator", "json_lines", "yaml_lines"]
