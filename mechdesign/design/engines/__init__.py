"""The engines room: the numerical methods themselves, on arrays.

An engine takes arrays (costs, an objective, an envelope), callbacks (a deadline, a
solve of one step) and returns arrays and a bound; it never sees a design problem, so it can
be tested, benchmarked and reused on its own. The methods
(:mod:`~mechdesign.design.methods`) translate a problem to an engine's inputs and its answer
to a certified result.

* :mod:`.cut_generation`: cutting planes in the column floors of pure LDP;
* :mod:`.working_set`: the LP of (input, output) pairs over a working set of outputs;
* :mod:`.staircase`: the staircase programs of information objectives;
* :mod:`.minimax_staircase`: the staircase epigraph program of the worst prior;
* :mod:`.pattern_generation`: column generation over staircase patterns;
* :mod:`.local`: minorise-maximise over a convex feasible set.
"""

__all__: list[str] = []
