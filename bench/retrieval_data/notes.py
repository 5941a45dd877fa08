"""Note templates: decisions, gotchas, bugfixes, rules and facts, ten of each.

Slots: `{comp}` components, `{person}` people, `{lib}` any library, `{db}`, `{queue}`... one
category of them, `{err}` any error message, `{dberr}`, `{httperr}`... one kind of them,
`{file}` paths, `{case}` test cases, `{key}` settings, `{flag}` feature flags, `{cmd}`
commands, `{team}` teams, `{env}` environments; `{n}`, `{ms}`, `{pct}`, `{slo}`, `{ver}`,
`{ticket}`, `{date}` are drawn values. `{comp:p}` is a paraphrase of the value. A trailing
digit asks for another value of the same kind. Each question names at least two values, so
one note answers it; `keywords` are the slots whose words a keyword query types.
"""

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class NoteTemplate:
    type: str
    title: str
    text: str
    sentences: tuple[str, ...]
    paraphrases: tuple[str, ...]
    keywords: tuple[str, ...]


def note(
    type: str, title: str, text: str, sentence: str, paraphrase: str, keywords: str
) -> NoteTemplate:
    """A template; several questions are separated by ` || `."""
    return NoteTemplate(
        type, title, text, tuple(sentence.split(" || ")), tuple(paraphrase.split(" || ")),
        tuple(keywords.split()),
    )  # fmt: skip


