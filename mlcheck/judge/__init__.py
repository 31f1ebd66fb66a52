"""Judging what is judged together: takes the judged runs (``RunResult``) and the paths given,
gives each benchmark folder's result and the package findings.

- :mod:`~mlcheck.judge.folders`: the runs of one benchmark folder together (the run count,
  non-converged runs, the score with scaling.json, the RCP test, the runs compared).
- :mod:`~mlcheck.judge.package_check`: a package's layout and system descriptions, read once,
  judged by the package rules, and attached to the benchmark results.

One run is judged by :func:`mlcheck.checker.judge_run`; :func:`mlcheck.checker.check` drives
the stages in order. This is where reading, rules and scores meet, so it sits above all three.
"""
