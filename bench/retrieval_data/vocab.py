"""Vocabulary terms with the words a person would use instead: people, teams, components.

A table line is `name | paraphrase; paraphrase[ | keyword]`. Paraphrases never repeat a word
of their name (the generator's test checks it), so a question built from them states the
same need without the note's rare words. The keyword is what someone would type to find the
term; by default the first word of the name.
"""

# ruff: noqa: E501  (a table keeps one term or line per row, however long)

import re
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Term:
    name: str
    paraphrases: tuple[str, ...]
    keyword: str


def first_word(name: str) -> str:
    found = re.match(r"[\w.\-/]+", name)
    return found.group(0) if found else name


def table(text: str) -> tuple[Term, ...]:
    """Terms from `name | paraphrase; paraphrase[ | keyword]` lines (blank lines skipped)."""
    terms = []
    for line in text.strip().splitlines():
        name, paraphrases, *keyword = (part.strip() for part in line.split("|"))
        options = tuple(option.strip() for option in paraphrases.split(";") if option.strip())
        terms.append(Term(name, options, keyword[0] if keyword else first_word(name)))
    return tuple(terms)


def plain(text: str) -> tuple[Term, ...]:
    """Terms without paraphrases (names of people): one per word."""
    return tuple(Term(word, (), word) for word in text.split())


PEOPLE: Final = plain("""
Priya Marcus Lena Tomasz Aiko Dmitri Fatima Jonas Chen Olu Sofia Rahul Hannah Mateo Yuki Ines
Kwame Elif Noah Astrid Bilal Camila Diego Esther Farid Greta Hiro Ivana Jamal Keiko Liam Mei
Nadia Omar Paula Quentin Rosa Sanjay Tariq Ulla Viktor Wen Ximena Yusuf Zara Anders Bea Caio
Dana Emeka Freya Gus Hamid Isla Joon Kofi Lucia Mika Nils Oksana Pedro Ravi Sven Thandiwe Uma
Vera Wojtek Yara Zeynep Arjun Bjorn Chloe Dario Eitan Femi Gwen Henrik Ingrid Jorge Kasia
""")

TEAMS: Final = table("""
payments | the money movement group; the people who handle charging
platform | the internal tooling group; the developer infrastructure crew
growth | the acquisition and activation squad; the signup funnel folks
mobile | the iOS and Android squad; the phone apps group
data | the analytics engineering group; the warehouse and reporting crew
security | the appsec group; the people who run pentests and audits
search | the discovery squad; the relevance and ranking crew
checkout | the purchase funnel squad; the basket-to-order crew
identity | the accounts and login squad; the authentication crew
infra | the cloud operations group; the SRE crew
web | the browser frontend squad; the site UI crew
support tools | the helpdesk engineering crew; the customer service engineering group
""")

ENVIRONMENTS: Final = plain("staging production sandbox preview qa eu-prod us-prod load-test")

COMPONENTS: Final = table("""
checkout service | the purchase flow; the place customers pay for their basket
auth gateway | the sign-in front door; the login proxy
billing worker | the job that charges customers each month; the invoicing background process
notification service | the thing that sends emails and push alerts; the user alerting backend
search indexer | the job that keeps the catalog lookup fresh; the process feeding the find box | indexer
inventory sync | the stock level updater; the job reconciling warehouse counts
user profile api | the account details backend; the endpoints behind the my-account page | profile
admin dashboard | the internal back-office UI; the staff console
mobile bff | the backend-for-frontend of the phone apps; the server layer tailored to iOS and Android | bff
report generator | the PDF export job; the thing that builds monthly summaries | report
pricing engine | the code that decides what things cost; the component computing how much products cost
recommendation service | the you-may-also-like backend; the suggestions engine
fraud scorer | the risk checks on orders; the component that flags suspicious purchases
shipping calculator | the delivery cost estimator; the postage quote component
webhook relay | the callback forwarder for partners; the component pushing events to integrators
image resizer | the thumbnail pipeline; the picture scaling job
email sender | the outbound mail queue consumer; the component that delivers messages to inboxes | email
analytics ingest | the event collection endpoint; the clickstream intake
feature store | the ML attributes database; the place model inputs are kept | feature store
ml pipeline | the model training jobs; the nightly retraining workflow | ml
data warehouse loader | the nightly ETL into the analytics tables; the job copying events into BigQuery | loader
customer portal | the self-service site for clients; the account area businesses log into | portal
partner api | the B2B integration endpoints; the interface resellers call
subscription service | the recurring plans backend; the component that renews memberships
coupon service | the discount codes backend; the promo voucher component
cart service | the basket backend; the component holding what shoppers picked
order service | the backend that records what people bought; the purchase history component
payment gateway | the card charging adapter; the bridge to the acquirer
ledger service | the double-entry bookkeeping backend; the accounting journal component
tax service | the VAT and sales duty calculator; the component computing levies per region
identity service | the accounts and roles backend; the component that knows who users are
session service | the login state backend; the component tracking who is signed in
rate limiter | the throttling layer; the component that caps calls per client | limiter
api gateway | the public edge router; the front door for external traffic | gateway
edge worker | the scripts that run at the CDN points of presence; the code deployed to the CDN nodes | edge
websocket hub | the live updates server; the realtime push connection server | websocket
chat service | the in-app messaging backend; the component behind conversations between users
audit log service | the who-did-what trail; the component recording staff actions | audit
job scheduler | the cron-like trigger component; the thing that starts periodic tasks | scheduler
file upload service | the attachment intake endpoint; the component receiving documents from users | upload
video transcoder | the media conversion workers; the component re-encoding clips
geo service | the location lookup backend; the component mapping addresses to coordinates | geo
translation service | the localisation strings backend; the component serving copy in many languages
onboarding wizard | the new-user signup steps; the first-run setup screens
referral service | the invite-a-friend rewards backend; the component crediting people who bring others
loyalty points service | the frequent-buyer credits backend; the component tracking bonus balances | loyalty
status page | the public uptime site; the site telling customers about outages
support widget | the in-app help chat bubble; the helpdesk popup | widget
cms | the content management backend for marketing pages; the editor where marketers publish copy
docs site | the developer documentation website; the reference manual pages | docs
design system | the shared UI component kit; the library of buttons and forms
ci runners | the build agents; the machines executing pipelines | runners
internal cli | the developer command-line tool; the terminal helper engineers install | cli
metrics exporter | the telemetry emitter; the component publishing counters and histograms | exporter
backup job | the nightly snapshot task; the process copying databases offsite
gift card service | the prepaid voucher backend; the stored-value balance component | gift
returns service | the refund-and-send-back flow; the component handling items people hand back
warehouse robot bridge | the adapter to the fulfilment machines; the link to the picking automation | robot
""")