DECISIONS: Final = (
    note(
        "decision",
        "Switch {comp} from {lib} to {lib2}",
        "Decision ({person}, {date}): {comp} moves from {lib} to {lib2}. The {lib} integration "
        "cost us a day of maintenance every sprint and {lib2} covers the same needs out of the "
        "box. Migration tracked in {ticket}; {lib} stays read-only until {date2}.",
        "why did we switch {comp} from {lib} to {lib2}?"
        " || when does {comp} finish moving from {lib} to {lib2}?",
        "what made us replace {lib:p} with {lib2:p} in {comp:p}?"
        " || are we done getting {comp:p} off {lib:p} and onto {lib2:p}?",
        "comp lib lib2",
    ),
    note(
        "decision",
        "Use {lib} in {comp} instead of home-grown code",
        "We decided to use {lib} in {comp} rather than maintain the home-grown version in "
        "{file}. {person} benchmarked both and {lib} was {n}x faster on the p95 path. The old "
        "code gets deleted in {ticket}.",
        "who benchmarked {lib} against the home-grown code in {comp}?"
        " || why did we decide to use {lib} in {comp}?",
        "who measured {lib:p} against our hand-rolled implementation for {comp:p}?"
        " || why did {comp:p} adopt {lib:p} rather than keep writing its own?",
        "lib comp file",
    ),
    note(
        "decision",
        "Pin {lib} to {ver} in {comp}",
        "Pinned {lib} to {ver} for {comp} after {ver2} broke {case} with {codeerr}. Do not bump "
        "it until upstream fixes the regression; {person} is watching the issue.",
        "why is {lib} pinned to {ver} in {comp}? || which {lib} version broke {case}?",
        "why can't we upgrade {lib:p} for {comp:p}?"
        " || which release of {lib:p} made {case:p} fail?",
        "lib case comp",
    ),
    note(
        "decision",
        "{comp} reads go to the {db} replica",
        "Decided with {person} on {date}: {comp} sends read-only queries to the {db} replica; "
        "writes stay on the primary. Replication lag up to {n} s is acceptable for dashboards, "
        "not for {comp2}.",
        "does {comp} send read-only queries to the {db} replica?"
        " || why can't {comp2} read from the {db} replica like {comp}?",
        "where do {comp:p} lookups get served from in {db:p}, the main copy or the follower?"
        " || is it fine for {comp2:p} to see stale data from {db:p}?",
        "comp db person",
    ),
    note(
        "decision",
        "{comp} rollout behind {flag}",
        "{comp} ships behind the {flag} flag in {flags}: on for staff on {date}, then {pct}% of "
        "traffic. {person} owns the rollback, which is flipping {flag} off, no deploy needed.",
        "which flag controls the {comp} rollout in {flags}?"
        " || who owns the rollback of {comp} behind {flag}?",
        "how do we switch off {comp:p} quickly with {flags:p} if it goes wrong?"
        " || what turns on {flag:p} for everyone after the staff trial of {comp:p}?",
        "flag comp flags",
    ),
    note(
        "decision",
        "Timeouts on calls from {comp} to {comp2}",
        "Every call from {comp} to {comp2} now has a {ms} ms timeout and {n} retries with "
        "jitter, configured in {file}. Before this a slow {comp2} hung request threads for "
        "minutes ({ticket}).",
        "what timeout do calls from {comp} to {comp2} have?"
        " || how many retries do calls from {comp} to {comp2} get?",
        "how long does {comp:p} wait on {comp2:p} before giving up?"
        " || how often does {comp:p} try {comp2:p} again after a failure?",
        "comp comp2 file",
    ),
    note(
        "decision",
        "Keep {comp} API v{n} alive for old {runtime} clients",
        "{comp} keeps version {n} of its API alive until {date2}; new fields only go into the "
        "next version. Agreed by {person} and {person2} so clients on {runtime} {ver} keep "
        "working.",
        "until when does {comp} keep the old API version alive for {runtime} clients?"
        " || who agreed to keep the old {comp} API version alive for {runtime} clients?",
        "how long do we support the previous contract of {comp:p} for apps built on {runtime:p}?"
        " || when can {comp:p} drop its legacy endpoints for {runtime:p} callers?",
        "comp runtime person",
    ),
    note(
        "decision",
        "Sessions for {comp} live in {cache}",
        "Sessions for {comp} are stored in {cache} with a {n} minute TTL instead of cookies. "
        "{person} decided this after cookies grew past the browser size limit for users of "
        "{comp2}.",
        "where does {comp} store sessions, {cache} or cookies?"
        " || why are {comp} sessions stored in {cache} instead of cookies?",
        "where is sign-in state for {comp:p} kept, and does {cache:p} hold it?"
        " || why did {comp:p} stop putting login data in the browser and use {cache:p}?",
        "comp cache person",
    ),
    note(
        "decision",
        "Stop testing {comp} against {lib} {ver}",
        "We stop testing {comp} against {lib} {ver} on {date2}; the CI matrix in {file} now "
        "covers only the two latest releases. {person} announced it in {ticket}.",
        "when do we stop testing {comp} against {lib} {ver}?"
        " || which {lib} versions does the CI matrix for {comp} cover?",
        "when does the oldest supported release of {lib:p} leave the pipeline checks of {comp:p}?"
        " || which releases of {lib:p} is {comp:p} still verified with?",
        "comp lib file",
    ),
    note(
        "decision",
        "Idempotency keys on {comp}",
        "All POSTs to {comp} must carry an Idempotency-Key header; duplicates within {n} hours "
        "return the first response. Chosen over de-duplication in {queue} because retries from "
        "{comp2} double-charged customers ({ticket}).",
        "why do POSTs to {comp} need an idempotency key instead of de-duplication in {queue}?"
        " || which retries from {comp2} made us add idempotency keys to {comp}?",
        "why must repeated submissions to {comp:p} carry a unique marker"
        " rather than relying on {queue:p}?"
        " || what stopped {comp2:p} charging people twice through {comp:p}?",
        "comp comp2 queue",
    ),
)

