"""One way through the hub for every request of a POST, whatever its era, tool set or batch:
steps around the method handler, outermost first, as the MCP SDK runs its middleware chain.

    rate limit -> reply cap -> audit -> metrics -> handler (Dispatcher.run)

A step gets the request (a Turn) and the rest of the chain, and either calls it or answers in
its place. A step that answers a tools/call in its place refuses it (_refuse), which writes
the call's audit row: every tools/call leaves one, and this module is where each one starts.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass

from aletheia_hub import metrics
from aletheia_hub.mcp.auditing import CallAudit, write_rows
from aletheia_hub.mcp.batch import TOOLS_CALL, Body, encode_json
from aletheia_hub.mcp.budget import (
    BATCH_BRACKETS,
    Budget,
    RateLimited,
    Reply,
    not_run,
    rate_limit_message,
    too_large,
)
from aletheia_hub.mcp.call_state import CallState
from aletheia_hub.mcp.dispatch import Dispatcher, Routed, failure_reply
from aletheia_hub.mcp.envelope import Call
from aletheia_hub.mcp.eras import RoutingHeaders
from aletheia_hub.ratelimit import TokenRateLimiter
from aletheia_hub.settings import Settings
from aletheia_hub.store.audit import Outcome
from aletheia_shared import jsonrpc
from aletheia_shared.jsonrpc import Response


@dataclass(slots=True)
class Turn:
    """One request on its way through the steps."""

    call: Call
    state: CallState
    budget: Budget
    routed: Routed
    refused: bool = False  # a step answered in the request's place: it did not run


Next = Callable[[Turn], Reply]
Step = Callable[[Turn, Next], Reply]


class CallPipeline:
    """The steps every request of one tool set takes, around its dispatcher's handler."""

    def __init__(self, dispatcher: Dispatcher, limiter: TokenRateLimiter | None) -> None:
        self.dispatcher = dispatcher
        self.limiter = limiter  # a team hub's per-token budget; None: no limit
        # Outermost first. A new cross-cutting step goes here, as a method (turn, call_next).
        self.steps: tuple[Step, ...] = (
            self._rate_limit,
            self._reply_cap,
            self._audit,
            self._measure,
        )
        chain: Next = self._handle
        for step in reversed(self.steps):
            chain = _around(step, chain)
        self._chain = chain

    def admit(self, body: Body, state: CallState, settings: Settings) -> Budget | RateLimited:
        """What this POST may spend under the token's rate limit, or its refusal when nothing
        fits. Every tools/call costs one request of the budget; a body without any costs one."""
        tool_calls = body.tool_calls
        budget = Budget(
            tool_calls_left=len(tool_calls),
            rate_limit_message="",
            max_reply_bytes=settings.max_reply_bytes,
            reply_bytes=BATCH_BRACKETS if body.is_batch else 0,
        )
        if self.limiter is None or state.principal.token_id is None:
            return budget
        cost = max(1, len(tool_calls))
        grant = self.limiter.take(state.principal.token_id, cost)
        if grant.granted == cost:
            return budget
        self.dispatcher.metrics.count(metrics.RATE_LIMITED, cost - grant.granted)
        message = rate_limit_message(settings, grant.retry_after_seconds)
        if grant.granted == 0:
            for call in tool_calls:
                self._start_audit(call, state).end("rate-limited", jsonrpc.RATE_LIMITED)
            return RateLimited(message, grant.retry_after_seconds)
        budget.tool_calls_left = grant.granted
        budget.rate_limit_message = message
        return budget

    def answer(
        self,
        body: Body,
        state: CallState,
        budget: Budget,
        routing: RoutingHeaders | None = None,
    ) -> list[bytes]:
        """The encoded reply to every request, in order (none for notifications and
        responses): each call through the steps, each malformed message its error."""
        replies: list[bytes] = []
        for item in body.items:
            if item is None or (isinstance(item, Call) and item.is_notification):
                continue
            if isinstance(item, Call):
                routed = self.dispatcher.route(item, state, routing)
                encoded = self._chain(Turn(item, state, budget, routed)).encoded
            else:
                encoded = encode_json(item)
            budget.count(encoded)
            replies.append(encoded)
        return replies

    @staticmethod
    def keep_audit(state: CallState) -> None:
        """Keep the audit rows of this POST's calls for commit_audit, instead of committing
        each as its call ends: for a reply that must not wait for the store."""
        state.unwritten_audit = []

    @staticmethod
    def kept_audit(state: CallState) -> bool:
        """Whether keep_audit kept rows that commit_audit has yet to write."""
        return bool(state.unwritten_audit)

    def commit_audit(self, state: CallState, *, wait: bool = True) -> bool:
        """Commit the rows keep_audit kept (auditing.write_rows): False, with nothing
        written, when wait=False and another write holds the store."""
        return write_rows(self.dispatcher.db, state.unwritten_audit or [], wait=wait)

    def _rate_limit(self, turn: Turn, call_next: Next) -> Reply:
        """A tools/call past the POST's grant is refused with the rate-limit error; one that
        runs spends a grant."""
        if turn.call.method != TOOLS_CALL:
            return call_next(turn)
        budget = turn.budget
        if budget.tool_calls_left <= 0:
            error = jsonrpc.error_response(
                turn.call.request_id, jsonrpc.RATE_LIMITED, budget.rate_limit_message
            )
            return self._refuse(turn, "rate-limited", error)
        reply = call_next(turn)
        if not turn.refused:
            budget.tool_calls_left -= 1
        return reply

    def _reply_cap(self, turn: Turn, call_next: Next) -> Reply:
        """Once the replies would pass max_reply_bytes, the reply that did is replaced by an
        error (its request did run) and the requests after it do not run."""
        budget = turn.budget
        if budget.full or budget.reply_bytes >= budget.max_reply_bytes:
            budget.full = True
            return self._refuse(turn, "error", not_run(turn.call, budget.max_reply_bytes))
        reply = call_next(turn)
        if budget.reply_bytes + len(reply.encoded) > budget.max_reply_bytes:
            budget.full = True
            return Reply(too_large(turn.call, budget.max_reply_bytes))
        return reply

    def _audit(self, turn: Turn, call_next: Next) -> Reply:
        """A tools/call its era accepted leaves one audit row, however it ends; the tool says
        how it went (CallState.audit) and a write commits the row with its work."""
        if not self.dispatcher.is_tool_call(turn.routed):
            return call_next(turn)
        audit = turn.state.audit = self._start_audit(turn.call, turn.state)
        try:
            reply = call_next(turn)
        except BaseException:
            turn.state.audit = None
            audit.end()
            raise
        turn.state.audit = None
        try:
            audit.end(error_code=_error_code(reply.response))
        except Exception as error:  # the row could not be written: the reply says so
            return Reply(failure_reply(turn.call, error))
        return reply

    def _measure(self, turn: Turn, call_next: Next) -> Reply:
        """Every request that runs is counted and timed by method and tool, and counted by
        kind when it failed."""
        started = time.perf_counter()
        reply = call_next(turn)
        self._record(turn, reply.response, time.perf_counter() - started)
        return reply

    def _record(self, turn: Turn, response: Response, seconds: float) -> None:
        recorder, call = self.dispatcher.metrics, turn.call
        # Only known names become labels: a caller must not grow the metrics without end.
        method = call.method if self.dispatcher.knows(call.method) else "unknown"
        tool = ""
        if method == TOOLS_CALL:
            name = call.params.get("name")
            tool = (
                name if isinstance(name, str) and self.dispatcher.registry.find(name) else "unknown"
            )
        recorder.observe_request(seconds, method=method, tool=tool)
        kind = metrics.error_kind(response)
        if kind is not None:
            recorder.count(metrics.ERRORS, kind=kind, method=method)

    def _handle(self, turn: Turn) -> Reply:
        return Reply(self.dispatcher.run(turn.call, turn.state, turn.routed))

    def _refuse(self, turn: Turn, outcome: Outcome, error: Response) -> Reply:
        """Answer a request in its place; a tools/call's audit row says why."""
        turn.refused = True
        if turn.call.method == TOOLS_CALL:
            self._start_audit(turn.call, turn.state).end(outcome, _error_code(error))
        return Reply(error)

    def _start_audit(self, call: Call, state: CallState) -> CallAudit:
        """The audit row of a tools/call: the only place one starts."""
        return CallAudit(
            db=self.dispatcher.db,
            tool_set=self.dispatcher.tool_set,
            token_id=state.principal.token_id,
            project=state.project,
            tool_name=call.params.get("name"),
            arguments=call.params.get("arguments"),
            kept=state.unwritten_audit,
            host=state.tool,
        )


def _error_code(response: Response) -> int | None:
    """The JSON-RPC error code a reply carries; None for a result (a tool's isError too)."""
    error = response.get("error")
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, int) else None


def _around(step: Step, call_next: Next) -> Next:
    return lambda turn: step(turn, call_next)
