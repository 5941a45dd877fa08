"""The method table's entry: a JSON-RPC method's params model, its handler, and what an
invalid params object earns."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from aletheia_hub.mcp.call_state import CallState

Params = TypeVar("Params", bound=BaseModel)
# A result model of the MCP types package, or a reply built once and kept in wire form.
Result = BaseModel | dict[str, Any]
Wire = dict[str, Any]
OnInvalid = Callable[[ValidationError, dict[str, Any], CallState], Params]

# What the hub sends: camelCase names, and only the fields it set.
_DUMP: Final[dict[str, Any]] = {"by_alias": True, "exclude_unset": True, "mode": "json"}


@dataclass(frozen=True, slots=True)
class Method(Generic[Params]):
    """One method: params are validated with `params`; when they do not fit, `on_invalid`
    raises the RpcError they earn or returns the params to go on with (initialize is
    lenient, as hosts send partial ones)."""

    params: type[Params]
    handler: Callable[[Params, CallState], Result]
    on_invalid: OnInvalid[Params]
    needs_session: bool = True

    def run(self, raw: dict[str, Any], state: CallState) -> Wire:
        """Validate, handle, and return the result as it goes on the wire."""
        try:
            params = self.params.model_validate(raw)
        except ValidationError as error:
            params = self.on_invalid(error, raw, state)
        result = self.handler(params, state)
        return result if isinstance(result, dict) else result.model_dump(**_DUMP)


def wire(result: BaseModel) -> Wire:
    """A result model in wire form, for replies built once and served many times."""
    return result.model_dump(**_DUMP)
