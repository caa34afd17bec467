"""The solver: ``resolve(kb, target, request) -> Resolution``.

It models the stack as pseudo-packages for resolvelib (:mod:`tfenv.rules.model`; the
candidates and requirements come from ``factory.py``), so that every conflict comes out
of the resolver's own causes; ``conflicts.py`` words them, ``reasons.py`` explains a
plan and ``suggest.py`` looks for the nearest ways out. resolvelib is imported only when
something is solved.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Resolution
    from tfenv.models.target import Request, Target
    from tfenv.resolver.factory import Factory

__all__ = ["MAX_ROUNDS", "resolve", "solve_once"]

MAX_ROUNDS = 2000  # resolvelib's rounds before the solver gives up (errors.SolverGaveUp)


def solve_once(kb: KnowledgeBase, target: Target, request: Request) -> Resolution:
    """One resolution, without looking for ways out when nothing fits."""
    return _solve(kb, target, request)[0]


def _solve(kb: KnowledgeBase, target: Target, request: Request) -> tuple[Resolution, Factory]:
    from resolvelib import BaseReporter, Resolver
    from resolvelib.resolvers import ResolutionImpossible, ResolutionTooDeep

    from tfenv.errors import SolverGaveUp
    from tfenv.models.plan import Resolution
    from tfenv.resolver.factory import Factory
    from tfenv.resolver.provider import Provider
    from tfenv.resolver.reasons import make_plan
    from tfenv.rules.model import Candidate, Requirement

    factory = Factory(kb, target, request)
    reporter: BaseReporter[Requirement, Candidate, str] = BaseReporter()
    resolver = Resolver(Provider(factory), reporter)
    try:
        result = resolver.resolve(factory.root_requirements(), max_rounds=MAX_ROUNDS)
    except ResolutionImpossible as exc:
        from tfenv.resolver.conflicts import conflicts_of  # only when nothing fits

        conflicts = conflicts_of(list(exc.causes), factory)
        return Resolution(target, request, None, conflicts), factory
    except ResolutionTooDeep:
        raise SolverGaveUp(MAX_ROUNDS) from None
    return Resolution(target, request, make_plan(factory, result.mapping)), factory


def resolve(kb: KnowledgeBase, target: Target, request: Request) -> Resolution:
    """Solve; an ok plan says why it is not newer, and when nothing fits, add the nearest
    ways out."""
    from tfenv.models._record import replace
    from tfenv.models.plan import Resolution

    answer, factory = _solve(kb, target, request)
    if answer.plan is not None:
        from tfenv.resolver.skipped import skipped_of

        return replace(answer, plan=replace(answer.plan, skipped=skipped_of(factory, answer.plan)))
    from tfenv.resolver.suggest import suggestions  # only when nothing fits

    return Resolution(target, request, None, answer.conflicts, suggestions(kb, target, request))
