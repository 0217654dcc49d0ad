"""Routing profiles: which OpenStreetMap ways a car, a bicycle or a walker
may use, in which direction, and how fast.

A :class:`Profile` reads a way's tags (a ``dict`` of str to str) once, at
load time, and answers with a speed per direction (km/h, ``0.0`` where the
way may not be travelled that way). Built-in profiles: ``car`` (the
default), ``bike`` and ``foot``; :func:`get_profile` also builds custom ones
from a dict (schema below).

Class speeds, km/h (a class not listed is not routable for that profile):

==============  ====  ====  ====
highway         car   bike  foot
==============  ====  ====  ====
motorway        90
motorway_link   45
trunk           85
trunk_link      40
primary         65    15    5
primary_link    30    15    5
secondary       55    15    5
secondary_link  25    15    5
tertiary        40    15    5
tertiary_link   20    15    5
unclassified    25    15    5
residential     25    15    5
living_street   10    10    5
service         15    12    5
cycleway              18    5
track                 12    5
path                  12    5
footway               4     5
pedestrian            4     5
steps                       3
==============  ====  ====  ====

The car table is OSRM's car profile. Bike and foot follow OSRM's bicycle and
foot profiles, simplified: no motorways or trunk roads (usually forbidden,
and where not, unpleasant), bikes *pushed* at walking pace on footways and
pedestrian streets, no bikes on steps, and walkers slowed on steps.

Rules every profile applies, in this order:

* **class**: ``highway`` must be in the profile's table; ``area=yes`` is
  dropped (a pedestrian square's outline is not a road to follow).
* **access**: ``access_tags`` lists the general tag first (``access``) and
  then the mode's own tags. A way is dropped when a mode tag *denies* (no,
  private, agricultural, forestry, emergency, military, delivery), or when
  the general tag denies and no mode tag *allows* (yes, designated,
  permissive, destination). Car: ``access``, ``motor_vehicle``,
  ``motorcar``; bike: ``access``, ``bicycle``; foot: ``access``, ``foot``.
  ``vehicle=*`` is not read by the built-in profiles: the road benchmark's
  truth keeps ``vehicle=no`` ways (26 of them in Helsinki, bus-only
  service roads), so a custom profile may add it to ``access_tags``.
* **direction** (:func:`direction`), when the profile honours one-ways:
  the first of ``oneway_tags`` the way has decides: yes/true/1 forward
  only, -1/reverse backward only, no/false/0 both ways, reversible and
  alternating drop the way; without any, ``junction=roundabout|circular``
  and ``highway=motorway`` are forward only and everything else both ways.
  Car reads ``oneway``; bike reads ``oneway:bicycle`` first, so
  ``oneway:bicycle=no`` opens a one-way street to bikes both ways; foot
  ignores every one-way rule (walkers may go both ways, even on a
  roundabout).
* **speed**, for profiles that read speed tags (car):
  ``maxspeed:forward`` / ``maxspeed:backward`` for that direction, else
  ``maxspeed``, else the class speed (:func:`parse_maxspeed`). Bike and foot
  ignore posted limits and use the class speed. Finally every speed is
  capped at the profile's ``max_speed``: 150 km/h for car, above any posted
  limit in the world (140), so it only catches typos such as
  ``maxspeed=500`` and keeps :attr:`Profile.top_speed` finite.

**Turn costs**, applied when a graph is loaded with ``turn_costs=True``
(``navcore_roads.turn_costs`` writes them into the graph's turn rules):
the car's are OSRM car.lua's. A turn at a junction of three or more roads
costs ``turn_penalty`` (7.5 s) times a sigmoid of its angle
(:meth:`Profile.turn_seconds`: about 0 straight on, 2.1 s a right turn,
5.4 s a left one, 7.5 s back), ``turn_bias`` (1.075) making turns to the
kerb side cheaper (the right in ``driving_side="right"`` traffic, the left
in ``"left"``); a U-turn costs its angle's seconds plus
``u_turn_penalty`` (20 s) and is allowed only at dead ends
(``u_turns="dead_ends"``: a junction whose only way on is back;
``"anywhere"`` allows them everywhere at that cost). The seconds count on
a ``weight="time"`` graph only (a ``distance`` graph keeps its turns free,
as OSRM's distance weight does, but still forbids U-turns off dead ends).
Bike and foot have no turn costs (``turn_penalty`` and ``u_turn_penalty``
0, U-turns anywhere): ``turn_costs=True`` leaves their graphs as they are;
a custom profile based on them can add some.

Custom profiles (:func:`get_profile` with a dict); every key is optional:

==============  =========================================================
key             meaning
==============  =========================================================
``base``        built-in profile to start from (default ``"car"``); every
                other key overrides it
``name``        the profile's name (default ``"custom"``)
``speeds``      ``{highway class: km/h}`` merged over the base's table;
                ``None`` removes a class (not routable)
``max_speed``   cap in km/h for every speed (``None``: no cap)
``use_maxspeed`` read ``maxspeed`` tags (bool)
``oneway``      honour one-way rules (bool)
``oneway_tags`` tags that give the direction, the first present wins
``access_tags`` general access tag first, then the mode's tags
``restriction_tags`` transports whose ``restriction:<transport>`` turn
                restrictions bind the mode, and whose listing in a
                relation's ``except=`` frees it (car: motorcar,
                motor_vehicle, vehicle; bike: bicycle, vehicle; foot: foot)
``restrictions`` whether plain ``restriction=`` relations bind the mode
                (car and bike: true; foot: false)
``turn_penalty`` seconds (0 to a day) the sharpest turn costs (car 7.5, else 0)
``turn_bias``   > 0, how much cheaper kerb-side turns are (car 1.075;
                1: no difference)
``u_turn_penalty`` seconds (0 to a day) a U-turn costs beside its angle's (car 20)
``u_turns``     ``"dead_ends"`` (car) or ``"anywhere"`` (bike, foot)
``driving_side`` ``"right"`` (default) or ``"left"``-hand traffic
==============  =========================================================

>>> truck = get_profile({"name": "truck", "speeds": {"motorway": 80},
...                      "max_speed": 80})
>>> truck.way_speeds({"highway": "motorway", "maxspeed": "130"})
(80.0, 0.0)
>>> get_profile("car").way_speeds({"highway": "residential",
...                                "maxspeed": "20 mph", "oneway": "-1"})
(0.0, 32.18688)
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from navcore.errors import GraphError

__all__ = ["Profile", "get_profile", "parse_maxspeed", "direction", "PROFILES"]

#: access values that forbid the mode, and values that allow it again
DENY = frozenset({"no", "private", "agricultural", "forestry", "emergency",
                  "military", "delivery"})
ALLOW = frozenset({"yes", "designated", "permissive", "destination"})

_CAR_SPEEDS = {
    "motorway": 90, "motorway_link": 45, "trunk": 85, "trunk_link": 40,
    "primary": 65, "primary_link": 30, "secondary": 55, "secondary_link": 25,
    "tertiary": 40, "tertiary_link": 20, "unclassified": 25, "residential": 25,
    "living_street": 10, "service": 15,
}
_ROADS_FOR_BIKE_AND_FOOT = ("primary", "primary_link", "secondary", "secondary_link",
                            "tertiary", "tertiary_link", "unclassified", "residential")
_BIKE_SPEEDS = {**dict.fromkeys(_ROADS_FOR_BIKE_AND_FOOT, 15), "living_street": 10,
                "service": 12, "cycleway": 18, "track": 12, "path": 12,
                "footway": 4, "pedestrian": 4}
_FOOT_SPEEDS = {**dict.fromkeys(_ROADS_FOR_BIKE_AND_FOOT, 5),
                **dict.fromkeys(("living_street", "service", "cycleway", "track",
                                 "path", "footway", "pedestrian"), 5),
                "steps": 3}


@dataclass(frozen=True)
class Profile:
    """How one mode of travel reads OSM tags; see the module docstring."""

    name: str
    #: routable ``highway`` classes and their speed (km/h), in code order
    speeds: Mapping[str, float]
    max_speed: float | None = None
    use_maxspeed: bool = True
    oneway: bool = True
    oneway_tags: tuple = ("oneway",)
    access_tags: tuple = ("access", "motor_vehicle", "motorcar")
    #: transports whose ``restriction:<transport>`` relations bind the mode
    #: (the first present wins) and whose listing in ``except=`` frees it
    restriction_tags: tuple = ("motorcar", "motor_vehicle", "vehicle")
    #: whether a plain ``restriction=`` relation binds the mode
    restrictions: bool = True
    #: turn costs, applied by a graph loaded with ``turn_costs=True``
    #: (``navcore_roads.turn_costs``): the most a turn at a junction of
    #: three or more roads costs (seconds; OSRM's sigmoid of the angle)
    turn_penalty: float = 0.0
    #: how much cheaper turns to the kerb side are (> 1: right turns in
    #: right-hand traffic; inverted for ``driving_side="left"``)
    turn_bias: float = 1.0
    #: seconds a U-turn costs on top of its angle's, where one is allowed
    u_turn_penalty: float = 0.0
    #: where U-turns are allowed: ``"anywhere"`` or ``"dead_ends"`` only
    #: (a junction whose only way on is back; forbidden everywhere else)
    u_turns: str = "anywhere"
    #: ``"right"`` or ``"left"``-hand traffic (the side turns are cheap to)
    driving_side: str = "right"

    @property
    def highway_names(self) -> tuple:
        """The routable classes; a segment's ``highway`` code indexes this."""
        return tuple(self.speeds)

    @property
    def top_speed(self) -> float:
        """No segment this profile makes is faster (km/h), so length over
        this speed never overestimates a travel time: an admissible A*
        heuristic. ``inf`` only for a profile that reads ``maxspeed`` tags
        without a ``max_speed`` cap (posted limits are unbounded)."""
        if self.max_speed is not None:
            return float(self.max_speed)
        if self.use_maxspeed:
            return math.inf
        return float(max(self.speeds.values(), default=0.0))

    @property
    def has_turn_costs(self) -> bool:
        """Whether ``turn_costs=True`` changes anything: a turn or U-turn
        costs something, or U-turns are forbidden somewhere."""
        return self.turn_penalty > 0 or self.u_turn_penalty > 0 or self.u_turns != "anywhere"

    def turn_seconds(self, angle) -> np.ndarray:
        """Seconds a turn by ``angle`` (degrees, array-like: 0 straight on,
        positive to the right, negative to the left, +-180 back) costs at a
        junction of three or more roads, as OSRM's car.lua reckons it:
        ``turn_penalty / (1 + exp(-(13 / b * a / 180 - 6.5 * b)))`` for a
        right turn by ``a`` degrees and ``turn_penalty / (1 + exp(-(13 * b
        * a / 180 - 6.5 / b)))`` for a left one, ``b`` the ``turn_bias``
        (its inverse in left-hand traffic). Never negative, at most
        ``turn_penalty``; U-turns add ``u_turn_penalty``.

        >>> [round(float(c), 3) for c in get_profile("car").turn_seconds([0, 90, -90])]
        [0.007, 2.105, 5.395]
        """
        a = np.asarray(angle, dtype=np.float64)
        b = self.turn_bias if self.driving_side == "right" else 1.0 / self.turn_bias
        right = 13.0 / b * a / 180.0 - 6.5 * b
        left = 13.0 * b * -a / 180.0 - 6.5 / b
        return self.turn_penalty / (1.0 + np.exp(-np.where(a >= 0, right, left)))

    def allows(self, tags: Mapping[str, str]) -> bool:
        """Whether the mode may use the way at all (class, area, access)."""
        if tags.get("highway") not in self.speeds or tags.get("area") == "yes":
            return False
        general, *specific = self.access_tags
        own = [tags.get(t) for t in specific]
        if any(v in DENY for v in own):
            return False
        return tags.get(general) not in DENY or any(v in ALLOW for v in own)

    def way_speeds(self, tags: Mapping[str, str]) -> tuple:
        """``(forward, backward)`` km/h along and against the way's node
        order; ``0.0`` where the mode may not go, ``(0.0, 0.0)`` when the way
        is not routable."""
        if not self.allows(tags):
            return 0.0, 0.0
        forward, backward = (direction(tags, self.oneway_tags) if self.oneway
                             else (True, True))
        if not (forward or backward):
            return 0.0, 0.0
        default = float(self.speeds[tags["highway"]])
        if self.use_maxspeed:
            posted = tags.get("maxspeed")
            both = default if posted is None else parse_maxspeed(posted, default)
            fwd = _directed(tags.get("maxspeed:forward"), both, default)
            bwd = _directed(tags.get("maxspeed:backward"), both, default)
        else:
            fwd = bwd = default
        if self.max_speed is not None:
            fwd, bwd = min(fwd, self.max_speed), min(bwd, self.max_speed)
        return (float(fwd) if forward else 0.0), (float(bwd) if backward else 0.0)


