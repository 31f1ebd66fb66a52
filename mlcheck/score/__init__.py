"""Scores, as pure functions: takes the runs' times and the round's facts, gives the
time-to-train of a run and the benchmark result of a folder (:mod:`mlcheck.score.scoring`: drop
the fastest and slowest, non-converged runs counted as the slowest, the median of 3-run
benchmarks, committee scaling) and the reference convergence test (:mod:`mlcheck.score.rcp`:
olympic means, the one-sided t-test, interpolation, pruning, normalisation). A score is computed
even when findings exist, and says whether it is valid and why."""
