"""The differential check: the production validator's verdicts held against an independent one's.

The production validator (jsonschema-rs) decides every case; the reference validator
(python-jsonschema, formats asserted, pattern searches bounded) gives its own verdict on the same
document and schema, and a disagreement is a ``differential`` finding. The package's parts:

- :mod:`~harness.differential.check`: the check the engine calls, once per distinct (schema,
  document) pair of a run (it imports python-jsonschema only when a pair needs the reference);
- :mod:`~harness.differential.verdicts`: the reference's verdicts saved between runs (sealed);
- :mod:`~harness.differential.reference`: the reference validator;
- :mod:`~harness.differential.bounded`: its class, python-jsonschema's extended (through
  ``jsonschema.validators.extend``) with pattern searches under a time bound;
- :mod:`~harness.differential.steps`: the validator the library makes for each subschema, and the
  one keyword table the walks read (from :mod:`harness.schemas.dialects`);
- :mod:`~harness.differential.whole`: the reference's verdict on a whole document, by a walk that
  remembers each part's;
- :mod:`~harness.differential.confirm`: the confirming walk, a production rejection shown by the
  reference on the part the production's error points at.
"""