GOTCHAS: Final = (
    note(
        "gotcha",
        "{comp}: {dberr} from {db} when workers start",
        "Gotcha: {comp} gets {dberr} from {db} when more than {n} workers start at once. The "
        "connection limit is per host, so keep {key} small per pod. Found by {person} on "
        "{date}.",
        "why does {comp} get {dberr} from {db} when workers start?"
        " || what should {key} be for {comp} so {db} stops failing?",
        "why does {comp:p} hit {dberr:p} with {db:p} on boot?"
        " || how do I stop {db:p} refusing {comp:p} when many processes boot together?",
        "comp dberr db",
    ),
    note(
        "gotcha",
        "{case} depends on test order",
        "{case} only passes when it runs after the fixtures in {file}; run alone it fails with "
        "{codeerr}. It relies on state left behind in {db}. {person} flagged it, so do not trust a "
        "green run of that test in isolation.",
        "why does {case} fail with {codeerr} when run alone?"
        " || does {case} rely on state left in {db}?",
        "why does {case:p} break with {codeerr:p} when executed by itself?"
        " || which leftover data in {db:p} does {case:p} secretly need?",
        "case codeerr file",
    ),
    note(
        "gotcha",
        "{lib} {ver} changed a default in {comp}",
        "{lib} {ver} changed a default: {key} is now off unless set, which silently disabled "
        "retries in {comp}. Set it explicitly in {file}. Spotted by {person}.",
        "which default did {lib} {ver} change for {comp}?"
        " || why did {lib} {ver} disable retries in {comp}?",
        "what setting did the new release of {lib:p} flip that quietly broke {comp:p}?"
        " || after upgrading {lib:p}, why does {comp:p} no longer try again on failure?",
        "lib key comp",
    ),
    note(
        "gotcha",
        "{comp} reports show the wrong day near midnight",
        "{comp} stores timestamps in UTC but {file} formats them with the server's local zone, "
        "so reports run near midnight show the wrong day. {person} hit this on {date} with "
        "{case}.",
        "why do {comp} reports show the wrong day near midnight in {case}?"
        " || which file formats {comp} timestamps with the local zone, breaking {case}?",
        "why are {comp:p} summaries off by a date around 00:00 in {case:p}?"
        " || where does {comp:p} render times in the machine's own timezone, failing {case:p}?",
        "comp file case",
    ),
    note(
        "gotcha",
        "Staging {comp} shares one {db}",
        "Staging {comp} talks to a shared {db} instance while production has its own, so load "
        "tests on staging skew every other team's numbers. Ask {person} before running them; "
        "use {testing} only against your own stack.",
        "can I run load tests against staging {comp} and its shared {db}?"
        " || who do I ask before running {testing} against staging {comp}?",
        "is it safe to stress the pre-production copy of {comp:p} that uses {db:p}?"
        " || who must approve hammering {comp:p} outside production with {testing:p}?",
        "comp db testing",
    ),
    note(
        "gotcha",
        "{lib} fails with {opserr} on macOS",
        "On macOS, {lib} in {comp} fails with {opserr} because the Docker Desktop VM defaults to "
        "tiny limits. Raise them in the Docker Desktop settings before `make dev`; Linux CI is "
        "unaffected. Noted by {person}.",
        "why does {lib} fail with {opserr} on macOS in {comp}?"
        " || why does {lib} in {comp} work in Linux CI but not on a Mac?",
        "why does {lib:p} crash with {opserr:p} on Apple laptops?"
        " || why is {comp:p} broken on my MacBook when the pipeline is green for {lib:p}?",
        "lib opserr comp",
    ),
    note(
        "gotcha",
        "{cache} key collision in {comp}",
        "The {cache} key built in {file} omits the tenant id, so two customers of {comp} can "
        "see each other's cached results. Keys must always include tenant and locale. "
        "Reported by {person} ({ticket}).",
        "why can customers of {comp} see each other's cached results in {cache}?"
        " || which file builds the {cache} key for {comp}?",
        "how did one client end up with another client's data from {cache:p} in {comp:p}?"
        " || what must every lookup entry of {comp:p} in {cache:p} contain?",
        "comp cache file",
    ),
    note(
        "gotcha",
        "{comp2} retries webhooks to {comp}",
        "{comp2} retries webhooks to {comp} up to {n} times with the same event id, and {httperr} "
        "answers count as failures. Handlers must be idempotent; see {file}.",
        "how many times does {comp2} retry webhooks to {comp}?"
        " || do {httperr} answers from {comp} count as failed webhooks for {comp2}?",
        "how often will {comp2:p} resend a callback that {comp:p} did not acknowledge?"
        " || when {comp:p} replies with {httperr:p}, does {comp2:p} deliver the event again?",
        "comp2 comp file",
    ),
    note(
        "gotcha",
        "{key} is read at import time in {comp}",
        "{key} is read once when {file} is imported, so changing it in a running {comp} shell "
        "does nothing; restart the process. Cost {person} an afternoon on {date}.",
        "why does changing {key} in a running {comp} do nothing? || when is {key} read by {comp}?",
        "why does {comp:p} ignore a new value of {key:p} while it is up?"
        " || at what moment does {comp:p} pick up {key:p}?",
        "key file comp",
    ),
    note(
        "gotcha",
        "{comp} image rebuilds every dependency",
        "The container image for {comp} reinstalls every dependency with {pm} whenever {file} "
        "changes, because the whole tree is copied before the install step. Copy only the lock "
        "file first. {person} cut {n} minutes off the build.",
        "why does the {comp} image reinstall every dependency with {pm}?"
        " || who cut the {comp} image build time with {pm}?",
        "why is packaging {comp:p} so slow, with {pm:p} fetching everything each time?"
        " || how did we make building {comp:p} faster with {pm:p}?",
        "comp pm file",
    ),
)

