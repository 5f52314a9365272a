"""The methods room: one module per method, each taking a problem (through
:class:`~mechdesign.design.spec.ProblemSpec`) to an engine and back to a certified
:class:`~mechdesign.design.result.DesignResult`.

Which method runs is decided by :mod:`~mechdesign.design.planner` alone (its ``RULES``):

=========================  ===========================================================
module                     method
=========================  ===========================================================
:mod:`.walley`             WLDP read by Walley, reduced to pure LDP over the outputs
:mod:`.composed`           a central target after repeated use: per-use routes
:mod:`.shuffled`           a central target in the shuffle model: the clone bound's eps0
:mod:`.closed_form`        k-RR in closed form (Hamming-type losses)
:mod:`.working_set`        pure LDP, expected loss, large k: cutting planes
:mod:`.minimax_staircase`  the worst prior's estimation criterion
:mod:`.pattern_generation` the A criterion past the staircase limit
:mod:`.local`              minorise-maximise (information objectives without an exact
                           program)
:mod:`.symmetric_subsets`  symmetric criterion at the uniform prior: subset selection
:mod:`.staircase_programs` information objectives by the staircase programs
:mod:`.row_generation`     exact metric privacy, rows generated from a skeleton
:mod:`.program`            the global LP or convex program
:mod:`.known`              the catalog oracle behind an uncertified estimation design
=========================  ===========================================================

None mutates the problem; each returns through the result builder of
:mod:`~mechdesign.design.outcome`.
"""

__all__: list[str] = []
