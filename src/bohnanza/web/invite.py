"""Invite links for friends on other machines: the server's reachable addresses and QR codes.

A link built from ``127.0.0.1`` only works on the server's own machine, so the invite shown
on a table page is built from the address the visitor's browser used (its ``Host`` header,
or the proxy's ``X-Forwarded-Host``/``-Proto`` with ``--trust-proxy``), and a server started
with ``--public`` also offers its LAN addresses when that address is a loopback one. QR
codes are drawn by ``segno`` (a maintained pure-Python library) as SVG.
"""

from __future__ import annotations

import io
import ipaddress
import re
import socket
from collections.abc import Callable, Mapping
from urllib.parse import quote

from .limits import host_name

#: The longest text a QR code is made for (a link with a seat token is about 100).
QR_MAX = 600


def lan_addresses() -> list[str]:
    """This machine's non-loopback IPv4 addresses (best effort, no network traffic)."""
    found: set[str] = set()
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(str(info[4][0]))
    except OSError:
        pass
    # The address the default route would use: connecting a UDP socket sends nothing.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # TEST-NET-1: never answered, never routed out
            found.add(str(s.getsockname()[0]))
        except OSError:
            pass
    return sorted(a for a in found if not ipaddress.ip_address(a).is_loopback)


def listen_addresses(host: str, port: int) -> list[str]:
    """Every ``http://address:port/`` a browser may use to reach a server on ``host``."""
    wildcard = host in ("0.0.0.0", "::", "")
    hosts = ["127.0.0.1", *lan_addresses()] if wildcard else [host]
    return [f"http://{f'[{h}]' if ':' in h else h}:{port}/" for h in hosts]


def _is_loopback(host: str) -> bool:
    name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    name = name.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


#: A Host header's value as a browser sends it: a DNS name, an IPv4 address or an IPv6
#: one in brackets, and an optional port.
HOST_SYNTAX = re.compile(
    r"(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?"
    r"|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?",
    re.IGNORECASE,
)


def _valid_host(value: str, allowed: Callable[[str], bool]) -> bool:
    if len(value) > 260 or not HOST_SYNTAX.fullmatch(value):
        return False
    port = value.rsplit(":", 1)[1] if value.count(":") == 1 or "]:" in value else None
    if port is not None and not 0 < int(port) < 65536:
        return False
    return allowed(host_name(value))


def request_origin(
    headers: Mapping[str, str],
    scheme: str,
    trust_proxy: bool,
    allowed: Callable[[str], bool] = lambda _host: True,
) -> str:
    """``scheme://host`` as the visitor's browser sees this server. A proxy's
    X-Forwarded-Proto counts only as ``http`` or ``https``, its X-Forwarded-Host only as
    a well-formed host name the server answers to (``allowed``: ``--allowed-host``);
    otherwise the request's own are used (a link must never read ``javascript://``)."""
    host = headers.get("host", "localhost")
    if trust_proxy:
        forwarded = headers.get("x-forwarded-host", "").split(",")[0].strip()
        if forwarded and _valid_host(forwarded, allowed):
            host = forwarded
        proto = headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
        if proto in ("http", "https"):
            scheme = proto
    return f"{scheme}://{host}"


def invite_links(
    table_id: str,
    headers: Mapping[str, str],
    scheme: str,
    *,
    trust_proxy: bool,
    public: tuple[str, ...],
    allowed: Callable[[str], bool] = lambda _host: True,
    public_url: str | None = None,
) -> list[str]:
    """The invite links, the one friends can open first: ``public_url`` (``--public-url``:
    the name players use, behind a proxy) if given; else the request's own address, unless
    it only works on this machine (a loopback address: the host opened the first address
    the server printed), when the server's network addresses come first and the loopback
    one last. The page's link, Copy button and QR code use the first (a host on
    ``127.0.0.1`` used to invite friends to ``127.0.0.1``)."""
    origin = request_origin(headers, scheme, trust_proxy, allowed)
    path = "/t/" + quote(table_id, safe="")
    links: list[str] = []
    if public_url:
        links.append(public_url.rstrip("/") + path)
    if _is_loopback(origin.split("://", 1)[1]):
        for base in public:
            link = base.rstrip("/") + path
            if link not in links and not _is_loopback(base.split("://", 1)[1].split("/")[0]):
                links.append(link)
    if origin + path not in links:
        links.append(origin + path)
    return links


def reachable_base(addresses: list[str] | tuple[str, ...]) -> str:
    """Of the addresses the server printed, the first another device can open (the
    network address with ``--public``), else the first: links in e-mails start with it
    when ``--public-url`` is not given."""
    for address in addresses:
        if not _is_loopback(address.split("://", 1)[1].split("/")[0]):
            return address
    return addresses[0]


def reachable_link(links: list[str]) -> str:
    """The link another device is likeliest to reach: the first of ``invite_links``
    that is not a loopback address (``http://127.0.0.1:8000`` only works on the server's
    own machine), else the first. "Continue on another device" builds its link from it."""
    for link in links:
        if not _is_loopback(link.split("://", 1)[1].split("/")[0]):
            return link
    return links[0]


def qr_svg(text: str) -> str:
    """An SVG QR code of ``text`` (markup to put into a page: no XML declaration)."""
    import segno

    code = segno.make(text, error="m", micro=False)
    out = io.BytesIO()
    # With its namespace (a page imports it as SVG) and a viewBox (CSS sizes it).
    code.save(
        out,
        kind="svg",
        scale=4,
        border=2,
        dark="#222",
        light="#fff",
        xmldecl=False,
        svgns=True,
        omitsize=True,
        nl=False,
    )
    return out.getvalue().decode("utf-8")
