"""Registry calls from Python: the local registry, or a remote ``alknet serve`` over gRPC
(docs/call.md, docs/python.md).

    c = alknet.call.connect("127.0.0.1:7070", token=os.environ.get("ALKNET_TOKEN"))
    c.list()                                      # [{"name", "signature", "owner", "doc"}]
    y = c.invoke("compute.relu", [[x]])           # (inputs: list): numpy in, numpy out
    y = c.compute.relu([x])                       # the same, by attribute

Arguments are None, bool, int, float, str, bytes, lists, dicts and numpy arrays (sent as
tensors without a copy on the way out); tensor results come back as read-only numpy arrays
(a dict of dtype/shape/data for dtypes numpy lacks). Errors are :class:`alknet.CallError`
(``.code``: ``"unauthenticated"``, ``"invalid-argument"``...; ``.call``: the call's name).
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from . import _native

CallError = _native.CallError


class _Namespace:
    def __init__(self, client: "Client", prefix: str) -> None:
        self._client, self._prefix = client, prefix

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Namespace(self._client, f"{self._prefix}.{name}")

    def __call__(self, *args: Any, timeout: Optional[float] = None) -> Any:
        return self._client.invoke(self._prefix, list(args), timeout=timeout)


class Client:
    """A call target: ``invoke(name, args)`` runs a call, ``list()`` lists them."""

    def __init__(self, native: Any) -> None:
        self._native = native

    def _open(self) -> Any:
        if self._native is None:
            raise ValueError("the client is closed")
        return self._native

    @property
    def address(self) -> str:
        """The server's address; "" for the local registry."""
        return self._open().address

    def list(self) -> list:
        return self._open().list()

    def invoke(self, name: str, args: Sequence[Any] = (), *, timeout: Optional[float] = None) -> Any:
        """Runs call ``name`` with positional ``args``; timeout in seconds (a deadline)."""
        return self._open().invoke(name, list(args), timeout)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Namespace(self, name)

    def close(self) -> None:
        self._native = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._native is None:
            return "<alknet.call.Client closed>"
        return f"<alknet.call.Client {self.address or 'local'}>"


def connect(target: str, token: Optional[str] = None, *, tls: bool = False,
            tls_root_pem: Optional[str] = None, tls_server_name: Optional[str] = None) -> Client:
    """Connects to ``alknet serve`` at ``target`` (host:port). token: the bearer token the
    server requires (ALKNET_TOKEN there). tls / tls_root_pem (a PEM string of the CA) /
    tls_server_name for a TLS server. The connection is made lazily: the first call fails
    with CallError code "unavailable" when nobody listens."""
    return Client(_native.call.connect(target, token or "", tls, tls_root_pem or "",
                                       tls_server_name or ""))


def local() -> Client:
    """The in-process registry: the builtins and the compute calls."""
    return Client(_native.call.local())


__all__ = ["Client", "CallError", "connect", "local"]