BUGFIXES: Final = (
    note(
        "bugfix",
        "Fix {dberr} in {comp}",
        "Fixed {dberr} in {comp}: {file} opened a new {db} connection per request and never "
        "closed it. It now uses the shared pool. {ticket}, reviewed by {person}.",
        "how did we fix {dberr} in {comp}? || which file leaked {db} connections in {comp}?",
        "what was the cure for {dberr:p} in {comp:p}?"
        " || where did {comp:p} forget to give back connections to {db:p}?",
        "dberr comp ticket",
    ),
    note(
        "bugfix",
        "Flaky {case} fixed",
        "{case} was flaky because it compared timestamps at second precision; {person} froze "
        "the clock in {file} with {testing}. The failure rate went from {pct}% to zero.",
        "what fixed the flaky {case} in {file}? || why was {case} flaky with {testing}?",
        "how did we stop {case:p} failing at random under {testing:p}?"
        " || why did {case:p} pass or fail by chance in {testing:p}?",
        "case file testing",
    ),
    note(
        "bugfix",
        "Memory leak in {comp}",
        "{comp} leaked memory until {opserr}: {lib} kept a reference to every request in a "
        "module-level list in {file}. The fix is a bounded LRU of {n} entries. Found with a "
        "heap profile by {person}.",
        "what caused the memory leak in {comp} with {lib}?"
        " || how did we fix the {lib} leak in {comp}?",
        "why did {comp:p} keep growing in RAM because of {lib:p}?"
        " || what stopped {lib:p} hoarding objects inside {comp:p}?",
        "comp lib file",
    ),
    note(
        "bugfix",
        "Duplicate users from concurrent signups in {comp}",
        "Two concurrent requests could create duplicate users in {comp}: the check-then-insert "
        "in {file} was not atomic. Added a unique index in {db} and handle the violation as "
        "'already exists'. {ticket}.",
        "how did we fix duplicate users created by concurrent requests in {comp} on {db}?"
        " || which file in {comp} had the non-atomic check-then-insert against {db}?",
        "how were double accounts from simultaneous registrations in {comp:p} prevented in {db:p}?"
        " || where did {comp:p} race when two people signed up at once,"
        " before {db:p} enforced one row each?",
        "comp file ticket",
    ),
    note(
        "bugfix",
        "Slow {comp} list page",
        "The {comp} list page took {n} s because {orm} issued one query per row (N+1) from "
        "{file}. Added eager loading, and p95 is now {ms} ms. Thanks {person}.",
        "why was the {comp} list page slow with {orm}?"
        " || how did we speed up the {comp} list page built on {orm}?",
        "what made the overview screen of {comp:p} take ages to load with {orm:p}?"
        " || how did the index view of {comp:p} get fast again after the trouble with {orm:p}?",
        "comp orm file",
    ),
    note(
        "bugfix",
        "{httperr} after the {comp} deploy",
        "After the {date} deploy {comp} returned {httperr} for {pct}% of requests: the health "
        "check passed before {lib} finished warming up. Added a readiness probe in {file}.",
        "why did {comp} return {httperr} after the deploy?"
        " || what readiness probe did we add to {comp} for {lib}?",
        "why did {comp:p} start hitting {httperr:p} right after we shipped it?"
        " || how do we keep traffic away from {comp:p} until {lib:p} is ready?",
        "comp httperr lib",
    ),
    note(
        "bugfix",
        "Non-ASCII names crashed {comp}",
        "Non-ASCII customer names crashed {comp} with {codeerr}: {file} read CSV uploads as "
        "latin-1. It now decodes UTF-8 with a fallback; {case} covers it.",
        "why did non-ASCII names crash {comp} with {codeerr}?"
        " || which test covers the CSV encoding fix for {codeerr} in {comp}?",
        "why did accented customer names break {comp:p} with {codeerr:p}?"
        " || where is the check for umlauts in spreadsheet imports of {comp:p}"
        " that hit {codeerr:p}?",
        "file codeerr comp",
    ),
    note(
        "bugfix",
        "Retry storm from {comp} to {comp2}",
        "{comp} retried failed calls to {comp2} immediately and without limit, turning a blip "
        "into an outage ({ticket}). {person} added exponential backoff with jitter, at most {n} "
        "attempts, in {file}.",
        "how did we stop {comp} retrying calls to {comp2} without limit?"
        " || who added backoff to the {comp} calls to {comp2}?",
        "what calmed the flood of repeated traffic from {comp:p} hitting {comp2:p}?"
        " || how does {comp:p} now space out its tries against {comp2:p}?",
        "comp comp2 ticket",
    ),
    note(
        "bugfix",
        "{comp} skipped one item per page",
        "{comp} skipped one item per page: {file} used offset = page * size + 1. Fixed by "
        "{person}; {case} now covers the last page.",
        "why did {comp} skip one item per page in {file}?"
        " || which test covers the last page of {comp} after the {file} fix?",
        "why were results missing at each boundary when browsing {comp:p} in {case:p}?"
        " || what verifies the final screen of {comp:p} listings after the paging bug in {file:p}?",
        "comp file case",
    ),
    note(
        "bugfix",
        "{comp} down: expired certificate",
        "{comp} went down on {date} with {tlserr} because the {infra} renewal job had been "
        "failing silently for weeks. Added an alert {n} days before expiry. Postmortem: "
        "{ticket}.",
        "why did {comp} go down with {tlserr} on {date}?"
        " || which {infra} renewal job failed silently for {comp}?",
        "what took {comp:p} offline with {tlserr:p}?"
        " || how will we hear in advance next time {infra:p} cannot renew for {comp:p}?",
        "comp tlserr infra",
    ),
)