def _directed(value, both, default):
    # A directional tag replaces ``maxspeed`` entirely; one without a number
    # ("none", "signals") falls back to the class speed, as ``maxspeed`` does
    return both if value is None else parse_maxspeed(value, default)


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
#: maxspeed values without a number (country prefixes like "DE:" ignored)
_NAMED_SPEEDS = {"urban": 50.0, "rural": 90.0, "motorway": 130.0,
                 "living_street": 20.0, "walk": 7.0}


def parse_maxspeed(value, default: float) -> float:
    """km/h of a ``maxspeed`` tag value; ``default`` when it gives none.

    The first number counts ("50;30" is 50, "DE:zone30" is 30), in km/h
    unless the value says "mph" or "knots"; named limits ("DE:urban",
    "FR:rural", "motorway", "living_street", "walk") have their usual
    speeds; anything else, a zero, or a value that is not a string gives
    ``default``. Never raises.

    >>> parse_maxspeed("50;30", 25.0), parse_maxspeed("DE:zone30", 25.0)
    (50.0, 30.0)
    >>> parse_maxspeed("30 mph", 25.0), parse_maxspeed("none", 25.0)
    (48.28032, 25.0)
    """
    if not isinstance(value, str):
        return float(default)
    text = value.strip().lower()
    number = _NUMBER.search(text)
    if number is None:
        return _NAMED_SPEEDS.get(text.rsplit(":", 1)[-1], float(default))
    speed = float(number.group())
    if speed <= 0.0:                      # "0" is a tagging error, not a wall
        return float(default)
    if "mph" in text:
        return speed * 1.609344
    if "knot" in text:
        return speed * 1.852
    return speed


