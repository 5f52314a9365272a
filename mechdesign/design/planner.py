r"""Which method solves a design problem: one ordered table of rules, and the plan it gives.

Every routing decision of the design wing lives here. :data:`RULES` is an ordered table of
methods, each with its applicability test; :func:`plan` walks it and returns a frozen
:class:`Plan` (the method, why it was chosen and why each earlier one was not, the solver
policy and its fallbacks, the reductions applied and a memory estimate) without building
anything large; :func:`run` carries a plan out. :meth:`DesignProblem.solve
<mechdesign.design.problem.DesignProblem.solve>`, :meth:`DesignProblem.plan
<mechdesign.design.problem.DesignProblem.plan>`, ``mechdesign solve --plan`` and every point of
:func:`~mechdesign.frontier.frontier` ask this module, so they cannot disagree.

The order (first applicable wins):

1. Walley semantics (WLDP read by Walley): the reduction to pure LDP over the outputs.
   A central target after repeated use (``Composed``): per-use routes, the better kept;
   in the shuffle model (``Shuffled``): pure LDP at the clone bound's epsilon0.
2. k-RR in closed form: pure LDP with a Hamming-type loss ``a(1 - I) + b`` under a uniform
   prior or the worst case (no constraints, default solver and options).
3. Working set: pure (or pure deletion) LDP with an expected loss at large ``k x n``
   (cutting planes over a working set of outputs).
4. Information objectives: the minimax staircase, pattern generation (the A criterion
   past the staircase limit), the local method when no exact program applies, the
   symmetric closed form, the staircase programs.
5. Row generation: exact metric privacy with a dense skeleton.
6. The global program (an LP or a convex program, compiled once).
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._html import clip, kv_table, short_repr, wrap
from ..accounting.notions import Composed, Shuffled
from ..privacy.notions import LDP, ApproxLDP, DeletionLDP, MetricDP
from .engines import staircase
from .engines.pattern_generation import FROM_K, MAX_K, workload_has_full_rank
from .methods import (
    closed_form,
    composed,
    local,
    minimax_staircase,
    pattern_generation,
    program,
    row_generation,
    shuffled,
    staircase_programs,
    symmetric_subsets,
    walley,
    working_set,
)
from .methods.closed_form import hamming_closed_form
from .methods.known import prefer_known
from .objectives import EstimationVariance, ExpectedLoss, InformationObjective, MinimaxEstimation
from .result import Method
from .solvers import BYTES_PER_NONZERO, MEMORY_BUDGET, Deadline

if TYPE_CHECKING:
    from .result import DesignResult
    from .spec import ProblemSpec

__all__ = ["MEMORY_BUDGET", "RULES", "RUNNERS", "WORKING_SET_BYTES_PER_CUT_ENTRY",
           "WORKING_SET_BYTES_PER_ENTRY", "WORKING_SET_BYTES_PER_PAIR",
           "WORKING_SET_MAX_EPSILON", "WORKING_SET_MIN_ENTRIES", "Method", "Plan", "Rule",
           "pattern_generation_applies", "plan", "run", "staircase_applies", "symmetric",
           "working_set_applies", "working_set_max_entries", "working_set_max_pairs"]

log = logging.getLogger("mechdesign.design")

WORKING_SET_MIN_ENTRIES = 100 * 100
"""Smallest k x n for which pure LDP with an expected loss goes to the working-set path
(measured by ``benchmarks/ldp_working_set.py``: at k = 100 both paths take well under a
second, the working set the faster, ``benchmarks/README.md``, "Pure LDP at large k"; smaller
problems keep the global program)."""

WORKING_SET_BYTES_PER_PAIR = 2_000
"""Peak memory per (input, output) pair of the working-set LP (a column, a cap row and
their copies in HiGHS): 1.8 KiB measured at k = 1000 with every pair entered (Hamming
loss, ``benchmarks/ldp_working_set.py``, before ties were kept out). The loop stops (with
the last round's optimum and its gap) before the LP's pairs pass what the budget leaves."""

WORKING_SET_BYTES_PER_CUT_ENTRY = 250
"""Peak memory per constraint entry of the cutting planes' master (the default path at large
k). Measured: pure deletion LDP on the absolute loss at k = 2000 ends with a master of
4.08 million entries (935 outputs, 15,317 cuts) at a peak RSS of 1,120 MiB for the whole
process, imports and the dense k x m arrays included: at most 190 B per entry. Held to
2,000 B a pair instead, this design stopped at 3.0 million entries with a gap of 8e-3."""

WORKING_SET_BYTES_PER_ENTRY = 250
"""Peak memory per entry of ``k x m`` outside the LP (the costs, the pair index, the pricing
temporaries, the returned matrix and its certification); checked up front. Measured: k-RR
at k = 3000 (9 million entries, 3,000 pairs) peaks 880 MiB above the imported baseline,
103 B per entry (``benchmarks/ldp_working_set.py``)."""

WORKING_SET_MAX_EPSILON = 12.0
"""Largest epsilon of the working-set path. Its cap rows carry ``e^eps - 1`` unscaled, which
multiplies the duals' errors in the bound, and at large eps the optimum is a tiny fraction
of the costs' scale, below the LP's tolerances: on 100 x 100 losses with a skewed prior the
certified gap was 7e-10 at eps = 12, 2e-7 at 18, 2e-6 at 20 (absolute loss) and above 1 at
30 (random loss). Above, the global program's split ratio rows are used. Deletion LDP's caps
are ``e^{2 eps} - 1``: its path stops at eps = ``WORKING_SET_MAX_EPSILON / 2``."""


@dataclass(frozen=True, repr=False)
class Plan:
    """What :func:`run` will do for a problem, decided without building it.

    Attributes
    ----------
    method : Method
        The method chosen (the first applicable rule of :data:`RULES`).
    reasons : tuple of str
        One line per rule tried, in order: why each earlier rule did not apply and why the
        chosen one does.
    solver_policy : str
        The solver the method starts with and the re-solves it may call for.
    reductions : tuple of str
        Reductions applied before solving (symmetry, the Walley reduction, a spanner, the
        row-generation skeleton), each with how the answer is mapped back.
    memory_bytes : int or None
        The up-front memory estimate the method is checked against (None when the method
        checks its own sizes as it goes).
    fallbacks : tuple of str
        What happens when the method stops short (another method or the catalog).
    """

    method: Method
    reasons: tuple[str, ...]
    solver_policy: str
    reductions: tuple[str, ...] = ()
    memory_bytes: int | None = None
    fallbacks: tuple[str, ...] = ()
    detail: Any = field(default=None, repr=False, compare=False)

    def __str__(self) -> str:
        mem = ("checked as it goes" if self.memory_bytes is None else
               f"about {self.memory_bytes / 2**20:,.0f} MiB (limit "
               f"{MEMORY_BUDGET / 2**30:.0f} GiB)")
        lines = [f"method: {self.method.value}", f"solver: {self.solver_policy}",
                 f"memory: {mem}"]
        lines += [f"reduction: {r}" for r in self.reductions]
        lines += [f"fallback: {f}" for f in self.fallbacks]
        lines += ["why:"] + [f"  {r}" for r in self.reasons]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return short_repr("Plan", f"{self.method.value}: {clip(self.reasons[-1], 120)}")

    def _repr_html_(self) -> str:
        """The plan as a table (notebooks)."""
        rows = [("method", self.method.value), ("solver", self.solver_policy),
                ("memory", "checked as it goes" if self.memory_bytes is None
                 else f"{self.memory_bytes:,} bytes"),
                *(("reduction", r) for r in self.reductions),
                *(("fallback", f) for f in self.fallbacks),
                *(("why", r) for r in self.reasons)]
        return wrap(kv_table(rows, "Plan"))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (the method as its string value)."""
        return {"method": self.method.value, "solver_policy": self.solver_policy,
                "reductions": list(self.reductions), "memory_bytes": self.memory_bytes,
                "fallbacks": list(self.fallbacks), "reasons": list(self.reasons)}


