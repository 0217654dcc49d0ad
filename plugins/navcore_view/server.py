"""The viewer's web server: aiohttp on its own thread and event loop.

aiohttp rather than starlette + uvicorn: one well-kept package gives the
HTTP server, WebSockets and a runner (``AppRunner`` / ``TCPSite``) that
starts and stops cleanly inside a thread of someone else's program (a
game calling ``navcore.view``), with no signal handlers of its own to
fight the host's.

Security: it listens on 127.0.0.1 only; every request must carry the
per-run token (``?token=``, compared in constant time) and a ``Host`` of
this address (a web page elsewhere cannot rebind a name onto it); a
WebSocket's ``Origin``, when sent, must be this address. Anything else
is 403. It serves the page and its script from the package (read once,
at start) and reads no file; a page closing ends only its own socket.
"""
from __future__ import annotations

import asyncio
import hmac
import json
import secrets
import threading
from importlib import resources

from navcore.errors import NavError, QueryError

#: the largest message a page may send (requests are small JSON)
MAX_REQUEST = 1 << 16


def _static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


class Server:
    """Serves ``session`` and forwards the page's requests to ``driver``."""

    def __init__(self, session, driver, port=None):
        try:
            import aiohttp  # noqa: F401
        except ImportError:
            raise QueryError("the viewer's web server needs aiohttp, which is not "
                             "installed: pip install 'navcore[view]'") from None
        if port is not None and (isinstance(port, bool) or not isinstance(port, int)
                                 or not 0 <= port <= 65535):
            raise QueryError(f"port must be a TCP port number (0..65535) or None, got "
                             f"{port!r}")
        self.session, self.driver = session, driver
        self.token = secrets.token_urlsafe(18)
        self.port = port or 0
        self.pages = {"/": _static("viewer.html").replace("__TOKEN__", self.token),
                      "/viewer.js": _static("viewer.js")}
        self.clients: set = set()
        self.pending: set = set()            # answers awaited from the driver
        self.connections = 0                 # sockets ever opened
        self.loop = None
        self._ready = threading.Event()
        self._done = threading.Event()
        self._failed = None
        self.thread = threading.Thread(target=self._main, name="navcore-view-server",
                                       daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def start(self) -> None:
        self.thread.start()
        self._ready.wait()
        if self._failed is not None:
            raise self._failed
        self.session.listeners.append(self.notify)

    def notify(self) -> None:
        """A new frame: wake every page's sender (any thread)."""
        loop = self.loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self._wake)
            except RuntimeError:             # the loop closed meanwhile
                pass

    def _wake(self) -> None:
        for client in self.clients:
            client.event.set()

    def stop(self, timeout: float = 5.0) -> None:
        """Tell the pages the run is over, close their sockets, stop."""
        if self.notify in self.session.listeners:
            self.session.listeners.remove(self.notify)
        loop = self.loop
        if loop is not None and not loop.is_closed() and self.thread.is_alive():
            try:
                loop.call_soon_threadsafe(self._stop_event.set)
            except RuntimeError:
                pass
        self.thread.join(timeout)

    # -- the server's thread ---------------------------------------------------
    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self.loop = loop
        try:
            loop.run_until_complete(self._serve())
        except BaseException as exc:           # noqa: BLE001 - reported to start()
            if not self._ready.is_set():
                self._failed = exc if isinstance(exc, NavError) else \
                    QueryError(f"the viewer's server could not start: {exc}")
                self._ready.set()
        finally:
            loop.close()
            self._done.set()

    async def _serve(self) -> None:
        from aiohttp import web
        self._stop_event = asyncio.Event()
        app = web.Application(middlewares=[self._guard], client_max_size=MAX_REQUEST)
        app.router.add_get("/", self._page)
        app.router.add_get("/viewer.js", self._page)
        app.router.add_get("/ws", self._socket)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", self.port, reuse_address=False)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise QueryError(f"cannot listen on 127.0.0.1:{self.port}: "
                             f"{exc.strerror or exc}") from None
        self.port = runner.addresses[0][1]
        self._ready.set()
        await self._stop_event.wait()
        for answer in list(self.pending):        # a stopped driver answers no more
            answer.cancel()
        for client in list(self.clients):
            if self.session.ended and not client.told_end:
                client.told_end = True
                await client.send_json({"type": "end", "why": self.session.ended})
            await client.close()
        await runner.cleanup()

    def _allowed_hosts(self) -> set:
        return {f"127.0.0.1:{self.port}", f"localhost:{self.port}"}

    async def _guard_check(self, request) -> str | None:
        token = request.query.get("token", "")
        if not hmac.compare_digest(token.encode(), self.token.encode()):
            return "a valid token is required (the address navcore printed)"
        if request.host not in self._allowed_hosts():
            return "wrong Host"
        origin = request.headers.get("Origin")
        if origin is not None and origin.removeprefix("http://") not in \
                self._allowed_hosts():
            return "wrong Origin"
        return None

    @property
    def _guard(self):
        from aiohttp import web

        @web.middleware
        async def guard(request, handler):
            why = await self._guard_check(request)
            if why is not None:
                return web.Response(status=403, text=f"403 Forbidden: {why}\n")
            response = await handler(request)
            response.headers["Cache-Control"] = "no-store"
            response.headers["X-Content-Type-Options"] = "nosniff"
            response.headers["Referrer-Policy"] = "no-referrer"
            return response
        return guard

    async def _page(self, request):
        from aiohttp import web
        text = self.pages[request.path]
        kind = "text/html" if request.path == "/" else "text/javascript"
        return web.Response(text=text, content_type=kind, headers={
            "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                                       "connect-src 'self' "
                                       f"ws://127.0.0.1:{self.port} ws://localhost:{self.port}; "
                                       "style-src 'self' 'unsafe-inline'"})

    async def _socket(self, request):
        from aiohttp import web
        ws = web.WebSocketResponse(max_msg_size=MAX_REQUEST, heartbeat=None)
        await ws.prepare(request)
        client = _Client(ws)
        self.clients.add(client)
        self.connections += 1
        behind = self.session.attach()
        sender = None
        try:
            if behind:
                # frames passed while no page watched: the driver takes the
                # map and frame again before this page sees either
                hello = await self._answer({"op": "refresh"})
            else:
                with self.session.lock:          # made on the driver's thread
                    hello = self.driver.control() | self.session.greeting
            sender = asyncio.create_task(self._send_frames(client))
            await client.send_json(hello)
            self.driver.connected()
            async for msg in ws:
                if msg.type != web.WSMsgType.TEXT:
                    continue
                try:
                    request_ = json.loads(msg.data)
                except ValueError:
                    await client.send_json({"type": "error", "message": "not JSON"})
                    continue
                if isinstance(request_, dict) and request_.get("op") == "ack":
                    client.acked.set()           # the page drew what it was sent
                    continue
                asyncio.create_task(self._ask(client, request_))
        finally:
            if sender is not None:
                sender.cancel()
            self.clients.discard(client)
            self.session.detach()
            self.driver.disconnected(len(self.clients))
        return ws

    async def _answer(self, request):
        """The driver's answer to ``request`` (asked on its thread)."""
        loop = asyncio.get_running_loop()
        answer = loop.create_future()

        def reply(value):                      # on the driver's thread
            if not loop.is_closed():
                loop.call_soon_threadsafe(_settle, answer, value)
        self.pending.add(answer)
        try:
            self.driver.submit(request, reply)
            return await answer
        finally:
            self.pending.discard(answer)

    async def _ask(self, client, request) -> None:
        value = await self._answer(request)
        if isinstance(request, dict) and "id" in request and isinstance(value, dict):
            value = {**value, "id": request["id"]}
        await client.send_json(value)

    async def _send_frames(self, client) -> None:
        seen, epoch = {}, -1
        # one batch in flight: the next waits for the page's ack, so a slow
        # page skips frames instead of falling behind on a queue of them
        while not client.ws.closed:
            await client.event.wait()
            client.event.clear()
            messages, epoch = self.session.message_for(seen, epoch)
            client.acked.clear()
            for message in messages:
                await client.send_bytes(message)
            if messages:
                await client.acked.wait()
            if self.session.ended and not client.told_end:
                client.told_end = True
                await client.send_json({"type": "end", "why": self.session.ended})


def _settle(future, value) -> None:
    if not future.done():
        future.set_result(value)


class _Client:
    """One page's socket; sends are serialised."""

    def __init__(self, ws):
        self.ws = ws
        self.event = asyncio.Event()
        self.event.set()                       # the current frame and map at once
        self.lock = asyncio.Lock()
        self.told_end = False
        self.acked = asyncio.Event()

    async def send_json(self, value) -> None:
        async with self.lock:
            if not self.ws.closed:
                await self.ws.send_str(json.dumps(value, allow_nan=False))

    async def send_bytes(self, data) -> None:
        async with self.lock:
            if not self.ws.closed:
                await self.ws.send_bytes(data)

    async def close(self) -> None:
        if not self.ws.closed:
            await self.ws.close()