_FORWARD = frozenset({"yes", "true", "1"})
_BACKWARD = frozenset({"-1", "reverse"})
_BOTH = frozenset({"no", "false", "0"})
_NEITHER = frozenset({"reversible", "alternating"})  # direction changes by the hour


def direction(tags: Mapping[str, str], oneway_tags=("oneway",)) -> tuple:
    """``(forward, backward)``: whether the way may be travelled along and
    against its node order; ``(False, False)`` for reversible ways.

    >>> direction({"highway": "primary", "oneway": "-1"})
    (False, True)
    >>> direction({"highway": "primary", "junction": "roundabout"})
    (True, False)
    >>> direction({"highway": "primary", "oneway": "yes", "oneway:bicycle": "no"},
    ...           ("oneway:bicycle", "oneway"))
    (True, True)
    """
    for tag in oneway_tags:
        value = tags.get(tag)
        if value is None:
            continue
        if value in _FORWARD:
            return True, False
        if value in _BACKWARD:
            return False, True
        if value in _BOTH:
            return True, True
        if value in _NEITHER:
            return False, False
        break                             # an unknown value: the implied rules
    if (tags.get("junction") in ("roundabout", "circular")
            or tags.get("highway") == "motorway"):
        return True, False
    return True, True


#: the built-in profiles by name
PROFILES = MappingProxyType({
    "car": Profile("car", MappingProxyType(dict(_CAR_SPEEDS)), max_speed=150.0,
                   turn_penalty=7.5, turn_bias=1.075, u_turn_penalty=20.0,
                   u_turns="dead_ends"),
    "bike": Profile("bike", MappingProxyType(dict(_BIKE_SPEEDS)), use_maxspeed=False,
                    oneway_tags=("oneway:bicycle", "oneway"),
                    access_tags=("access", "bicycle"),
                    restriction_tags=("bicycle", "vehicle")),
    "foot": Profile("foot", MappingProxyType(dict(_FOOT_SPEEDS)), use_maxspeed=False,
                    oneway=False, oneway_tags=(), access_tags=("access", "foot"),
                    restriction_tags=("foot",), restrictions=False),
})

