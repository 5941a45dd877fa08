"""Headers every response carries (a strict Content-Security-Policy: no script at all, styles
and images from the hub only), and the console's session cookie when one was opened."""

from typing import Final

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP: Final = (
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HEADERS: Final = (
    ("Content-Security-Policy", CSP),
    ("X-Frame-Options", "DENY"),
    # same-origin, not no-referrer: under no-referrer a browser posts forms with `Origin: null`,
    # which the Origin guard refuses. Other sites still get no referrer.
    ("Referrer-Policy", "same-origin"),
    ("X-Content-Type-Options", "nosniff"),
)
NEW_COOKIE_STATE: Final = "console_set_cookie"  # a Set-Cookie value an endpoint left


class SecurityHeaders:
    """Adds HEADERS to every HTTP response, and the Set-Cookie a console page asked for."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS:
                    headers.setdefault(name, value)
                cookie = scope.get("state", {}).get(NEW_COOKIE_STATE)
                if cookie:
                    headers.append("Set-Cookie", cookie)
            await send(message)

        await self.app(scope, receive, send_with_headers)
