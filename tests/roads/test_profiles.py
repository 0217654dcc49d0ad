"""Routing profiles: maxspeed parsing, direction and access rules, the
built-in car/bike/foot tables and custom profiles from a dict."""
import math

import pytest
from hypothesis import given, strategies as st

from navcore.errors import GraphError
from navcore_roads.profiles import PROFILES, Profile, direction, get_profile, parse_maxspeed

CAR = get_profile("car")


@pytest.mark.nojit
@pytest.mark.parametrize("value, speed", [
    ("50", 50.0), ("50;30", 50.0), ("DE:zone30", 30.0), ("DE:zone:20", 20.0),
    ("30 mph", 30 * 1.609344), ("30mph", 30 * 1.609344), ("10 knots", 18.52),
    ("7.5", 7.5), ("DE:urban", 50.0), ("FR:rural", 90.0), ("RU:motorway", 130.0),
    ("RU:living_street", 20.0), ("walk", 7.0), ("none", 42.0), ("signals", 42.0),
    ("", 42.0), ("variable", 42.0), ("0", 42.0), (None, 42.0), (50, 42.0),
])
def test_parse_maxspeed(value, speed):
    assert parse_maxspeed(value, 42.0) == pytest.approx(speed, abs=1e-12)


@given(st.text())
def test_parse_maxspeed_never_raises(value):
    speed = parse_maxspeed(value, 25.0)
    assert math.isfinite(speed) and speed > 0


@pytest.mark.nojit
@pytest.mark.parametrize("tags, expected", [
    ({"oneway": "yes"}, (True, False)), ({"oneway": "true"}, (True, False)),
    ({"oneway": "1"}, (True, False)), ({"oneway": "-1"}, (False, True)),
    ({"oneway": "reverse"}, (False, True)), ({"oneway": "no"}, (True, True)),
    ({"oneway": "false"}, (True, True)), ({"oneway": "0"}, (True, True)),
    ({"oneway": "reversible"}, (False, False)), ({"oneway": "alternating"}, (False, False)),
    ({"junction": "roundabout"}, (True, False)), ({"junction": "circular"}, (True, False)),
    ({"junction": "roundabout", "oneway": "no"}, (True, True)),
    ({"highway": "motorway"}, (True, False)), ({"highway": "motorway_link"}, (True, True)),
    ({"oneway": "maybe"}, (True, True)),
    ({"oneway": "maybe", "junction": "roundabout"}, (True, False)),
    ({}, (True, True)),
])
def test_direction(tags, expected):
    assert direction({"highway": "primary", **tags}) == expected


@pytest.mark.parametrize("tags, kept", [
    ({}, True),
    ({"area": "yes"}, False),
    *[({"access": v}, False) for v in ("no", "private", "agricultural", "forestry",
                                       "emergency", "military", "delivery")],
    *[({"access": "no", tag: v}, True) for tag in ("motor_vehicle", "motorcar")
      for v in ("yes", "designated", "permissive", "destination")],
    ({"access": "no", "motor_vehicle": "unknown"}, False),
    ({"motor_vehicle": "no"}, False), ({"motorcar": "private"}, False),
    ({"access": "yes", "motorcar": "forestry"}, False),
    ({"access": "destination"}, True), ({"access": "customers"}, True),
    ({"vehicle": "no"}, True),
])
def test_car_access(tags, kept):
    assert CAR.allows({"highway": "service", **tags}) == kept


def test_not_routable_classes():
    for cls in ("track", "road", "path", "footway", "cycleway", "steps", "construction"):
        assert CAR.way_speeds({"highway": cls}) == (0.0, 0.0)
    assert CAR.way_speeds({"name": "no highway tag"}) == (0.0, 0.0)


def test_car_speeds():
    assert dict(CAR.speeds) == {
        "motorway": 90, "motorway_link": 45, "trunk": 85, "trunk_link": 40,
        "primary": 65, "primary_link": 30, "secondary": 55, "secondary_link": 25,
        "tertiary": 40, "tertiary_link": 20, "unclassified": 25, "residential": 25,
        "living_street": 10, "service": 15}
    assert CAR.way_speeds({"highway": "motorway"}) == (90.0, 0.0)
    assert CAR.way_speeds({"highway": "primary", "maxspeed": "50",
                           "maxspeed:backward": "30"}) == (50.0, 30.0)
    assert CAR.way_speeds({"highway": "primary", "maxspeed:forward": "signals"}) == (65.0, 65.0)
    assert CAR.way_speeds({"highway": "motorway", "maxspeed": "500"}) == (150.0, 0.0)
    assert CAR.top_speed == 150.0


