"""Find the LAN address phones should use to reach this machine.

Pure standard library plus ifaddr: no Django, and no network traffic is sent.
"""

from __future__ import annotations

import ipaddress
import os
import time
from collections.abc import Iterator

import ifaddr

# Adapters that are never the living-room network: containers, bridges, VPNs.
SKIPPED_ADAPTER_PREFIXES = ("docker", "veth", "br-", "virbr", "tun", "tap", "wg", "zt")

# RFC 1918 ranges, best first: home routers use 192.168, then 10/8, then 172.16/12.
PRIVATE_NETWORKS = (
    ipaddress.IPv4Network("192.168.0.0/16"),
    ipaddress.IPv4Network("10.0.0.0/8"),
    ipaddress.IPv4Network("172.16.0.0/12"),
)


def _rank(address: ipaddress.IPv4Address) -> int | None:
    """Return the preference of a private address (lower is better), None if not private."""
    for rank, network in enumerate(PRIVATE_NETWORKS):
        if address in network:
            return rank
    return None


def _is_skipped_adapter(adapter: ifaddr.Adapter) -> bool:
    names = {str(adapter.name), str(adapter.nice_name)}
    return any(name.lower().startswith(SKIPPED_ADAPTER_PREFIXES) for name in names)


def lan_addresses() -> list[str]:
    """Return this machine's private LAN IPv4 addresses, best first."""
    found: list[ipaddress.IPv4Address] = []
    for adapter in ifaddr.get_adapters():
        if _is_skipped_adapter(adapter):
            continue
        for ip in adapter.ips:
            if not isinstance(ip.ip, str):  # IPv6 entries are tuples
                continue
            try:
                address = ipaddress.IPv4Address(ip.ip)
            except ValueError:
                continue
            # Loopback (127/8) and link-local (169.254/16) are outside RFC 1918.
            if _rank(address) is None or address in found:
                continue
            found.append(address)
    found.sort(key=lambda address: _rank(address) or 0)  # stable within a rank
    return [str(address) for address in found]


def join_host() -> str:
    """Return the host phones should use: SPLENDOR_HOST, else the best LAN address."""
    override = os.environ.get("SPLENDOR_HOST", "").strip()
    if override:
        return override
    addresses = lan_addresses()
    return addresses[0] if addresses else "127.0.0.1"


def allowed_hosts() -> list[str]:
    """Return the hosts Django should answer: loopback, LAN addresses and overrides."""
    hosts = ["localhost", "127.0.0.1", "[::1]", *lan_addresses()]
    override = os.environ.get("SPLENDOR_HOST", "").strip()
    if override:
        hosts.append(override)
    extra = os.environ.get("SPLENDOR_ALLOWED_HOSTS", "")
    hosts.extend(host.strip() for host in extra.split(","))
    # Never "*": it would also switch off the websocket origin check.
    result: list[str] = []
    for host in hosts:
        if host and host != "*" and host not in result:
            result.append(host)
    return result


class LiveHosts(list[str]):
    """ALLOWED_HOSTS that follows the LAN addresses while the server runs.

    A laptop may join the Wi-Fi, or get a new address from the router, after the
    server started; the QR code then shows the new address, so the host check
    must accept it too. Django and Channels iterate the setting on each check,
    so re-reading the adapters here (at most every REFRESH seconds) is enough.
    """

    REFRESH = 30.0

    def __init__(self) -> None:
        super().__init__(allowed_hosts())
        self.checked = time.monotonic()

    def refresh(self) -> None:
        if time.monotonic() - self.checked > self.REFRESH:
            self.checked = time.monotonic()
            self[:] = allowed_hosts()

    def __iter__(self) -> Iterator[str]:
        self.refresh()
        return super().__iter__()

    def __contains__(self, host: object) -> bool:
        self.refresh()
        return super().__contains__(host)
