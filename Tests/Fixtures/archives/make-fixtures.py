#!/usr/bin/env python3
"""Writes the NSKeyedArchiver fixtures in this folder with Python's plistlib, a binary-plist
writer independent of darkroom's, following NSKeyedArchiver's layout:
{"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(1)}, "$objects": [...]}
with "$null" at $objects[0] and the root NSDictionary at UID 1.

Run once from anywhere: python3 Tests/Fixtures/archives/make-fixtures.py
The outputs are committed; the tests only read them."""
import plistlib
from pathlib import Path
from plistlib import UID

HERE = Path(__file__).resolve().parent

CLASSES = {
    "NSDictionary": ["NSDictionary", "NSObject"],
    "NSMutableDictionary": ["NSMutableDictionary", "NSDictionary", "NSObject"],
    # Stand-in fields: Core Image's coding keys for CIColor are private; darkroom reads only
    # the class name of an archived CIColor and never its fields.
    "CIColor": ["CIColor", "NSObject"],
}


def archive(settings, classname="NSDictionary"):
    """settings: key -> int | float | ("CIColor", {field: value})."""
    objects = ["$null", None]
    class_uids = {}

    def add(value):
        if isinstance(value, tuple):
            name, fields = value
            slot = len(objects)
            objects.append(None)
            coded = {key: add(field) for key, field in fields.items()}
            coded["$class"] = class_uid(name)
            objects[slot] = coded
            return UID(slot)
        objects.append(value)
        return UID(len(objects) - 1)

    def class_uid(name):
        if name not in class_uids:
            objects.append({"$classname": name, "$classes": CLASSES[name]})
            class_uids[name] = UID(len(objects) - 1)
        return class_uids[name]

    keys = [add(key) for key in settings]
    values = [add(value) for value in settings.values()]
    objects[1] = {"NS.keys": keys, "NS.objects": values, "$class": class_uid(classname)}
    top = {"$version": 100000, "$archiver": "NSKeyedArchiver", "$top": {"root": UID(1)}, "$objects": objects}
    return plistlib.dumps(top, fmt=plistlib.FMT_BINARY, sort_keys=False)


FIXTURES = {
    # All three Filtster settings as NSNumber doubles.
    "filtster-all-keys.bplist": archive({"vignetteIntensity": 2.5, "vignetteRadius": 0.8, "sepiaIntensity": 0.6}),
    # Only the radius: the other two keep their defaults (1.0 and 1.0).
    "filtster-radius-only.bplist": archive({"vignetteRadius": 1.25}, "NSMutableDictionary"),
    # NSNumber integers are numbers too.
    "filtster-integers.bplist": archive({"vignetteIntensity": 3, "sepiaIntensity": 0}),
    # What the ChromaKey sample writes: an archived CIColor under "activeColor" and a threshold.
    "chromakey-sample.bplist": archive({
        "activeColor": ("CIColor", {"CIColorComponents": "0 1 0 1"}),
        "threshold": 0.5,
    }),
    # darkroom's documented keys: a blue key on a white background.
    "chromakey-darkroom.bplist": archive({
        "threshold": 0.4, "keyColorRed": 0.0, "keyColorGreen": 0.0, "keyColorBlue": 1.0,
        "backgroundRed": 1.0, "backgroundGreen": 1.0, "backgroundBlue": 1.0,
    }),
}

for name, data in FIXTURES.items():
    (HERE / name).write_bytes(data)
    print(f"{name}: {len(data)} bytes")
