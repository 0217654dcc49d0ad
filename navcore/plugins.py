"""The plugin manager: built-ins, entry points and run-time plugins.

Built-in plugins are declared once, as entry points in the ``navcore``
group of navcore's own pyproject.toml, and loaded through the same path as
third-party ones. ``NAVCORE_DISABLE_PLUGIN_AUTOLOAD=1`` loads the built-ins
only. A built-in plugin that fails to import is a ``PluginError`` naming
it. A third-party plugin that fails (on import or when registered) is left
out with a ``PluginWarning`` and listed in ``skipped`` with its error
(``navcore plugins`` shows it as failed), so one broken install does not
stop every world and command. An optional plugin is skipped quietly: an entry point that names an extra
(``roads = "navcore_roads.plugin [osm]"``) whose import stops at a missing
module is skipped, and ``skipped`` (and ``navcore plugins``) says why. Every registration is validated the same way: a function named
``navcore_*`` that is not a known hook, a hook implementation with
arguments the hook does not have, or a graph type already claimed by
another plugin is a ``PluginError`` naming the plugin, and the plugin is
left unregistered.
"""
from __future__ import annotations

import difflib
import functools
import inspect
import importlib.metadata
import os
import types
import warnings
from dataclasses import dataclass

import numpy as np
import pluggy

from . import hookspecs, validate
from .errors import PluginError

PROJECT = "navcore"
hookimpl = pluggy.HookimplMarker(PROJECT)
hookspec = hookspecs.hookspec

AUTOLOAD_ENV = "NAVCORE_DISABLE_PLUGIN_AUTOLOAD"

#: built-in plugins renamed, old name -> new: the old name still works
#: (with a DeprecationWarning) for one release
RENAMED = {"hierarchy": "areas"}

BUILTIN = "built-in"
ENTRY_POINT = "entry point"
RUN_TIME = "run time"


@dataclass(frozen=True)
class PluginInfo:
    """One registered plugin, as ``navcore plugins`` prints it."""

    name: str
    source: str          # built-in / entry point / run time
    origin: str          # module path or distribution that provided it
    hooks: tuple
    graph_types: tuple


