"""The facts of each round, as data: takes a round's version (``2.0.0``), gives its targets,
limits, run counts and scoring (:mod:`mlcheck.facts.rulesets`, from
``schemas/rulesets/<X.Y.Z>/ruleset.json``) and its log constraints with their interpreter
(:mod:`mlcheck.facts.constraints`, from ``constraints.json``). Each shipped file is valid against its
JSON Schema (the tests check them all, so no start pays for it); nothing here imports another part of
mlcheck but :mod:`mlcheck.records`. The data files are found by :mod:`mlcheck.facts.resources`."""