Verdict = tuple[bool, str, Any]
"""A rule's answer: applies, the reason (either way), and what the method needs (or None)."""


@dataclass(frozen=True)
class Rule:
    """One row of :data:`RULES`: a method and its applicability test."""

    method: Method
    test: Callable[[ProblemSpec, str | None, dict], Verdict]


# ============================================================================ the tests


def _no(reason: str) -> Verdict:
    return False, reason, None


def _walley(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if p.semantics != "walley":
        return _no("not Walley semantics")
    return True, "WLDP read by Walley: pure LDP over the outputs, embedded on the singletons", None


def _composed(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if not isinstance(p.privacy, Composed):
        return _no("not a central target after repeated use")
    return True, (f"central target after {p.privacy.uses} uses: per-use designs whose "
                  "composition is proven (pure LDP, Rényi LDP), each measured by its exact "
                  "composition, the best kept"), None


def _shuffled(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if not isinstance(p.privacy, Shuffled):
        return _no("not a central target in the shuffle model")
    return True, (f"central target for {p.privacy.n} shuffled users: pure LDP at the "
                  "largest epsilon0 whose clone bound meets it"), None


def _closed_form_krr(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if solver is not None or options:
        return _no("a solver or options were named (the closed form takes none)")
    ab = hamming_closed_form(p)
    if ab is None:
        return _no("not pure LDP with a Hamming-type loss a(1 - I) + b under a uniform prior "
                   "or the worst case, without constraints, focal sets or symmetry")
    return True, (f"pure LDP, Hamming-type loss (a = {ab[0]:g}, b = {ab[1]:g}): k-RR is "
                  "optimal, value in closed form"), ab


def _pure_ldp(p: ProblemSpec) -> bool:
    notion = p.privacy
    return isinstance(notion, LDP) or (isinstance(notion, ApproxLDP) and notion.delta == 0
                                       and not notion.relation)


def working_set_max_entries(p: ProblemSpec) -> int:
    """The constraint entries the cutting planes' master may hold: what ``MEMORY_BUDGET``
    leaves after the dense ``k x m`` arrays, at ``WORKING_SET_BYTES_PER_CUT_ENTRY`` each."""
    dense = p.k * p.n * WORKING_SET_BYTES_PER_ENTRY
    return max(0, (MEMORY_BUDGET - dense) // WORKING_SET_BYTES_PER_CUT_ENTRY)


def working_set_max_pairs(p: ProblemSpec) -> int:
    """The pairs the working-set LP of pairs (the second method) may hold: what
    ``MEMORY_BUDGET`` leaves after the dense ``k x m`` arrays, at
    ``WORKING_SET_BYTES_PER_PAIR`` each (twice that for deletion LDP, whose pairs carry a
    second row)."""
    dense = p.k * p.n * WORKING_SET_BYTES_PER_ENTRY
    per_pair = WORKING_SET_BYTES_PER_PAIR * (2 if isinstance(p.privacy, DeletionLDP) else 1)
    return max(0, (MEMORY_BUDGET - dense) // per_pair)


def symmetric(p: ProblemSpec) -> bool:
    """True when the symmetric closed form applies (uniform prior, symmetric criterion,
    pure LDP, outputs left to the design)."""
    return (isinstance(p.objective, EstimationVariance) and p.objective.symmetric
            and p.focal_sets is None and isinstance(p.privacy, LDP) and not p.outputs_given)


def staircase_applies(p: ProblemSpec) -> bool:
    """True when the staircase programs solve this information objective exactly."""
    return (p.privacy.staircase and not p.constraints
            and (p.k <= staircase.MAX_STAIRCASE_K or symmetric(p)))


def pattern_generation_applies(p: ProblemSpec, solver: str | None = None,
                               options: dict | None = None) -> bool:
    """True when the column-generation estimation path applies: the A criterion under
    pure LDP with a prior that is not uniform (or weights), no user constraints, outputs
    left to the design, a workload, if any, that sees every direction of the simplex (rank
    k - 1: the barrier master needs a non-singular information matrix), and k from
    ``pattern_generation.FROM_K`` to ``MAX_K``; below the staircase limit only with the
    default solver and no options (else the full staircase program, which takes them)."""
    obj = p.objective
    if not (isinstance(obj, EstimationVariance) and obj.criterion == "A"
            and workload_has_full_rank(obj) and isinstance(p.privacy, LDP)
            and not p.constraints and p.focal_sets is None
            and not p.outputs_given and FROM_K <= p.k <= MAX_K and not symmetric(p)):
        return False
    return p.k > staircase.MAX_STAIRCASE_K or (solver is None and not options)


def working_set_applies(p: ProblemSpec, solver: str | None, options: dict) -> bool:
    """True when the working-set path solves ``p`` (:func:`_working_set` lists why not)."""
    return _working_set(p, solver, options)[0]


def _working_set(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    """Pure LDP (or approximate LDP with delta = 0) at eps <= ``WORKING_SET_MAX_EPSILON``,
    or pure deletion LDP at half that; an expected loss; no user constraints; ordinary
    outputs; HiGHS (or the default) with no options but HiGHS's; at least
    ``WORKING_SET_MIN_ENTRIES`` entries; and the dense arrays plus the first LP (k pairs)
    within ``MEMORY_BUDGET``."""
    notion = p.privacy
    deletion = isinstance(notion, DeletionLDP) and notion.delta == 0
    if not (_pure_ldp(p) or deletion):
        return _no("not pure LDP or pure deletion LDP")
    cap = WORKING_SET_MAX_EPSILON / 2 if deletion else WORKING_SET_MAX_EPSILON
    if notion.epsilon > cap:  # type: ignore[attr-defined]
        return _no(f"epsilon {notion.epsilon:g} above the working set's {cap:g}")  # type: ignore[attr-defined]
    if not isinstance(p.objective, ExpectedLoss):
        return _no(f"objective {type(p.objective).__name__}, not an expected loss")
    if p.constraints:
        return _no("user constraints present")
    if p.focal_sets is not None:
        return _no("evidential outputs")
    if solver not in (None, "HIGHS", "highs") or not set(options) <= {"highs_options"}:
        return _no("a solver other than HiGHS, or options other than HiGHS's, were named")
    if p.k * p.n < WORKING_SET_MIN_ENTRIES:
        return _no(f"{p.k} x {p.n} below {WORKING_SET_MIN_ENTRIES:,} entries (the program "
                   "is fast there)")
    if working_set_max_pairs(p) < p.k:
        return _no("its dense arrays do not fit the memory budget")
    dense = p.k * p.n * WORKING_SET_BYTES_PER_ENTRY + p.k * WORKING_SET_BYTES_PER_PAIR
    return True, (f"pure {'deletion ' if deletion else ''}LDP with an expected loss at "
                  f"{p.k} x {p.n}: cutting planes over a working set of outputs"), dense


def _minimax(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if not isinstance(p.objective, MinimaxEstimation):
        return _no("not a minimax estimation objective")
    return True, "minimax estimation: the staircase epigraph program (pure LDP, k <= 10)", None


def _pattern_generation(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if not isinstance(p.objective, InformationObjective):
        return _no("not an information objective")
    if not pattern_generation_applies(p, solver, options):
        return _no("not the A criterion under pure LDP with a non-uniform prior in the "
                   "pattern-generation range (or a solver/options were named below the "
                   "staircase limit)")
    return True, (f"A criterion, k = {p.k}: staircase column generation with a semidefinite "
                  "lower bound"), None


def _local(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if not isinstance(p.objective, InformationObjective):
        return _no("not an information objective")
    if staircase_applies(p):
        return _no("the staircase programs apply")
    why = ("no exact program is known for this notion with this objective"
           if not p.privacy.staircase else "user constraints present" if p.constraints else
           f"k = {p.k} exceeds the staircase limit {staircase.MAX_STAIRCASE_K}")
    return True, why + ": local optimum (minorise-maximise from 3 starts)", why


def _symmetric(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if not isinstance(p.objective, InformationObjective):
        return _no("not an information objective")
    if not symmetric(p):
        return _no("not the symmetric case (uniform prior, symmetric criterion, pure LDP, "
                   "outputs left to the design)")
    return True, "symmetric criterion at a uniform prior: subset selection at its best d", None


def _staircase(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if not isinstance(p.objective, InformationObjective):
        return _no("not an information objective")
    return True, f"{type(p.objective).__name__}: the staircase programs (exact)", None


def _row_generation(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    if not isinstance(p.privacy, MetricDP):
        return _no("not metric privacy")
    skeleton = row_generation.plan(p)
    if skeleton is None:
        return _no("a spanner, a graph, or a sparse skeleton: the whole program is small")
    return True, (f"exact metric privacy with a dense skeleton ({len(skeleton):,} edges): "
                  "rows generated from the skeleton's triples"), skeleton


def _program(p: ProblemSpec, solver: str | None, options: dict) -> Verdict:
    return True, (f"{type(p.privacy).__name__} with {type(p.objective).__name__}: the global "
                  "program"), None


RULES: tuple[Rule, ...] = (
    Rule(Method.WALLEY, _walley),
    Rule(Method.COMPOSED, _composed),
    Rule(Method.SHUFFLED, _shuffled),
    Rule(Method.CLOSED_FORM_KRR, _closed_form_krr),
    Rule(Method.WORKING_SET, _working_set),
    Rule(Method.MINIMAX_STAIRCASE, _minimax),
    Rule(Method.PATTERN_GENERATION, _pattern_generation),
    Rule(Method.LOCAL, _local),
    Rule(Method.SYMMETRIC, _symmetric),
    Rule(Method.STAIRCASE, _staircase),
    Rule(Method.ROW_GENERATION, _row_generation),
    Rule(Method.PROGRAM, _program),
)
"""The methods in the order they are tried; the first whose test passes is chosen."""


# ============================================================================ the plan


def _solver_policy(method: Method, p: ProblemSpec, solver: str | None, options: dict
                   ) -> str:
    named = f"{solver.upper()} as named" if solver else None
    if method is Method.CLOSED_FORM_KRR or method is Method.SYMMETRIC:
        return "none (closed form)"
    if method is Method.WORKING_SET:
        return ("HiGHS on the master LP; the LP of pairs as a second method when HiGHS fails "
                "on it")
    if method is Method.PATTERN_GENERATION:
        return "numpy barrier on the master; Clarabel for the semidefinite bound"
    if method is Method.LOCAL:
        return (named or "the default per convex subproblem") + " (minorise-maximise)"
    if method is Method.WALLEY:
        return named or "as the pure-LDP problem it reduces to"
    if method in (Method.COMPOSED, Method.SHUFFLED):
        return named or "as each per-use problem's own plan"
    if method is Method.STAIRCASE and not isinstance(p.objective, EstimationVariance):
        return "HiGHS (scipy linprog) on the staircase LP over the patterns"
    if method in (Method.STAIRCASE, Method.MINIMAX_STAIRCASE):
        return (f"{solver.upper()} as named, its own answer stands" if solver else
                "Clarabel, retried with other settings, re-solved at tight tolerances while "
                "the certified gap is loose")
    explicit = " and its own answer stands (no fallback)" if solver or options else ""
    return (named or "HiGHS for an LP (Clarabel above its size), Clarabel for a conic "
            "program") + (explicit or "; re-solves: the other solver (LP: HiGHS <-> Clarabel, "
                          "then HiGHS simplex while the certified gap exceeds the tolerance; "
                          "conic: SCS after Clarabel)")


def _reductions(method: Method, p: ProblemSpec, detail: Any) -> tuple[str, ...]:
    out = []
    if p.symmetry is not None:
        out.append(f"symmetry: {p.symmetry.describe()}")
    if method is Method.WALLEY:
        out.append("Walley: pure LDP over the outputs, embedded on the singleton messages")
    notion = p.privacy
    if isinstance(notion, MetricDP) and notion.spanner is not None:
        out.append(f"spanner: constraints on a {notion.spanner:g}-spanner of the distance")
    if method is Method.ROW_GENERATION:
        out.append(f"row generation: privacy rows from a skeleton of {len(detail):,} edges, "
                   "the rest added while violated")
    return tuple(out)


def _memory(method: Method, p: ProblemSpec, detail: Any) -> int | None:
    if method is Method.WORKING_SET:
        return int(detail)
    if method is not Method.PROGRAM:
        return None
    from .formulations import estimated_nonzeros

    return (estimated_nonzeros(p.privacy, p.build_context()) + p.k * p.n) * BYTES_PER_NONZERO


def _fallbacks(method: Method, p: ProblemSpec) -> tuple[str, ...]:
    out = []
    if method is Method.STAIRCASE:
        out.append("the local method when the optimum needs more outputs than allowed")
    if method is Method.WORKING_SET:
        out.append("stopped by time or memory: its best point with the certified gap")
    if isinstance(p.objective, EstimationVariance) and method in (
            Method.STAIRCASE, Method.PATTERN_GENERATION, Method.LOCAL, Method.SYMMETRIC):
        out.append("an uncertified design is replaced by the best catalog mechanism at the "
                   "prior when that does better (optimum 'catalog')")
    return tuple(out)


def plan(problem: ProblemSpec, solver: str | None = None, options: dict | None = None,
         *, estimate_memory: bool = True) -> Plan:
    """The :class:`Plan` for ``problem``: the first rule of :data:`RULES` that applies.

    Nothing large is built: the tests read the problem's specification (the row-generation
    skeleton, ``O(k^3)`` in blocks, is computed once and handed to :func:`run`).
    ``estimate_memory=False`` leaves :attr:`Plan.memory_bytes` None (the global program's
    estimate prepares its formulation, e.g. a spanner, which the build does anyway).
    """
    options = dict(options or {})
    reasons = []
    for rule in RULES:
        ok, why, detail = rule.test(problem, solver, options)
        reasons.append(f"{rule.method.value}: {'yes' if ok else 'no'}: {why}")
        if ok:
            method = rule.method
            return Plan(method, tuple(reasons), _solver_policy(method, problem, solver, options),
                        _reductions(method, problem, detail),
                        _memory(method, problem, detail) if estimate_memory else None,
                        _fallbacks(method, problem), detail)
    raise AssertionError("the last rule always applies")  # pragma: no cover


def _run_local(p: ProblemSpec, detail: Any, solver: str | None, options: dict,
               limit: float | None, t0: float) -> DesignResult:
    return local.solve_local(p, solver, options, t0, detail + ": local optimum "
                             "(minorise-maximise from 3 starts)", Deadline(limit))


RUNNERS: dict[Method, Callable[..., DesignResult]] = {
    Method.WALLEY: lambda p, d, solver, opts, limit, t0: walley.solve_walley(
        p, solver, opts, limit),
    Method.COMPOSED: lambda p, d, solver, opts, limit, t0: composed.solve_composed(
        p, solver, opts, limit),
    Method.SHUFFLED: lambda p, d, solver, opts, limit, t0: shuffled.solve_shuffled(
        p, solver, opts, limit),
    Method.CLOSED_FORM_KRR: lambda p, d, solver, opts, limit, t0: closed_form.solve_hamming(
        p, *d),
    Method.WORKING_SET: lambda p, d, solver, opts, limit, t0: working_set.solve_working_set(
        p, opts, limit),
    Method.MINIMAX_STAIRCASE: lambda p, d, solver, opts, limit, t0:
        minimax_staircase.solve_minimax_estimation(p, solver, opts, Deadline(limit)),
    Method.PATTERN_GENERATION: lambda p, d, solver, opts, limit, t0:
        pattern_generation.solve_pattern_generation(p, p.privacy.epsilon, t0, Deadline(limit)),
    Method.LOCAL: _run_local,
    Method.SYMMETRIC: lambda p, d, solver, opts, limit, t0:
        symmetric_subsets.solve_symmetric(p, p.privacy.epsilon, t0),
    Method.STAIRCASE: lambda p, d, solver, opts, limit, t0:
        staircase_programs.solve_staircase(p, solver, opts, Deadline(limit)),
    Method.ROW_GENERATION: lambda p, d, solver, opts, limit, t0:
        row_generation.solve_row_generation(p, d, solver, opts, limit),
    Method.PROGRAM: lambda p, d, solver, opts, limit, t0: program.solve_program(
        p, solver, opts, limit),
}
"""How each method of :data:`RULES` is run: ``runner(problem, plan.detail, solver, options,
time_limit, t0)`` (the methods live in :mod:`~mechdesign.design.methods`, one module each)."""


def run(the_plan: Plan, problem: ProblemSpec, solver: str | None, options: dict,
        time_limit: float | None) -> DesignResult:
    """Carry out ``the_plan`` (from :func:`plan` for the same arguments) and return the
    method's :class:`~mechdesign.design.result.DesignResult`, its ``method`` set. An
    estimation design that ends uncertified is compared with the catalog
    (:func:`~mechdesign.design.methods.known.prefer_known`)."""
    m = the_plan.method
    log.debug("plan: %s (%s)", m.value, the_plan.reasons[-1])
    res = RUNNERS[m](problem, the_plan.detail, solver, options, time_limit, time.perf_counter())
    if m in INFORMATION_METHODS and isinstance(problem.objective, EstimationVariance):
        res = prefer_known(problem, res)
    return dataclasses.replace(res, method=m)


INFORMATION_METHODS = frozenset({Method.MINIMAX_STAIRCASE, Method.PATTERN_GENERATION,
                                 Method.LOCAL, Method.SYMMETRIC, Method.STAIRCASE})
"""The methods of information objectives (after which :func:`run` consults the catalog)."""