RULES: Final = (
    note(
        "note",
        "Rule for {comp}: run {cmd} before pushing",
        "Rule for {comp}: run `{cmd}` before every push. CI runs it too but takes {n} minutes "
        "longer. Agreed in the {date} retro; {person} proposed it.",
        "should I run {cmd} before pushing to {comp}?"
        " || who proposed running {cmd} before every push to {comp}?",
        "which local check, {cmd:p}, must pass before I share {comp:p} changes?"
        " || whose idea was it to require {cmd:p} on a laptop for {comp:p}?",
        "cmd comp person",
    ),
    note(
        "note",
        "Never edit {file} by hand",
        "{file} is generated by {codegen}; never edit it by hand. Change the source schema and "
        "regenerate with `{cmd}`. Hand edits are overwritten on the next build ({person}).",
        "can I edit {file} by hand, or is it generated by {codegen}?"
        " || how do I regenerate {file} with {codegen}?",
        "is it ok to manually change {file:p} that {codegen:p} produces?"
        " || how do I rebuild {file:p} from its schema using {codegen:p}?",
        "file codegen cmd",
    ),
    note(
        "note",
        "{migr} migrations for {comp} must be backwards compatible",
        "Every {migr} migration for {comp} must work with the previous release still running: "
        "add columns nullable, backfill, then constrain in a later release. {person} rejects "
        "PRs that drop columns in one step.",
        "what rules apply to {migr} migrations for {comp}?"
        " || who rejects {migr} migrations that drop columns in {comp}?",
        "how should schema changes to {comp:p} be rolled out with {migr:p}"
        " so old code keeps working?"
        " || can one step of {migr:p} remove a field from the tables of {comp:p}?",
        "migr comp person",
    ),
    note(
        "note",
        "No PII in {comp} logs",
        "Never log email addresses or tokens in {comp}. {file} has a redaction filter; use "
        "structured fields rather than f-strings. Security review {ticket} found leaks in "
        "{lib} debug logs.",
        "can we log email addresses in {comp}, given the {lib} debug log leaks?"
        " || where is the log redaction filter for {comp} since {ticket}?",
        "is it allowed to write customer contact details to {comp:p} output"
        " after {lib:p} exposed some?"
        " || what scrubs personal data that {lib:p} would print from {comp:p}?",
        "comp file ticket",
    ),
    note(
        "note",
        "{file} needs review from {person} or {person2}",
        "Changes under {file} in {comp} need a review from {person} or {person2}; CODEOWNERS "
        "enforces it since {date}.",
        "who has to review changes to {file} in {comp}?"
        " || since when does CODEOWNERS enforce reviews of {file} in {comp}?",
        "whose approval do I need to touch {file:p} of {comp:p}?"
        " || who signs off edits to {file:p} in {comp:p}?",
        "file person comp",
    ),
    note(
        "note",
        "Remove flags like {flag} within {n} days",
        "Flags like {flag} in {flags} must be removed within {n} days of full rollout; {person} "
        "runs a monthly cleanup and files tickets like {ticket}.",
        "how soon must flags like {flag} be removed from {flags}?"
        " || who runs the monthly cleanup of {flags} flags like {flag}?",
        "what is our deadline for deleting {flag:p} from {flags:p} after launch?"
        " || who clears out stale switches in {flags:p}, such as {flag:p}?",
        "flag flags person",
    ),
    note(
        "note",
        "Tests in {comp} that need {db} use a throwaway container",
        "Tests in {comp} that need {db} start a throwaway container with {testing}; never point "
        "them at the shared staging {db}. {case} is the reference example.",
        "how should tests in {comp} get a {db}?"
        " || which test is the example of a throwaway {db} container in {comp}?",
        "what should my checks for {comp:p} use instead of the shared instance of {db:p}?"
        " || where is a sample that spins up a throwaway copy of {db:p} for {comp:p}?",
        "comp db case",
    ),
    note(
        "note",
        "Deploy freeze for {comp}",
        "No deploys of {comp} on Fridays after 15:00 or during the freeze from {date} to "
        "{date2}. Hotfixes need sign-off from {person} and a green {obs} dashboard.",
        "can I deploy {comp} on a Friday afternoon without sign-off from {person}?"
        " || who signs off hotfixes to {comp} during the freeze, and which {obs} dashboard counts?",
        "when are we forbidden from shipping {comp:p}, and does {obs:p} matter?"
        " || who approves an urgent patch to {comp:p} over the holidays"
        " once {obs:p} looks healthy?",
        "comp person obs",
    ),
    note(
        "note",
        "{comp} makes HTTP calls only through {http}",
        "In {comp}, make outbound HTTP calls only through {http} via the wrapper in {file}; it "
        "sets timeouts, tracing headers and retries. Bare clients were the cause of {ticket}.",
        "which client should {comp} use for outbound HTTP calls, {http}?"
        " || where is the {http} wrapper for {comp}?",
        "what must {comp:p} go through to reach other services over the network, {http:p}?"
        " || which module wraps {http:p} for {comp:p}?",
        "comp http file",
    ),
    note(
        "note",
        "{comp} reads secrets only from {secrets}",
        "{comp} reads secrets only from {secrets} at startup; never put them in {file} or in CI "
        "variables. Rotation is owned by {person}.",
        "where should {comp} read secrets from, {secrets}?"
        " || who owns rotation of {comp} secrets in {secrets}?",
        "where do credentials for {comp:p} have to live, {secrets:p}?"
        " || who changes the passwords of {comp:p} stored in {secrets:p}?",
        "comp secrets file",
    ),
)

