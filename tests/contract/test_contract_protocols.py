"""Every model declares the protocols of its case, and satisfies every protocol it declares: each
member is implemented by the model (not inherited from the protocol's stub), and each method
accepts the protocol's parameters (by name; an optional one stays optional)."""

from __future__ import annotations

import inspect
from typing import Protocol

import numpy as np
import pytest

from stickbreak.config import MovesConfig
from stickbreak.core import protocols
from stickbreak.core.protocols import CapabilityError, Movable, Sampled, TrackedBirths, WholeDataBirths, declares
from stickbreak.learn import BatchVB, InMemoryMinibatches, MemoizedVI
from stickbreak.learn.truncation_free import TruncationFreeSVI

from cases import BY_NAME, MODEL_CASES

PROTOCOLS = [value for value in vars(protocols).values()
             if isinstance(value, type) and issubclass(value, Protocol) and value is not Protocol]


def _is_protocol(cls) -> bool:
    return cls in PROTOCOLS


def declared(model) -> list:
    return [cls for cls in type(model).__mro__ if _is_protocol(cls)]


def members(protocol) -> dict:
    """name -> the protocol's declaration (a function, a property, or an annotation string)."""
    out = {}
    for cls in reversed(protocol.__mro__):
        if not _is_protocol(cls):
            continue
        out.update(cls.__dict__.get("__annotations__", {}))
        out.update({name: value for name, value in cls.__dict__.items()
                    if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property))})
    return out


def implementer(model, name: str):
    """The class of ``model``'s MRO that defines ``name``, or None."""
    return next((cls for cls in type(model).__mro__ if name in cls.__dict__), None)


def signature_problems(name: str, wanted, got) -> list[str]:
    want = list(inspect.signature(wanted).parameters.values())[1:]
    have = inspect.signature(got).parameters
    takes_any = any(p.kind is p.VAR_KEYWORD for p in have.values())
    problems = []
    for param in want:
        if param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        if param.name not in have:
            if not takes_any:
                problems.append(f"{name}() lacks parameter {param.name!r}")
        elif param.default is not param.empty and have[param.name].default is param.empty:
            problems.append(f"{name}() requires {param.name!r}, which the protocol makes optional")
    wanted_names = {p.name for p in want}
    for param in list(have.values())[1:]:
        if param.default is param.empty and param.kind not in (param.VAR_KEYWORD, param.VAR_POSITIONAL) \
                and param.name not in wanted_names:
            problems.append(f"{name}() requires {param.name!r}, which the protocol does not pass")
    return problems


def contract_problems(model) -> list[str]:
    """What ``model`` lacks of the protocols it declares."""
    problems = []
    for protocol in declared(model):
        for name, declaration in members(protocol).items():
            owner = implementer(model, name)
            if isinstance(declaration, str):  # a data member: a field or class attribute of the model
                if owner is None and name not in getattr(model, "__dataclass_fields__", {}):
                    problems.append(f"{protocol.__name__}.{name} is missing")
                continue
            if owner is None or _is_protocol(owner):
                problems.append(f"{protocol.__name__}.{name} is not implemented")
            elif inspect.isfunction(declaration) and inspect.isfunction(owner.__dict__[name]):
                problems += [f"{protocol.__name__}: {p}" for p in
                             signature_problems(name, declaration, owner.__dict__[name])]
    return problems


@pytest.mark.parametrize("case", MODEL_CASES, ids=lambda case: case.name)
def test_model_declares_and_satisfies_its_protocols(case):
    model, _, _ = case()
    for protocol in case.protocols:
        assert declares(model, protocol), f"{type(model).__name__} does not declare {protocol.__name__}"
    problems = contract_problems(model)
    assert not problems, "\n".join(problems)
    if declares(model, Movable):  # births are expanded one way or the other, never both
        assert declares(model, TrackedBirths) != declares(model, WholeDataBirths)


class _Sloppy(Sampled):
    """Declares Sampled, with wrong signatures and a data member missing."""

    monotone = False
    stick_concentration = 1.0

    def n_items(self, batch):
        return 0

    def empty_store(self):  # lacks n_vocab
        return None

    def params_from_store(self, store, scale):  # requires what no caller passes
        return None

    def sample_local(self, store, counts, rows, seed=0):
        return None

    def keep_mask(self, store):
        return None

    def summary(self, store):
        return None


def test_the_checker_finds_a_sloppy_model_and_a_forgotten_method_stops_instantiation():
    problems = contract_problems(_Sloppy())
    assert problems == ["Sampled.topic_word_prior is missing", "Sampled: empty_store() lacks parameter 'n_vocab'",
                        "Sampled: params_from_store() requires 'scale', which the protocol does not pass"], problems

    class Forgetful(_Sloppy):
        summary = Sampled.summary  # the protocol's abstract stub

    with pytest.raises(TypeError, match="abstract method summary"):
        Forgetful()


def test_learners_refuse_a_model_without_the_protocol_they_need():
    """One clear error before any work, naming the learner, the protocol and the model."""
    rng = np.random.default_rng(0)
    model, data, params = BY_NAME["two-level-hdp"]()
    with pytest.raises(CapabilityError,
                       match=r"memoized VI with moves \['merge'\] needs a model declaring Movable .*TwoLevelHDP"):
        MemoizedVI(MovesConfig(moves=("merge",)), rng).start(model, [data], params)
    model, data, params = BY_NAME["diln-hdp"]()
    with pytest.raises(CapabilityError, match="memoized VI needs a model declaring Memoizable .*DILNModel"):
        MemoizedVI(MovesConfig(), rng).start(model, [data], params)
    with pytest.raises(CapabilityError, match="truncation-free SVI needs a model declaring Sampled .*DILNModel"):
        TruncationFreeSVI(rng).start(model, InMemoryMinibatches(data, 2), None)
    sampler, data, _ = BY_NAME["truncation-free-hdp"]()
    with pytest.raises(CapabilityError, match="batch VB needs a model declaring Model .*TruncationFreeHDP"):
        BatchVB().start(sampler, [data], None)