_KEYS = ("base", "name", "speeds", "max_speed", "use_maxspeed", "oneway",
         "oneway_tags", "access_tags", "restriction_tags", "restrictions", "turn_penalty",
         "turn_bias", "u_turn_penalty", "u_turns", "driving_side")
U_TURNS = ("anywhere", "dead_ends")
DRIVING_SIDES = ("right", "left")


def get_profile(profile="car") -> Profile:
    """The :class:`Profile` named ``profile`` ("car", "bike", "foot"), a
    custom one built from a dict (schema in the module docstring), or
    ``profile`` itself when it already is one. Raises ``GraphError``.

    >>> get_profile("bike").top_speed
    18.0
    >>> get_profile({"base": "foot", "colour": "red"})
    Traceback (most recent call last):
    ...
    navcore.errors.GraphError: unknown profile key(s) 'colour'; known: base, name, speeds, max_speed, use_maxspeed, oneway, oneway_tags, access_tags, restriction_tags, restrictions, turn_penalty, turn_bias, u_turn_penalty, u_turns, driving_side
    """
    if isinstance(profile, Profile):
        return profile
    if isinstance(profile, str):
        if profile not in PROFILES:
            raise GraphError(f"unknown profile {profile!r}; known: {', '.join(PROFILES)}")
        return PROFILES[profile]
    if not isinstance(profile, Mapping):
        raise GraphError(f"profile must be a name, a dict or a Profile, "
                         f"not {type(profile).__name__}")
    return _custom(profile)


