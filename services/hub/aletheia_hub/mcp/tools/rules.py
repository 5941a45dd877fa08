"""list_rules, add_rule and confirm_rule."""

from dataclasses import replace
from typing import Literal

from pydantic import Field

from aletheia_hub import auth
from aletheia_hub.mcp import formats
from aletheia_hub.mcp.context import ToolContext
from aletheia_hub.mcp.errors import ToolError
from aletheia_hub.mcp.registry import Tool
from aletheia_hub.mcp.tools.common import ItemId, ToolArgs
from aletheia_hub.store import rules

Ids = list[ItemId]


class ListRulesArgs(ToolArgs):
    pass


def list_rules(_args: ListRulesArgs, ctx: ToolContext) -> str:
    visible = rules.list_rules(session=ctx.session, projects=ctx.principal.projects)
    shown = [replace(rule, reach=auth.visible_reach(ctx.principal, rule.reach)) for rule in visible]
    return formats.rules_list(shown, ctx.name)


class AddRuleArgs(ToolArgs):
    then: str = Field(min_length=1, max_length=800, description="The rule, at most 800 characters.")
    when: str | None = Field(
        default=None, max_length=800, description="The situation. Default: always."
    )
    scopeTier: Literal["everywhere", "project", "situation"] = Field(
        default="everywhere", description="everywhere, project or situation."
    )
    scopeName: str | None = Field(
        default=None, min_length=1, max_length=200, description="The project or situation name."
    )
    evidence_memory_ids: Ids = Field(
        default_factory=list, max_length=100, description="Memory ids the rule rests on."
    )
    evidence_fact_ids: Ids = Field(
        default_factory=list, max_length=100, description="Fact ids the rule rests on."
    )


def add_rule(args: AddRuleArgs, ctx: ToolContext) -> str:
    then = args.then.strip()
    if not then:
        raise ToolError("then is required.")
    scope_name = args.scopeName.strip() if args.scopeName else None
    is_project_rule = args.scopeTier == "project"
    made_in = ctx.project(scope_name if is_project_rule else None)
    if is_project_rule:
        scope_name = made_in
    elif args.scopeTier == "situation" and not scope_name:
        raise ToolError("scopeName is required when scopeTier is situation.")
    elif args.scopeTier == "everywhere":
        scope_name = None
    added = rules.add_rule(
        session=ctx.session,
        then=then,
        when=(args.when or "").strip() or None,
        scope_tier=args.scopeTier,
        scope_name=scope_name,
        source=ctx.caller_tool,
        project=made_in,
        reach=auth.rule_reach(ctx.principal, made_in if is_project_rule else None),
        evidence_memory_ids=args.evidence_memory_ids,
        evidence_fact_ids=args.evidence_fact_ids,
        visible_projects=ctx.projects("*"),
    )
    return formats.rule_saved(added.id, added.created, added.redacted)


class ConfirmRuleArgs(ToolArgs):
    id: str = Field(min_length=1, max_length=40, description="A rule id from list_rules.")


def confirm_rule(args: ConfirmRuleArgs, ctx: ToolContext) -> str:
    rule_id = args.id.strip()
    found = rules.find_rule(session=ctx.session, rule_id=rule_id)
    if found is None or not auth.sees_rule(ctx.principal, found.record.reach):
        raise ToolError(formats.no_rule(rule_id, ctx.name))
    auth.check_rule_change(ctx.principal, rule_id, found.record.reach)
    at = rules.confirm_rule(session=ctx.session, rule_id=rule_id)
    return formats.rule_confirmed(rule_id, at)


LIST_RULES = Tool(
    name="list_rules",
    description=(
        "List the enabled rules, one per line, with id, date added, source and last-confirmed "
        "date. A rule that needs a re-check ends with [re-check: reason]; it stays enabled."
    ),
    args=ListRulesArgs,
    handler=list_rules,
    access="read",
)
ADD_RULE = Tool(
    name="add_rule",
    description=(
        "Add one standing rule. Check list_rules first; an identical rule is not added twice."
    ),
    args=AddRuleArgs,
    handler=add_rule,
    access="write",
)
CONFIRM_RULE = Tool(
    name="confirm_rule",
    description="Record that a rule was re-checked: only its last-confirmed date changes.",
    args=ConfirmRuleArgs,
    handler=confirm_rule,
    access="write",
)
