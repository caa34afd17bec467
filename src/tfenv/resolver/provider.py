"""The resolvelib provider: a thin layer that forwards to the :class:`Factory`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from resolvelib import AbstractProvider

from tfenv.resolver.factory import RANK
from tfenv.rules.model import Candidate, Requirement

if TYPE_CHECKING:
    from resolvelib.structs import RequirementInformation

    from tfenv.resolver.factory import Factory

__all__ = ["Provider"]


class Provider(AbstractProvider[Requirement, Candidate, str]):
    def __init__(self, factory: Factory) -> None:
        self.factory = factory

    def identify(self, requirement_or_candidate: Requirement | Candidate) -> str:
        return requirement_or_candidate.identifier

    def get_preference(
        self,
        identifier: str,
        resolutions: Mapping[str, Candidate],
        candidates: Mapping[str, Iterator[Candidate]],
        information: Mapping[str, Iterator[RequirementInformation[Requirement, Candidate]]],
        backtrack_causes: Sequence[RequirementInformation[Requirement, Candidate]],
    ) -> Any:
        # facts of the target first, then the choices in the order users care about
        return RANK[identifier]

    def find_matches(
        self,
        identifier: str,
        requirements: Mapping[str, Iterator[Requirement]],
        incompatibilities: Mapping[str, Iterator[Candidate]],
    ) -> Iterable[Candidate]:
        reqs = list(requirements[identifier])
        bad = {c.key for c in incompatibilities[identifier]}
        found = [
            c
            for c in self.factory.candidates(identifier)
            if c.key not in bad and all(r.test(c) for r in reqs)
        ]
        order = next((r.order for r in reqs if r.order is not None), None)
        if order is not None:
            found.sort(key=lambda c: order.index(c.key))
        return found

    def is_satisfied_by(self, requirement: Requirement, candidate: Candidate) -> bool:
        return requirement.test(candidate)

    def get_dependencies(self, candidate: Candidate) -> Iterable[Requirement]:
        return self.factory.dependencies(candidate)
