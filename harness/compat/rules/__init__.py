"""The change classes, one module per id group; see :mod:`harness.compat.registry` for what a
rule receives and returns.

Ids are stable (reports, waivers and CI files refer to them) and grouped:

- ``CMP1xx`` objects (:mod:`.objects`): required names, properties, closing, counts;
- ``CMP2xx`` values and types (:mod:`.values`): enum, const, type;
- ``CMP3xx`` strings and numbers (:mod:`.scalars`): lengths, bounds, pattern, format;
- ``CMP4xx`` arrays (:mod:`.arrays`): item counts, positions, uniqueness, contains;
- ``CMP5xx`` composition, conditions and references (:mod:`.composition`);
- ``CMP9xx`` what is not modelled (:mod:`.unsupported`), and ``CMP999`` the fallback.

Each rule is an ordinary function decorated with ``@RULES.rule(...)``;
:data:`harness.compat.registry.RULES` names these modules and imports them on first read, so
nothing has to import them beforehand. Detection order within a fact group is registration
order: the unsupported cases come first.
"""