FACTS: Final = (
    note(
        "discovery",
        "{comp} is owned by {person}",
        "{person} owns {comp} since the {team} reorg on {date}; {person2} is the backup "
        "on-call. Pages go through {obs}.",
        "who owns {comp} since the {team} reorg? || who is backup on-call for {comp} in {team}?",
        "who has been responsible for {comp:p} after {team:p} was restructured?"
        " || who covers {comp:p} when the main person in {team:p} is away?",
        "comp person team",
    ),
    note(
        "discovery",
        "{comp} runs on {runtime} {ver}",
        "As of {date}, {comp} runs on {runtime} {ver} with {n} replicas in {env}, deployed "
        "with {infra}.",
        "what version of {runtime} does {comp} run on?"
        " || how many replicas of {comp} run on {runtime}?",
        "which release of {runtime:p} powers {comp:p}?"
        " || how many copies of {comp:p} do we keep up on {runtime:p}?",
        "comp runtime infra",
    ),
    note(
        "discovery",
        "{comp} SLO",
        "{comp} SLO: {slo}% of requests under {ms} ms over 30 days. Error budget alerts from "
        "{obs} page {person}.",
        "what is the SLO of {comp} in {obs}?"
        " || who gets paged by {obs} when {comp} burns its error budget?",
        "what latency target have we promised for {comp:p}, tracked in {obs:p}?"
        " || who does {obs:p} wake up when {comp:p} is too slow too often?",
        "comp obs person",
    ),
    note(
        "discovery",
        "{key} in production for {comp}",
        "In production {key} is {n} for {comp}; staging uses {n2}. Changed on {date} by "
        "{person} after {err}.",
        "what is {key} set to in production for {comp}?"
        " || why was {key} changed for {comp} after {err}?",
        "what value does {key:p} have live for {comp:p}?"
        " || why did we retune {key:p} on {comp:p} after {err:p}?",
        "key comp err",
    ),
    note(
        "discovery",
        "{comp} keeps raw events for {n} days",
        "{comp} keeps raw events for {n} days in {db}, then aggregates them to daily rows. "
        "Legal asked for this on {date} ({ticket}).",
        "how long does {comp} keep raw events in {db}?"
        " || why does {comp} aggregate raw events to daily rows in {db}?",
        "after how long does {comp:p} throw away detailed records in {db:p}?"
        " || who required {comp:p} to roll its history up per day inside {db:p}?",
        "comp db ticket",
    ),
    note(
        "discovery",
        "{comp} dashboard in {obs}",
        "The {comp} dashboard lives in {obs} under the {team} folder; the key panel is p99 "
        "latency by endpoint. {person} set it up.",
        "where is the {comp} dashboard in {obs}?"
        " || who set up the {comp} dashboard in the {team} folder?",
        "where can I see graphs for {comp:p} in {obs:p}?"
        " || who built the charts of {comp:p} that {team:p} use?",
        "comp obs team",
    ),
    note(
        "discovery",
        "{comp} depends on {comp2}",
        "{comp} calls {comp2} synchronously on every request, so an outage of {comp2} takes "
        "{comp} down too. Dependency map drawn by {person} on {date}.",
        "does {comp} depend on {comp2}? || why does an outage of {comp2} take {comp} down?",
        "will {comp:p} stay up when {comp2:p} is broken?"
        " || if {comp2:p} fails, does {comp:p} fail with it?",
        "comp comp2 person",
    ),
    note(
        "discovery",
        "How to reach {comp} in {env}",
        "{comp} in {env} is reachable only over the VPN; its internal hostname is in {file} "
        "and the credentials are in {secrets}.",
        "how do I reach {comp} in {env} over the VPN?"
        " || where are the credentials for {comp} in {env}?",
        "how can I connect to the {env} copy of {comp:p},"
        " and where do I get its login from {secrets:p}?"
        " || which password store, {secrets:p}, has access details for {comp:p}?",
        "comp file secrets",
    ),
    note(
        "discovery",
        "{vendor} rate limit for {comp}",
        "{vendor} allows {n} requests per second per API key for {comp}; above that it answers "
        "{httperr}. The limit was confirmed with their support on {date}.",
        "what rate limit does {vendor} apply to {comp}?"
        " || what does {vendor} answer when {comp} goes over the limit?",
        "how many calls a second can {comp:p} make to {vendor:p} before being throttled?"
        " || what happens when {comp:p} sends {vendor:p} too much traffic?",
        "vendor comp httperr",
    ),
    note(
        "discovery",
        "Clean CI build of {comp} takes {n} minutes",
        "A clean CI build of {comp} takes about {n} minutes; {n2} of them are {pm} installing "
        "dependencies. The cache key is the hash of {file}.",
        "how long does a clean CI build of {comp} take with {pm}?"
        " || what is the CI cache key for {comp} dependencies installed by {pm}?",
        "how much time does a fresh pipeline run for {comp:p} need, mostly {pm:p}?"
        " || what decides whether {comp:p} reuses downloaded packages from {pm:p}?",
        "comp pm file",
    ),
)

NOTE_TEMPLATES: Final = DECISIONS + GOTCHAS + BUGFIXES + RULES + FACTS
