"""The rules this package ships, one module per concern. ``harness.lint.registry.RULES`` names
these modules (:data:`~harness.lint.registry.RULE_MODULES`, in catalogue order) and imports them
on first read: nothing needs importing for the catalogue to be full."""
