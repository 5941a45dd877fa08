"""Secrets known by what stands around them: HTTP headers and cookies, URLs, command-line
password flags (gitleaks' curl rules and the CLIs that take a password the same way), and
config lines (.netrc, .pgpass, LDAP and Redis directives, an AWS secret near the words)."""

import re
from typing import Final

from aletheia_hub.redact.assignments import BARE_END, PLACEHOLDER, TEMPLATE, is_placeholder
from aletheia_hub.redact.patterns import (
    SecretPattern,
    compile_,
    contains,
    contains_folded,
    either,
    either_gate,
    finds,
    finds_reversed,
    marker,
    reversed_words,
)

# A value after a flag: quoted whole (group 2 holds the quote), or a bare command-line word.
_FLAG_VALUE: Final = (
    rf"(?(2)(?!{PLACEHOLDER}\2)[^\"'\r\n]+(?=\2)"
    rf"|(?![`<$(\-]|\[REDACTED|{PLACEHOLDER}(?![^\s\"'`|;&<>]))[^\s\"'`|;&<>]+)"
)
# Up to where one command ends: a pipe, `;`, `&&` or the line's end.
_SAME_COMMAND: Final = r"[^\n|;&]{0,200}?[ \t]"
_LOGIN_CLIS: Final = (
    r"(?:docker|podman|nerdctl|buildah|skopeo|helm(?:[ \t]+registry)?|oras|crane|cf|az)"
)
# CLIs that take a password after a short flag: the command, then its flag.
_CLI_FLAGS: Final = either(
    rf"\bsshpass\b{_SAME_COMMAND}-p[ \t]*",
    rf"\b{_LOGIN_CLIS}[ \t]+(?:[\w\-]+[ \t]+)?login\b{_SAME_COMMAND}-p[ \t]+",
    rf"\b(?:mysql\w*|mariadb[\w\-]*)\b{_SAME_COMMAND}-p(?=[^\s\-])",  # -pSECRET, joined
    rf"\bredis-cli\b{_SAME_COMMAND}-a[ \t]+",
    rf"\b(?:sqlcmd|bcp|osql|isql)\b{_SAME_COMMAND}-P[ \t]*",
    rf"\bldap(?:search|add|modify|delete|whoami|passwd|compare|modrdn)\b{_SAME_COMMAND}-w[ \t]+",
    rf"\bmongo(?:sh|dump|restore|export|import|stat|top)?\b{_SAME_COMMAND}-p[ \t]+",
    rf"\b(?:un)?zip\b{_SAME_COMMAND}-P[ \t]+",
    rf"\b(?:7z[az]?|rar|unrar)\b{_SAME_COMMAND}-p(?=[^\s\-])",
    rf"\bssh-keygen\b{_SAME_COMMAND}-[NP][ \t]+",
    rf"\bopenssl\b{_SAME_COMMAND}-pass(?:in|out)?[ \t]+pass:",
    rf"\bopenssl\b{_SAME_COMMAND}-[kK][ \t]+",  # enc: a password (-k) or a raw key (-K)
    # htpasswd -b takes the password as its last argument, after the file and the user (the
    # user alone with -n); a word that does not end the command is prose.
    r"\bhtpasswd(?=(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*b)"
    r"(?:(?=(?:[ \t]+-[A-Za-z]+)*?[ \t]+-[A-Za-z]*n)(?:[ \t]+-[A-Za-z]+)+"
    r"|(?:[ \t]+-[A-Za-z]+)+[ \t]+[^\s\-]\S*)[ \t]+[^\s\-]\S*[ \t]+"
    r"(?=(?:\"[^\"\r\n]+\"|'[^'\r\n]+'|[^\s\"'|;&<>]+)[ \t]*(?:[\r\n|;&>)`]|$))",
    rf"\b(?:smbclient|rpcclient)\b{_SAME_COMMAND}-U[ \t]+[^\s%]+%",
    rf"\blftp\b{_SAME_COMMAND}-u[ \t]+[^\s,]+,",
    r"\brabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+\S+[ \t]+",
    r"\bwpa_passphrase[ \t]+\S+[ \t]+",
    rf"\bnmcli\b{_SAME_COMMAND}(?:password|wifi-sec\.psk|802-1x\.password)[ \t]+",
    r"\b(?:sqlplus|expdp|impdp|sqlldr)[ \t]+(?:-\w+[ \t]+)*[\w$#]+/(?=[^\s@/])",
)
# Every form but a few has a flag: a space, a dash and a letter or digit.
_CLI_GATE: Final = either_gate(
    finds(r"[ \t]-[A-Za-z0-9]"),
    contains("rabbitmqctl", "wpa_passphrase", "nmcli", "sqlplus", "expdp", "impdp", "sqlldr"),
)
# `--password X`, `-storepass X`, whatever the command (`--password=X` is an assignment); after
# a long flag a plain lowercase word is prose (`pass --token instead`).
_LONG_FLAGS: Final = either(
    r"(?<![\w\-])--(?!no-|ask-)(?:[a-z0-9]+-)*"
    r"(?:password|passwd|pass|passphrase|token|secret|api-key|apikey|access-key|secret-key)"
    r"[ \t]+(?![a-z]+(?![^\s\"'`,;])|[a-z_]+=)",  # not a word, nor a spec (`id=pip`)
    r"(?<![\w\-])-(?:password|passwd|(?:src|dest)?(?:store|key)pass)[ \t]+",
)
_LONG_FLAG_GATE: Final = finds(
    r"-(?:pass|token|secret|api-?key|access-key|(?:src|dest)?(?:store|key)pass)"
)

