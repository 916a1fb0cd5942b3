"""Which ``Host`` the viewer answers for: its own address and names, never a name another site chose.

A page on another site can make a browser resolve that site's name to this machine (DNS rebinding) and read
the store through it; the browser still sends the site's name as ``Host``, so checking it stops the attack.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Sequence

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send

_HOST = re.compile(r"(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<name>[^:\[\]/]*))(?::[0-9]{1,5})?")
"""A ``Host`` header: a name or IPv4 address, or an IPv6 address in brackets, and an optional port."""


def is_public(host: str) -> bool:
    """Whether binding ``host`` serves other machines (anything but a loopback address or ``localhost``)."""
    if host.lower() == "localhost":
        return False
    try:
        return not ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return True  # a name: it resolves to an address other machines may reach


def known_host_names(host: str, allow: Sequence[str] = ()) -> frozenset[str]:
    """The names a request's ``Host`` may give besides an IP address: ``localhost``, the bound name, the names
    given with ``--allow-host``, and this machine's own names when it serves other machines."""
    names = {"localhost", host.lower(), *(a.lower() for a in allow)}
    if is_public(host):
        names |= {socket.gethostname().lower(), socket.getfqdn().lower()}
    return frozenset(names)


class HostCheck:
    """ASGI middleware: answer only requests whose ``Host`` is an IP address (which cannot be rebound) or a known
    name of this viewer; any other gets 421 Misdirected Request."""

    def __init__(self, app: ASGIApp, names: frozenset[str]) -> None:
        self.app = app
        self.names = names

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = Headers(scope=scope).get("host")
            if host is not None and not self._known(host):
                response = PlainTextResponse(
                    f"421 this viewer does not answer for host {host[:100]!r}; open it by its address, or start "
                    "it with --allow-host NAME", status_code=421)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _known(self, host: str) -> bool:
        found = _HOST.fullmatch(host)
        if found is None:  # not a host at all ("[::1]x", "a:b:c")
            return False
        name = (found["ipv6"] or found["name"]).lower().rstrip(".")
        try:
            ipaddress.ip_address(name)
            return True
        except ValueError:
            return name in self.names