def _custom(spec: Mapping) -> Profile:
    unknown = [k for k in spec if k not in _KEYS]
    if unknown:
        raise GraphError(f"unknown profile key(s) {', '.join(map(repr, unknown))}; "
                         f"known: {', '.join(_KEYS)}")
    base_name = spec.get("base", "car")
    if base_name not in PROFILES:
        raise GraphError(f"profile 'base' must be one of {', '.join(PROFILES)}, "
                         f"not {base_name!r}")
    base = PROFILES[base_name]
    name = spec.get("name", "custom")
    if not isinstance(name, str):
        raise GraphError(f"profile 'name' must be a string, not {name!r}")
    speeds = dict(base.speeds)
    extra = spec.get("speeds", {})
    if not isinstance(extra, Mapping):
        raise GraphError(f"profile 'speeds' must be a dict of highway class to km/h, "
                         f"not {type(extra).__name__}")
    for cls, kmh in extra.items():
        if not isinstance(cls, str):
            raise GraphError(f"profile 'speeds' keys must be highway classes, not {cls!r}")
        if kmh is None:
            speeds.pop(cls, None)
        else:
            speeds[cls] = _positive(kmh, f"speeds[{cls!r}]")
    if not speeds:
        raise GraphError("profile 'speeds' leaves no routable highway class")
    if len(speeds) > 256:
        raise GraphError(f"profile has {len(speeds)} highway classes; at most 256 fit "
                         f"the uint8 class code")
    max_speed = spec.get("max_speed", base.max_speed)
    if max_speed is not None:
        max_speed = _positive(max_speed, "max_speed")
    return Profile(
        name=name, speeds=MappingProxyType(speeds), max_speed=max_speed,
        use_maxspeed=_flag(spec, "use_maxspeed", base.use_maxspeed),
        oneway=_flag(spec, "oneway", base.oneway),
        oneway_tags=_tags(spec, "oneway_tags", base.oneway_tags, allow_empty=True),
        access_tags=_tags(spec, "access_tags", base.access_tags, allow_empty=False),
        restriction_tags=_tags(spec, "restriction_tags", base.restriction_tags,
                               allow_empty=True),
        restrictions=_flag(spec, "restrictions", base.restrictions),
        turn_penalty=_seconds(spec, "turn_penalty", base.turn_penalty),
        turn_bias=_bias(spec.get("turn_bias", base.turn_bias)),
        u_turn_penalty=_seconds(spec, "u_turn_penalty", base.u_turn_penalty),
        u_turns=_word(spec, "u_turns", base.u_turns, U_TURNS),
        driving_side=_word(spec, "driving_side", base.driving_side, DRIVING_SIDES))