_COOKIE_PAIR: Final = compile_(r"((?:^|;)[ \t]*([^=;\s]+)=)([^;\s]{8,})")
_COOKIE_ATTRIBUTES: Final = frozenset(
    {"path", "domain", "expires", "max-age", "samesite", "priority", "partitioned"}
)


def _redact_cookies(header: str) -> tuple[str, int]:
    """Every value of 8 characters or more in a Cookie or Set-Cookie header."""
    count = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal count
        name, value = match.group(2), match.group(3)
        if name.lower() in _COOKIE_ATTRIBUTES or value.startswith("[") or is_placeholder(value):
            return match.group(0)
        count += 1
        return match.group(1) + marker("cookie")

    return _COOKIE_PAIR.sub(replace, header), count


# Config files read these names in any case (`BINDPW`, Redis' `REQUIREPASS`, slapd's `RootPW`).
_CONFIG_DIRECTIVES: Final = (
    "bindpw", "rootpw", "requirepass", "masterauth", "auth_pass", "ldap_default_authtok",
    "tls_key_password",
)  # fmt: skip
# The same directives as a regex, olcRootPW: (LDIF) too.
_DIRECTIVE: Final = "(?i:" + either(r"olcrootpw:?", *_CONFIG_DIRECTIVES) + ")"
# Before every directive's value stands a space or a tab (after `olcRootPW:` perhaps nothing).
_DIRECTIVE_GATE: Final = finds_reversed(
    r"[ \t]:?" + reversed_words(*_CONFIG_DIRECTIVES), re.IGNORECASE
)
# Where a config line's value ends: the line's end, perhaps after a closing backtick or quote
# and a `# comment`.
_LINE_END: Final = r"[`\"']?[ \t]*(?:#[^\r\n]*)?$"
# Where a value within a sentence ends.
_VALUE_END: Final = r"(?=[\s`\"',;)]|[.:!?](?!\S)|$)"
# A directive's value: in quotes, whatever they hold (`bindpw "two words"`); on the directive's
# own line, anything up to the line's end; within a sentence, no plain lowercase word
# (`requirepass is set`), bracket (`bindpw (see...)`) nor comment mark (`... MASTERAUTH  # x`).
_DIRECTIVE_VALUE: Final = (
    r"(?(quote)[^\r\n]{1,200}?(?=(?P=quote))"
    rf"|(?(own)[^\s`]+(?={_LINE_END})"
    rf"|(?![a-z]+{_VALUE_END}|[(<\[{{$#])[^\s`\"',;]+{_VALUE_END}))"
)
_AWS_WORD: Final = r"(?<![A-Za-z])(?i:aws|amazon)(?![a-z])"
_SECRET_WORD: Final = r"(?i:secret)"