def for_graphs(*classes):
    """Mark a hook implementation as serving only graphs of ``classes``.

    For any other graph the implementation is not run and the call passes
    on (``None``), so a backend says once which graphs a hook is for
    instead of repeating an ``isinstance`` check in each::

        @navcore.hookimpl
        @navcore.for_graphs(GridGraph)
        def navcore_find_path(graph, request):
            ...

    The implementation must take a ``graph`` argument. Pluggy still sees
    the function's own argument names (the wrapper is unwrapped).
    """
    if not classes or not all(isinstance(c, type) for c in classes):
        raise PluginError(f"for_graphs needs graph classes, got {classes!r}")
    kinds = classes[0] if len(classes) == 1 else classes

    def decorate(fn):
        if inspect.isgeneratorfunction(fn) or hasattr(fn, "navcore_graph_classes"):
            raise PluginError(f"{fn.__qualname__}: for_graphs applies once, to a plain "
                              f"hook implementation, not to a hook wrapper (a wrapper "
                              f"can check the graph itself)")
        names = [p.name for p in inspect.signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if "graph" not in names:
            raise PluginError(f"{fn.__qualname__} is marked for_graphs but takes no "
                              f"'graph' argument")
        at = names.index("graph")

        @functools.wraps(fn)
        def serve(*args):      # pluggy passes hook arguments by position
            return fn(*args) if isinstance(args[at], kinds) else None
        serve.navcore_graph_classes = classes
        return serve
    return decorate


def precheck(fn):
    """Mark a hook implementation as a **pre-check**: a cheap answer asked
    before every other (non-wrapper) implementation of its hook, whatever
    the order plugins were registered in.

    pluggy orders implementations by registration (``tryfirst`` ones too:
    the last registered runs first), so a cheap answer marked only
    ``tryfirst`` would run after the full search of any backend registered
    after it. The registry keeps every hook's pre-checks together just
    before its hook wrappers in pluggy's own list of implementations, so
    ``plugins.hook.<name>(...)``, ``caller`` and the monitored calls all
    run them first; among themselves they keep pluggy's order. The areas
    plugin answers ``navcore_find_path`` / ``navcore_find_paths`` this way
    (start and goal in different areas: unreachable, no search)::

        @navcore.hookimpl
        @navcore.precheck
        def navcore_find_path(graph, request):
            ...

    A pre-check answers only what it knows without searching (O(1), or
    vectorised over a batch) and passes (``None``) otherwise. Combines
    with ``for_graphs`` in either order."""
    if not callable(fn) or inspect.isgeneratorfunction(fn):
        raise PluginError(f"precheck marks a plain hook implementation, got {fn!r}")
    fn.navcore_precheck = True
    return fn


def forward(fn, *classes, **opts):
    """A hook implementation that hands the hook's arguments to ``fn``,
    whose parameters are named as the hook's: a backend writes
    ``navcore_make_update = forward(updates.make_update, GridGraph)``
    rather than a function whose one line calls ``updates.make_update``.
    ``classes``: the graphs it serves (``for_graphs``); ``opts``: as for
    ``hookimpl`` (``trylast=True``). ``fn`` itself is left unmarked.
    ``fn`` may have no parameter with a default: pluggy would not pass it."""
    params = inspect.signature(fn).parameters
    if any(p.default is not p.empty for p in params.values()):
        raise PluginError(f"forward({fn.__qualname__}): pluggy passes no argument to a "
                          f"parameter with a default; write the hook out")
    if inspect.isclass(fn):              # pluggy reads the names off a function's code
        names = ", ".join(params)
        fn = eval(f"lambda {names}: cls({names})", {"cls": fn})
    if classes:
        impl = for_graphs(*classes)(fn)      # unwrapped by the hook callers: no extra call
    else:
        @functools.wraps(fn)
        def impl(*args, **kwargs):
            return fn(*args, **kwargs)
    return hookimpl(**opts)(impl)


def sample_hook(kind: str, make):
    """The ``navcore_sample_graph`` implementation of a plugin whose graph
    type ``kind`` has the sample graph ``make(world, graph_id)``."""
    @hookimpl
    def navcore_sample_graph(world, graph_type, graph_id):
        return make(world, graph_id) if graph_type == kind else None
    return navcore_sample_graph


@dataclass(frozen=True)
class SkippedPlugin:
    """A plugin that was not loaded, and why (``navcore plugins`` lists it)."""

    name: str
    source: str
    origin: str
    reason: str
    #: True when it broke (an error on import or registration), False when
    #: it was left out on purpose (a missing optional extra, a name clash)
    failed: bool = False


class _Manager(pluggy.PluginManager):
    """pluggy's manager, telling its registry whenever the hook
    implementations or the monitors of hook calls change (also when
    someone registers through ``PluginRegistry.manager`` directly), so the
    registry's hook callers are never out of date."""

    def __init__(self, changed):
        super().__init__(PROJECT)
        self._changed = changed
        self.monitors = 0        # add_hookcall_monitoring calls not undone

    def register(self, plugin, name=None):
        try:
            return super().register(plugin, name)
        finally:
            _prechecks_first(self.hook)
            self._changed()

    def unregister(self, plugin=None, name=None):
        try:
            return super().unregister(plugin, name)
        finally:
            self._changed()

    def add_hookspecs(self, module_or_class) -> None:
        try:
            super().add_hookspecs(module_or_class)
        finally:
            _prechecks_first(self.hook)
            self._changed()

    def add_hookcall_monitoring(self, before, after):
        undo = super().add_hookcall_monitoring(before, after)
        self.monitors += 1
        self._changed()
        done = []

        def undo_once() -> None:
            undo()
            if not done:
                done.append(True)
                self.monitors -= 1
                self._changed()
        return undo_once


def _is_precheck(impl) -> bool:
    return getattr(impl.function, "navcore_precheck", False) \
        and not (impl.wrapper or impl.hookwrapper)


def _prechecks_first(relay) -> None:
    """Move each hook's pre-checks (``precheck``) to the end of its plain
    implementations in pluggy's list, right before the wrappers: pluggy
    calls the list from the end, so they run first whoever registered
    last. Done after every registration: pluggy inserts a new ``tryfirst``
    implementation after them. In place, so pluggy's own calls keep the
    order too. Both parts are put back in pluggy's order (``trylast``,
    plain, ``tryfirst``; by registration within each), which pluggy's
    insertion of the next implementation counts on, and which a
    pre-check without ``tryfirst`` at the end would otherwise break."""
    for hook in vars(relay).values():
        impls = getattr(hook, "_hookimpls", None)
        if type(impls) is not list or not any(_is_precheck(i) for i in impls):
            continue
        first = sorted((i for i in impls if _is_precheck(i)), key=_rank)
        wrappers = [i for i in impls if i.wrapper or i.hookwrapper]
        rest = sorted((i for i in impls if not _is_precheck(i)
                       and not (i.wrapper or i.hookwrapper)), key=_rank)
        impls[:] = rest + first + wrappers


def _rank(impl) -> int:
    return 0 if impl.trylast else 2 if impl.tryfirst else 1


@functools.lru_cache(None)
def _hook_names() -> frozenset:
    """The hooks ``hookspecs`` declares (a module fixed at import)."""
    return frozenset(n for n in dir(hookspecs) if n.startswith("navcore_"))


class PluginRegistry:
    """Owns one ``pluggy.PluginManager("navcore")``; ``world.plugins``."""

    def __init__(self, autoload: bool | None = None):
        self.version = 0          # bumped whenever plugins, hooks or monitors change
        self._types_cache = None  # (version, {type: (builder, plugin)})
        self._callers: dict = {}  # (hook name, graph class, params) -> call
        self._pm = _Manager(self._changed)
        self._pm.add_hookspecs(hookspecs)
        self._sources: dict[str, tuple[str, str]] = {}
        #: plugins left out because an optional dependency is missing
        self.skipped: list[SkippedPlugin] = []
        if autoload is None:
            autoload = os.environ.get(AUTOLOAD_ENV, "") not in ("1", "true", "yes")
        autoload = validate.boolean(autoload, "autoload", PluginError)
        self._load_entry_points(include_third_party=autoload)

    # -- public -------------------------------------------------------------
    @property
    def hook(self):
        """The pluggy hook relay: ``plugins.hook.navcore_find_path(...)``."""
        return self._pm.hook

    @property
    def manager(self) -> pluggy.PluginManager:
        """The pluggy manager underneath, for what only pluggy offers:
        ``add_hookcall_monitoring``, ``enable_tracing``, ``subset_hook_caller``.
        Plugins registered through it directly are heard like any other
        (without the registry's checks)."""
        return self._pm

    def register(self, plugin, name: str | None = None) -> str:
        """Register ``plugin`` at run time; return the name it got."""
        return self._register(plugin, name, RUN_TIME, _origin_of(plugin))

    def unregister(self, name_or_plugin) -> None:
        if isinstance(name_or_plugin, str):
            name_or_plugin = self._current_name(name_or_plugin)
            plugin = self._pm.get_plugin(name_or_plugin)
            if plugin is None:
                raise PluginError(f"no plugin named {name_or_plugin!r} is registered; "
                                  f"registered: {', '.join(self.names())}")
        else:
            plugin = name_or_plugin
        name = self._pm.get_name(plugin)
        self._pm.unregister(plugin)
        self._sources.pop(name, None)

    def add_hookspecs(self, module_or_class) -> None:
        """Add hooks of your own (functions marked ``navcore.hookspec``)."""
        self._pm.add_hookspecs(module_or_class)

    def names(self) -> list:
        return [n for n, _ in self._pm.list_name_plugin()]

    def get(self, name: str):
        return self._pm.get_plugin(self._current_name(name))

    def _current_name(self, name):
        """``name``, or the new name of a renamed built-in (``RENAMED``)
        with a DeprecationWarning, unless a plugin of the old name is
        registered."""
        new = RENAMED.get(name) if isinstance(name, str) else None
        if new is None or self._pm.has_plugin(name):
            return name
        warnings.warn(f"the {name!r} plugin is now called {new!r}; the old name goes "
                      f"in the next release", DeprecationWarning, stacklevel=3)
        return new

    def info(self) -> list:
        """Every registered plugin with its source, hooks and graph types."""
        types = self.graph_types()
        out = []
        for name, plugin in self._pm.list_name_plugin():
            source, origin = self._sources.get(name, (RUN_TIME, _origin_of(plugin)))
            hooks = tuple(sorted(
                h for h in _hook_names() | set(self._extra_hook_names())
                if any(impl.plugin is plugin
                       for impl in getattr(self._pm.hook, h).get_hookimpls())))
            gtypes = tuple(sorted(t for t, (_, owner) in types.items() if owner == name))
            out.append(PluginInfo(name, source, origin, hooks, gtypes))
        return out

    def graph_types(self) -> dict:
        """``{type_name: (builder, plugin_name)}`` over all plugins."""
        if self._types_cache is not None and self._types_cache[0] == self.version:
            return self._types_cache[1]
        types: dict = {}
        for impl in self._pm.hook.navcore_graph_types.get_hookimpls():
            for tname, builder in _call_graph_types(impl).items():
                types[tname] = (builder, impl.plugin_name)
        self._types_cache = (self.version, types)
        return types

    def caller(self, name: str, graph_type: type | None = None, params: tuple | None = None):
        """Hook ``name`` as a plain function ``call(*args)``, ``args`` in the
        order of ``params`` (by default the hook's own, as hookspecs.py lists
        them), answering as pluggy's ``plugins.hook.<name>(**kwargs)`` does:
        the first non-None answer of a firstresult hook, else the list of
        non-None answers. Every hook navcore calls goes through one.

        While nobody watches the calls, ``call`` runs the implementations
        itself, in pluggy's order, each given the arguments it asks for by
        position: pluggy's generic call costs several microseconds (an
        argument dict checked against the spec, a list of arguments built
        per implementation), this a few hundred nanoseconds, and every
        ``find_path`` pays it. A hook with a hook wrapper, and every hook
        once ``manager.add_hookcall_monitoring`` (or ``enable_tracing``)
        is on, is run by the hook caller's own ``_hookexec``, the way its
        ``__call__`` runs it, so the monitors see every call. Made once per
        plugin set; registering, unregistering or a monitor being added or
        removed makes them again.

        With ``graph_type`` (the class of the ``graph`` argument of every
        call), implementations marked ``for_graphs`` for other classes are
        left out and the others run without their class check: a grid's
        update does not pass through the hooks of roads and navmeshes.
        """
        key = (name, graph_type, params)
        call = self._callers.get(key)
        if call is None:
            version = self.version
            call = self._make_caller(name, graph_type, params)
            if version == self.version:      # not made from plugins changing meanwhile
                self._callers[key] = call
        return call

    def each_impl(self, name: str, params: tuple, graph_type: type | None = None) -> list:
        """``[(plugin_name, call)]``: hook ``name``'s implementations in
        pluggy's order, each a plain ``call(*args)`` (``args`` in the order
        of ``params``) that runs that one implementation through the hook
        caller (as pluggy runs a historic hook for a late plugin), those
        marked ``for_graphs`` for other classes than ``graph_type`` left
        out; for running them one at a time (a warm-up that reports each
        step). A hook with wrappers is one step, the whole call
        (``plugin_name`` then ``None``)."""
        hook = getattr(self._pm.hook, name)
        impls = hook.get_hookimpls()
        if any(i.wrapper or i.hookwrapper for i in impls):
            return [(None, self.caller(name, graph_type, tuple(params)))]

        def one(impl):
            return lambda *args: hook._hookexec(name, [impl], dict(zip(params, args)), False)
        return [(i.plugin_name, one(i)) for i in reversed(_serving(impls, graph_type))]

    def covers(self, name: str, other: str, graph_type: type) -> bool:
        """Whether hook ``other`` may stand in for hook ``name`` on graphs
        of ``graph_type``: every plugin whose ``name`` implementation
        serves them implements ``other`` too, and no wrapper surrounds
        ``name`` (so asking ``other`` bypasses none of ``name``'s answers;
        ``World.begin_search`` asks this of ``navcore_find_path``)."""
        key = ("covers", name, other, graph_type)
        got = self._callers.get(key)
        if got is None:
            impls = getattr(self._pm.hook, name).get_hookimpls()
            others = {id(i.plugin) for i in _serving(getattr(self._pm.hook, other)
                                                       .get_hookimpls(), graph_type)}
            got = bool(others) and not any(i.wrapper or i.hookwrapper for i in impls) \
                and all(id(i.plugin) in others for i in _serving(impls, graph_type))
            self._callers[key] = got
        return got

    # -- internals ------------------------------------------------------------
    def _changed(self) -> None:
        """Plugins, hooks or monitors changed: hook callers are made again."""
        self.version += 1
        self._callers.clear()

    def _make_caller(self, name, graph_type, params):
        hook = getattr(self._pm.hook, name, None)
        if hook is None or hook.is_historic():
            raise PluginError(f"no hook named {name!r} to call (historic hooks are called "
                              f"through plugins.hook)")
        if params is None:
            if hook.spec is None:
                raise PluginError(f"hook {name!r} has no spec: pass its params")
            params = tuple(hook.spec.argnames)
        first = bool(hook.spec and hook.spec.opts.get("firstresult"))
        impls = hook._hookimpls
        if self._pm.monitors or any(i.wrapper or i.hookwrapper for i in impls):
            run = hook._hookexec

            def call(*args):
                return run(name, impls.copy(), dict(zip(params, args)), first)
            return call
        chain = tuple(_adapter(i.function, i.argnames, params, graph_type)
                      for i in reversed(_serving(impls, graph_type)))
        if first:
            def call(*args):
                for fn in chain:
                    result = fn(*args)
                    if result is not None:
                        return result
                return None
        else:
            def call(*args):
                results = []
                for fn in chain:
                    result = fn(*args)
                    if result is not None:
                        results.append(result)
                return results
        return call

    def _extra_hook_names(self):
        own = _hook_names()
        return [n for n in dir(self._pm.hook) if n.startswith("navcore_") and n not in own]

    def _register(self, plugin, name, source, origin) -> str:
        if isinstance(plugin, _NOT_PLUGINS) or plugin is None:
            raise PluginError(f"a plugin is a module, a class or an object with "
                              f"navcore_* hook functions, got {validate.short(plugin)}")
        if name is not None and not isinstance(name, str):
            raise PluginError(f"a plugin name must be a string, got {name!r}")
        self._add_own_hookspecs(plugin, name)
        known = _hook_names() | set(self._extra_hook_names())
        label = name or getattr(plugin, "__name__", None) or type(plugin).__name__
        for attr in dir(plugin):
            if attr.startswith("navcore_") and attr not in known \
                    and callable(_attribute(plugin, attr)) \
                    and not hasattr(_attribute(plugin, attr), "navcore_spec"):
                hint = difflib.get_close_matches(attr, sorted(known), n=1)
                raise PluginError(
                    f"plugin {label!r} implements unknown hook {attr!r}"
                    + (f" (did you mean {hint[0]!r}?)" if hint else "")
                    + "; the hooks are listed in navcore/hookspecs.py")
        existing = self.graph_types()
        if name is None and not hasattr(plugin, "__name__"):
            # an instance: named after its class (pluggy would use id()), so
            # messages say which plugin it is
            name, k = label, 2
            while self._pm.has_plugin(name) or self._pm.is_blocked(name):
                name, k = f"{label}#{k}", k + 1
        try:
            registered = self._pm.register(plugin, name=name)
        except ValueError as exc:  # duplicate name or plugin object
            raise PluginError(f"plugin {label!r} cannot be registered: {exc}") from None
        except pluggy.PluginValidationError as exc:
            self._drop(plugin)
            detail = " ".join(str(exc).split())
            raise PluginError(f"plugin {label!r} is invalid: {detail}") from None
        name = registered or self._pm.get_name(plugin)
        try:
            self._pm.check_pending()
        except pluggy.PluginValidationError as exc:
            self._drop(plugin)
            detail = " ".join(str(exc).split())
            raise PluginError(f"plugin {name!r} implements a hook navcore does not "
                              f"have: {detail}") from None
        impls = [i for i in self._pm.hook.navcore_graph_types.get_hookimpls()
                 if i.plugin is plugin]
        for impl in impls:
            try:
                mine = _call_graph_types(impl)
            except PluginError:
                self._drop(plugin)
                raise
            for tname in mine:
                if tname in existing:
                    self._drop(plugin)
                    raise PluginError(
                        f"graph type {tname!r} is provided by both plugin "
                        f"{existing[tname][1]!r} and plugin {name!r}")
        self._sources[name] = (source, origin)
        return name

    def _add_own_hookspecs(self, plugin, name):
        if any(hasattr(_attribute(plugin, a), "navcore_spec") for a in dir(plugin)):
            self._pm.add_hookspecs(plugin)

    def _drop(self, plugin):
        if self._pm.is_registered(plugin):
            self._pm.unregister(plugin)

    def _load_entry_points(self, include_third_party: bool) -> None:
        eps = list(importlib.metadata.entry_points(group=PROJECT))
        dists = _dist_names(eps)
        builtin_eps = [ep for ep in eps if dists[id(ep)] == PROJECT]
        if not builtin_eps:
            raise PluginError("navcore's built-in plugins are declared as entry points, "
                              "and none were found: install navcore (pip install -e .) "
                              "instead of running it from a source tree")
        for ep in sorted(builtin_eps, key=lambda e: e.name):
            self._load_one(ep, BUILTIN, ep.value)
        if include_third_party:
            others = [ep for ep in eps if dists[id(ep)] != PROJECT]
            for ep in sorted(others, key=lambda e: e.name):
                origin = f"{ep.value} ({dists[id(ep)]})"
                try:
                    self._load_one(ep, ENTRY_POINT, origin)
                except PluginError as exc:
                    # one broken third-party plugin must not take navcore
                    # down with it (every command, --help included): it is
                    # left out, warned about once, and listed as failed
                    self.skipped.append(SkippedPlugin(ep.name, ENTRY_POINT, origin,
                                                      str(exc), failed=True))
                    _warn_once(str(exc))

    def _load_one(self, ep, source, origin):
        name = ep.name
        if source == BUILTIN and name in RENAMED:
            # navcore's metadata from before the rename (an install not
            # redone): the plugin gets its new name
            name = RENAMED[name]
        if self._pm.get_plugin(name) is not None:
            # a third-party plugin named like a built-in: say so, load the built-in
            self.skipped.append(SkippedPlugin(ep.name, source, origin,
                                              f"a plugin named {ep.name!r} is already "
                                              f"registered (rename this entry point)"))
            return
        try:
            plugin = ep.load()
        except ModuleNotFoundError as exc:
            own = ep.value.split(":")[0].split(".")[0]
            if not ep.extras or (exc.name or "").split(".")[0] in ("", own, PROJECT):
                raise PluginError(f"plugin {ep.name!r} ({origin}) failed to load: "
                                  f"ModuleNotFoundError: {exc}") from exc
            # declared optional ("name = module [extra]") and its extra is
            # not installed: skip it and say so
            extras = ",".join(ep.extras)
            dist = _dist_name(ep) or PROJECT
            self.skipped.append(SkippedPlugin(
                ep.name, source, origin,
                f"needs the [{extras}] extra (pip install '{dist}[{extras}]'): {exc}"))
            return
        except Exception as exc:  # any other import-time failure of a plugin
            raise PluginError(f"plugin {ep.name!r} ({origin}) failed to load: "
                              f"{type(exc).__name__}: {exc}") from exc
        if self._pm.is_registered(plugin):
            # a second entry point to one module (an old name's alias): once
            self.skipped.append(SkippedPlugin(
                ep.name, source, origin, f"the plugin is registered already, as "
                                         f"{self._pm.get_name(plugin)!r}"))
            return
        self._register(plugin, name, source, origin)


_WARNED: set = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        warnings.warn(f"{message}; it is not loaded (navcore plugins lists it)",
                      PluginWarning, stacklevel=4)


class PluginWarning(UserWarning):
    """A third-party plugin was left out because it failed to load."""


def _call_graph_types(impl) -> dict:
    try:
        result = impl.function()
    except Exception as exc:
        raise PluginError(f"plugin {impl.plugin_name!r}: navcore_graph_types() "
                          f"raised {type(exc).__name__}: {exc}") from exc
    if result is None:
        return {}
    if not isinstance(result, dict) or not all(
            isinstance(k, str) and callable(v) for k, v in result.items()):
        raise PluginError(f"plugin {impl.plugin_name!r}: navcore_graph_types() must "
                          f"return a dict of type name -> builder, got {result!r}")
    return result


def _dist_name(ep) -> str | None:
    dist = getattr(ep, "dist", None)
    return None if dist is None else dist.metadata["Name"]


def _dist_names(eps) -> dict:
    """``id(ep)`` -> the name of the distribution declaring ``ep``. Every
    entry point of one distribution shares its ``dist`` object, whose
    ``metadata`` parses the whole METADATA file (navcore's holds the README)
    on every access: each distribution's name is read once here, not once
    per entry point and use (twenty parses per ``World`` before)."""
    names: dict = {}
    out = {}
    for ep in eps:
        dist = getattr(ep, "dist", None)
        if dist is None:
            out[id(ep)] = None
            continue
        if id(dist) not in names:
            names[id(dist)] = dist.metadata["Name"]
        out[id(ep)] = names[id(dist)]
    return out


def _origin_of(plugin) -> str:
    mod = getattr(plugin, "__file__", None) or getattr(type(plugin), "__module__", "?")
    return str(mod)


def _serving(impls, graph_type):
    """The implementations that can serve graphs of ``graph_type`` (all of
    them when it is ``None``): those marked ``for_graphs`` for other
    classes only are left out."""
    if graph_type is None:
        return impls
    return [i for i in impls if _serves(i.function, graph_type)]


def _serves(fn, graph_type) -> bool:
    kinds = getattr(fn, "navcore_graph_classes", None)
    return kinds is None or issubclass(graph_type, kinds)


def _adapter(fn, argnames, params, graph_type=None):
    """``fn`` called with the subset of ``params`` it asks for, as a lambda
    with plain positional parameters (no ``*args`` tuple to pack): this
    runs for every plugin on every query. An implementation marked
    ``for_graphs`` gets its graph check in the same lambda, so serving only
    some graphs costs no extra call; none when ``graph_type`` says the
    graph is always of a class it serves (``_serving`` chose it)."""
    kinds = getattr(fn, "navcore_graph_classes", None)
    if kinds is None:
        if tuple(argnames) == tuple(params):
            return fn
    else:
        # exactly the for_graphs wrapper comes off (decorators under it stay),
        # keeping a method's binding to its plugin object
        if inspect.ismethod(fn):
            fn = types.MethodType(fn.__func__.__wrapped__, fn.__self__)
        else:
            fn = fn.__wrapped__
        kinds = None if graph_type is not None else \
            kinds[0] if len(kinds) == 1 else kinds
        if kinds is None and tuple(argnames) == tuple(params):
            return fn
    names = [f"a{k}" for k in range(len(params))]
    call = f"fn({', '.join(names[params.index(a)] for a in argnames)})"
    if kinds is not None:
        call += f" if isinstance({names[params.index('graph')]}, kinds) else None"
    return eval(f"lambda {', '.join(names)}: {call}",
                {"fn": fn, "kinds": kinds})


#: values that are data, not plugins (pluggy would register any object)
_NOT_PLUGINS = (str, bytes, bool, int, float, complex, list, tuple, dict, set, frozenset,
                np.ndarray, np.generic)


def _attribute(obj, name):
    """``getattr(obj, name, None)``, also when the attribute raises
    something other than AttributeError (a property that checks)."""
    try:
        return getattr(obj, name, None)
    except Exception:
        return None