def _positive(value, key) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise GraphError(f"profile {key} must be a positive number of km/h, not {value!r}")
    return float(value)


def _number(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) \
        and math.isfinite(value)


#: the most a turn may cost, in seconds (a day): a turn's cost adds to a
#: route's, and a route of such turns must stay far below ``MAX_COST``
MAX_TURN_SECONDS = 86_400.0
#: the widest ``turn_bias`` (its inverse the narrowest): beyond it the
#: sigmoid is a step, and ``exp`` overflows
MAX_TURN_BIAS = 100.0


def _seconds(spec, key, default) -> float:
    value = spec.get(key, default)
    if not _number(value) or not 0 <= value <= MAX_TURN_SECONDS:
        raise GraphError(f"profile {key!r} must be a number of seconds from 0 to "
                         f"{MAX_TURN_SECONDS:g}, not {value!r}")
    return float(value)


def _bias(value) -> float:
    if not _number(value) or not 1.0 / MAX_TURN_BIAS <= value <= MAX_TURN_BIAS:
        raise GraphError(f"profile 'turn_bias' must be a number from {1 / MAX_TURN_BIAS:g} to "
                         f"{MAX_TURN_BIAS:g} (1: left and right turns cost the same), "
                         f"not {value!r}")
    return float(value)


def _word(spec, key, default, choices) -> str:
    value = spec.get(key, default)
    if not isinstance(value, str) or value not in choices:
        raise GraphError(f"profile {key!r} must be one of {', '.join(map(repr, choices))}, "
                         f"not {value!r}")
    return value


def _flag(spec, key, default) -> bool:
    value = spec.get(key, default)
    if not isinstance(value, bool):
        raise GraphError(f"profile {key!r} must be true or false, not {value!r}")
    return value


def _tags(spec, key, default, allow_empty) -> tuple:
    value = spec.get(key, default)
    if not isinstance(value, (list, tuple)) or not all(isinstance(t, str) for t in value) \
            or (not value and not allow_empty):
        raise GraphError(f"profile {key!r} must be a {'' if allow_empty else 'non-empty '}"
                         f"list of tag names, not {value!r}")
    return tuple(value)