BEFORE_ASSIGNMENTS: Final[tuple[SecretPattern, ...]] = (
    SecretPattern(
        "bearer-token",
        compile_(r"(\b[Bb]earer\s+)[A-Za-z0-9._~+/\-]{16,}=*"),
        keep_group=1,
        gates=(finds(r"earer\s"),),
    ),
    SecretPattern(
        "authorization",
        compile_(
            r"(\b(?:Proxy-)?Authorization[\"'`]?[ \t]*[:=][ \t]*[\"'`]?"
            r"(?:Basic|Bearer|Token|Bot|ApiKey|Api-Key|Key|SSWS|Negotiate|NTLM)[ \t]+)"
            rf"(?!realm=|{TEMPLATE}{BARE_END})[^\s\"'`]{{4,}}",
            re.IGNORECASE,
        ),
        keep_group=1,
        gates=(finds_reversed(r"[:=][ \t]*[\"'`]?noitazirohtua", re.IGNORECASE),),
    ),
    SecretPattern(
        "cookie",
        compile_(r"((?<![\w\-])(?:Set-)?Cookie[\"'`]?[ \t]*:[ \t]*[\"'`]?)[^\r\n\"'`]+", re.I),
        keep_group=1,
        gates=(finds_reversed(r":[ \t]*[\"'`]?eikooc", re.IGNORECASE),),
        rewrite=_redact_cookies,
    ),
    SecretPattern(
        "url-password",
        compile_(
            r"((?<![a-zA-Z0-9+.\-])[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@]*:)"
            # `host:8080/path@x` is a port and a path, unless the user is empty (`redis://:`).
            rf"(?!(?<!/:)\d{{1,5}}/|{TEMPLATE}@)"
            # Up to the last `@` of the run, without backtracking and never past another `://`:
            # long URL-like runs stay linear.
            r"(?:(?!://)[^\s@]|@(?=[^\s@]*@)){1,1024}+(?=@)"
        ),
        keep_group=1,
        gates=(finds("://"),),
    ),
    SecretPattern(
        "cli-password",
        compile_(
            r"(\b(?:curl\b|https?[ \t]|xh[ \t])[^\n|;&]{0,200}?[ \t\"']"
            r"(?:-u|--user|--proxy-user|-U|-a|--auth)(?:=|[ \t]+|[\"'],[ \t]*)[\"']?[^\s:\"'$]+:)"
            rf"(?![\"'$]|{TEMPLATE}{BARE_END})[^\s\"']+"
        ),
        keep_group=1,
        gates=(contains("curl", "http", "xh"),),
    ),
    SecretPattern(
        "cli-password",
        compile_(rf"({_CLI_FLAGS}([\"'])?){_FLAG_VALUE}"),
        keep_group=1,
        gates=(_CLI_GATE,),
    ),
    SecretPattern(
        "cli-password",
        compile_(rf"({_LONG_FLAGS}([\"'])?){_FLAG_VALUE}"),
        keep_group=1,
        gates=(_LONG_FLAG_GATE,),
    ),
    SecretPattern(
        "azure-sas-token",
        compile_(r"([?&;]sig=)[A-Za-z0-9%+/]{30,}={0,2}"),
        keep_group=1,
        gates=(contains("sig="),),
    ),
)

AFTER_ASSIGNMENTS: Final[tuple[SecretPattern, ...]] = (
    SecretPattern(
        "netrc-password",
        compile_(
            r"((?:\bmachine[ \t]+\S+|\bdefault)(?:\s+login[ \t]+\S+)?\s+password[ \t]+"
            # alone on its line, a plain lowercase word is a title (`password reset`), not netrc
            r"|^[ \t]*(?:login[ \t]+\S+[ \t]+)?password[ \t]+(?=\S+[ \t]*$)(?![a-z]+[ \t]*$))"
            r"(?!\[REDACTED)\S+",
            re.MULTILINE,
        ),
        keep_group=1,
        gates=(finds(r"password[ \t]"),),
    ),
    SecretPattern(
        "config-password",
        compile_(
            # A directive opening its line (indented, in a code span) takes any value up to
            # the line's end or a `# comment`; within a sentence (`set bindpw X in nslcd.conf`)
            # a plain lowercase word after it is prose (`requirepass is set`).
            rf"((?P<own>^[ \t]*`?)?(?<![\w.\-/$@\"':]){_DIRECTIVE}[ \t]+(?P<quote>[\"'])?+)"
            rf"(?!\[REDACTED|(?i:{PLACEHOLDER}){_VALUE_END}){_DIRECTIVE_VALUE}",
            re.MULTILINE,
        ),
        keep_group=1,
        gates=(_DIRECTIVE_GATE,),
    ),
    SecretPattern(
        "pgpass-password",
        compile_(
            # host:port:database:user:password, opening its line (indented, quoted, in a code
            # span), after `: ` (`Ran this today: host:5432:...`) or in a code span; an IPv6
            # or MAC address (hex groups only) is none.
            r"((?:^[ \t]*[`\"']?|(?<=: )|(?<=`))"
            r"(?![0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{0,4}){4,}(?![^\s`\"']))"
            r"(?!\d+:)(?:[A-Za-z0-9_.\-\[\]]+|\*):(?:\d{1,5}|\*):[^:\s\\`]+:[^:\s\\`]+:)"
            rf"(?!\[REDACTED|{PLACEHOLDER}(?={_LINE_END}|`))[^\s`]+(?={_LINE_END}|`)",
            re.MULTILINE,
        ),
        keep_group=1,
        gates=(finds(r":(?:\d{1,5}|\*):[^:\s]+:[^:\s]+:\S"),),
    ),
    SecretPattern(
        "aws-secret-key",
        compile_(
            rf"((?:{_AWS_WORD}[^\n]{{0,60}}?{_SECRET_WORD}|{_SECRET_WORD}[^\n]{{0,60}}?{_AWS_WORD})"
            r"[^\n]{0,60}?)"
            r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]*[G-Zg-z/+])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])"
        ),
        keep_group=1,
        gates=(
            contains_folded("secret"),
            contains_folded("aws", "amazon"),
            finds(r"[A-Za-z0-9/+]{40}"),
        ),
    ),
)
