"""The solver: ``resolve(kb, target, request) -> Resolution``.

It models the stack as pseudo-packages for resolvelib (see ``model.py``), so
that every conflict comes out of the resolver's own causes; ``explain.py``
words them and ``suggest.py`` looks for the nearest ways out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from resolvelib import BaseReporter, Resolver
from resolvelib.resolvers import ResolutionImpossible

from tfenv.resolver.explain import conflict_sentences
from tfenv.resolver.factory import Factory
from tfenv.resolver.model import Candidate, Requirement
from tfenv.resolver.plan import Plan, Resolution
from tfenv.resolver.provider import Provider
from tfenv.resolver.reasons import make_plan
from tfenv.resolver.target import Request, Target

if TYPE_CHECKING:
    from resolvelib.structs import RequirementInformation

    from tfenv.kb import KnowledgeBase

__all__ = ["Plan", "Request", "Resolution", "Target", "resolve", "solve"]


def solve(kb: KnowledgeBase, target: Target, request: Request) -> Resolution:
    """One resolution, without suggestions."""
    factory = Factory(kb, target, request)
    reporter: BaseReporter[Requirement, Candidate, str] = BaseReporter()
    resolver = Resolver(Provider(factory), reporter)
    try:
        result = resolver.resolve(factory.root_requirements(), max_rounds=2000)
    except ResolutionImpossible as exc:
        causes: list[RequirementInformation[Requirement, Candidate]] = list(exc.causes)
        return Resolution(target, request, None, conflict_sentences(causes, factory))
    return Resolution(target, request, make_plan(factory, result.mapping))


def resolve(kb: KnowledgeBase, target: Target, request: Request) -> Resolution:
    """Solve; when nothing fits, add the nearest ways out."""
    from tfenv.resolver.suggest import suggestions

    answer = solve(kb, target, request)
    if answer.ok:
        return answer
    return Resolution(target, request, None, answer.conflicts, suggestions(kb, target, request))