def test_bike_and_foot():
    bike, foot = get_profile("bike"), get_profile("foot")
    street = {"highway": "residential", "oneway": "yes", "maxspeed": "50"}
    assert bike.way_speeds(street) == (15.0, 0.0)            # honours oneway, not maxspeed
    assert bike.way_speeds({**street, "oneway:bicycle": "no"}) == (15.0, 15.0)
    assert bike.way_speeds({"highway": "residential", "oneway:bicycle": "yes"}) == (15.0, 0.0)
    assert bike.way_speeds({"highway": "cycleway"}) == (18.0, 18.0)
    assert bike.way_speeds({"highway": "footway"}) == (4.0, 4.0)   # pushed
    assert bike.way_speeds({"highway": "steps"}) == (0.0, 0.0)
    assert bike.way_speeds({"highway": "path", "bicycle": "no"}) == (0.0, 0.0)
    assert bike.way_speeds({"highway": "path", "access": "no", "bicycle": "yes"}) == (12.0, 12.0)
    assert bike.way_speeds({"highway": "motorway"}) == (0.0, 0.0)
    assert foot.way_speeds(street) == (5.0, 5.0)              # walkers ignore oneway
    assert foot.way_speeds({"highway": "primary", "oneway": "reversible"}) == (5.0, 5.0)
    assert foot.way_speeds({"highway": "steps"}) == (3.0, 3.0)
    assert foot.way_speeds({"highway": "footway", "foot": "private"}) == (0.0, 0.0)
    assert foot.way_speeds({"highway": "trunk"}) == (0.0, 0.0)
    assert (bike.top_speed, foot.top_speed) == (18.0, 5.0)
    assert set(PROFILES) == {"car", "bike", "foot"}


@pytest.mark.nojit
def test_custom_profile():
    truck = get_profile({"name": "truck", "speeds": {"motorway": 80, "living_street": None},
                         "max_speed": 90, "access_tags": ["access", "motor_vehicle", "hgv"]})
    assert isinstance(truck, Profile) and truck.name == "truck"
    assert "living_street" not in truck.highway_names and truck.top_speed == 90.0
    assert truck.way_speeds({"highway": "motorway"}) == (80.0, 0.0)
    assert truck.way_speeds({"highway": "motorway", "maxspeed": "130"}) == (90.0, 0.0)
    assert truck.way_speeds({"highway": "primary", "hgv": "no"}) == (0.0, 0.0)
    assert truck.way_speeds({"highway": "living_street"}) == (0.0, 0.0)
    assert get_profile(truck) is truck
    assert get_profile() is CAR
    # a profile that reads posted speeds without a cap has no finite bound
    assert get_profile({"max_speed": None}).top_speed == math.inf
    assert get_profile({"base": "foot", "speeds": {"steps": None}}).top_speed == 5.0
    ride = get_profile({"base": "bike", "oneway": False, "use_maxspeed": True})
    assert ride.way_speeds({"highway": "residential", "oneway": "yes",
                            "maxspeed": "10"}) == (10.0, 10.0)
    vehicle = get_profile({"access_tags": ["access", "vehicle", "motor_vehicle", "motorcar"]})
    assert vehicle.way_speeds({"highway": "service", "vehicle": "no"}) == (0.0, 0.0)


@pytest.mark.parametrize("spec, message", [
    ("lorry", r"unknown profile 'lorry'; known: car, bike, foot"),
    (3, r"profile must be a name, a dict or a Profile, not int"),
    ({"name": "x", "colour": "red", "wheels": 6},
     r"unknown profile key\(s\) 'colour', 'wheels'; known: base, name, speeds, max_speed, "
     r"use_maxspeed, oneway, oneway_tags, access_tags"),
    ({"base": "boat"}, r"profile 'base' must be one of car, bike, foot, not 'boat'"),
    ({"name": 5}, r"profile 'name' must be a string"),
    ({"speeds": [1]}, r"profile 'speeds' must be a dict"),
    ({"speeds": {"primary": -5}}, r"profile speeds\['primary'\] must be a positive number"),
    ({"speeds": {"primary": "fast"}}, r"must be a positive number of km/h, not 'fast'"),
    ({"speeds": {"primary": True}}, r"must be a positive number"),
    ({"base": "foot", "speeds": dict.fromkeys(PROFILES["foot"].speeds)},
     r"leaves no routable highway class"),
    ({"max_speed": 0}, r"profile max_speed must be a positive number"),
    ({"max_speed": math.nan}, r"profile max_speed must be a positive number"),
    ({"oneway": "yes"}, r"profile 'oneway' must be true or false"),
    ({"use_maxspeed": 1}, r"profile 'use_maxspeed' must be true or false"),
    ({"oneway_tags": "oneway"}, r"profile 'oneway_tags' must be a list of tag names"),
    ({"access_tags": []}, r"profile 'access_tags' must be a non-empty list"),
    ({"access_tags": 5}, r"profile 'access_tags' must be a non-empty list"),
])
def test_bad_profiles(spec, message):
    with pytest.raises(GraphError, match=message):
        get_profile(spec)
