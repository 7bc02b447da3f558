#!/usr/bin/env python3
"""Writes the seed corpora under Tests/Fuzz/corpus/<target>/ from the fixtures and Jobs/.

Run once from the repository root (python3 Tests/Fuzz/make-corpus.py); the seeds are committed.
Small on purpose: libFuzzer's default input limit is the largest seed. Tiny JPEGs come from
cjpeg (libjpeg-turbo-progs) in several codings; EXIF seeds are the APP1 payloads of fixture photos.
"""
import os, plistlib, re, shutil, subprocess, sys, tempfile

ROOT = os.getcwd()
FIX = os.path.join(ROOT, "Tests/Fixtures")
OUT = os.path.join(ROOT, "Tests/Fuzz/corpus")


def put(target, name, data):
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def read(path):
    with open(os.path.join(FIX, path), "rb") as f:
        return f.read()


def exif_payload(jpeg):
    """The first APP1 payload starting with Exif\\0\\0."""
    i = 2
    while i + 4 <= len(jpeg) and jpeg[i] == 0xFF:
        marker, length = jpeg[i + 1], int.from_bytes(jpeg[i + 2:i + 4], "big")
        if marker == 0xE1 and jpeg[i + 4:i + 10] == b"Exif\0\0":
            return jpeg[i + 4:i + 2 + length]
        if marker == 0xDA:
            break
        i += 2 + length
    return None


shutil.rmtree(OUT, ignore_errors=True)

# JPEG: three small camera files (EXIF with thumbnails) and tiny cjpeg outputs.
for name in ["Kodak_CX7530.jpg", "Canon_40D.jpg", "Nikon_D70.jpg"]:
    put("fuzz-jpeg", name, read("exif-samples/" + name))
with tempfile.TemporaryDirectory() as tmp:
    ppm = os.path.join(tmp, "in.ppm")
    width, height = 24, 16
    pixels = bytes((x * 10 + y * 3 + c * 80) % 256 for y in range(height) for x in range(width) for c in range(3))
    with open(ppm, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (width, height) + pixels)
    pgm = os.path.join(tmp, "in.pgm")
    with open(pgm, "wb") as f:
        f.write(b"P5 %d %d 255\n" % (width, height) + pixels[::3])
    icc = os.path.join(FIX, "icc/apple-display-p3.icc")
    variants = {
        "baseline-420.jpg": ["-quality", "75", ppm],
        "baseline-444-restarts.jpg": ["-sample", "1x1", "-restart", "1", ppm],
        "baseline-422.jpg": ["-sample", "2x1", ppm],
        "progressive.jpg": ["-progressive", ppm],
        "arithmetic.jpg": ["-arithmetic", ppm],
        "grayscale.jpg": [pgm],
        "optimized-rgb.jpg": ["-optimize", "-rgb", ppm],
    }
    if os.path.exists(icc):
        variants["icc-profile.jpg"] = ["-icc", icc, ppm]
    for name, args in variants.items():
        put("fuzz-jpeg", name, subprocess.run(["cjpeg"] + args, check=True, capture_output=True).stdout)

# HEIF and AVIF: tiny heif-enc (libheif-examples) files from the baseline JPEG above, in each
# codec and form the decoder meets (lossy, lossless, 4:4:4, a thumbnail, EXIF and ICC from a photo).
with tempfile.TemporaryDirectory() as tmp:
    jpeg = os.path.join(OUT, "fuzz-jpeg", "baseline-420.jpg")
    variants = {
        "hevc.heic": ["-q", "40", jpeg],
        "hevc-444.heic": ["-q", "40", "-p", "chroma=444", jpeg],
        "lossless.heic": ["-L", jpeg],
        "thumbnail.heic": ["-q", "40", "-t", "8", jpeg],
        "av1.avif": ["-A", "-q", "40", jpeg],
        "exif.heic": ["-q", "5", os.path.join(FIX, "exif-samples/Canon_40D.jpg")],
    }
    for name, args in variants.items():
        out = os.path.join(tmp, name)
        subprocess.run(["heif-enc"] + args[:-1] + [args[-1], "-o", out], check=True, capture_output=True)
        put("fuzz-heif", name, open(out, "rb").read())
# An ISO 21496-1 gain map: libavif's smallest file with a `tmap` item and its map image (1.4 KB).
put("fuzz-heif", "tmap.avif", read("corpus/libavif/unsupported_gainmap_writer_version_with_extra_bytes.avif"))

# EXIF: APP1 payloads (the rewriter reads the same ones).
for path in ["Kodak_CX7530.jpg", "Canon_40D.jpg", "Nikon_D70.jpg", "gps/DSCN0010.jpg", "orientation/landscape_6.jpg",
             "tests/45-gps_ifd.jpg", "tests/67-0_length_string.jpg", "tests/87_OSError.jpg"]:
    payload = exif_payload(read("exif-samples/" + path))
    if payload is None:
        sys.exit(f"{path} has no EXIF APP1")
    name = os.path.basename(path).replace(".jpg", ".exif")
    put("fuzz-exif-read", name, payload)
    put("fuzz-exif-rewrite", name, payload)

# Binary plists and keyed archives.
archives = sorted(os.listdir(os.path.join(FIX, "archives")))
for name in archives:
    if name.endswith(".bplist"):
        data = read("archives/" + name)
        put("fuzz-plist", name, data)
        put("fuzz-keyed-archive", name, data)
        if name.startswith("filtster"):
            put("fuzz-filtster", name, data)
        if name.startswith("chromakey"):
            put("fuzz-chromakey", name, data)
generic = {
    "integers.bplist": [0, 255, 256, 65536, 2**32, -1, 2**63 - 1, -2**63],
    "reals-and-dates.bplist": {"half": 0.5, "third": 1 / 3, "when": __import__("datetime").datetime(2026, 11, 23)},
    "strings.bplist": ["ascii", "ünïcödé", "", "x" * 20, b"\x00\x01data"],
    "nested.bplist": {"a": [[[{"b": True, "c": False}]]], "uid": plistlib.UID(3)},
}
for name, value in generic.items():
    put("fuzz-plist", name, plistlib.dumps(value, fmt=plistlib.FMT_BINARY, sort_keys=False))

# Pipeline JSON: every operation once, with its parameters.
pipelines = {
    "readme.json": '{"operations":[{"op":"exposure","ev":0.5},{"op":"crop","x":0,"y":0,"width":800,"height":600},'
                   '{"op":"sepia","intensity":0.8},{"op":"vignette","intensity":1.5,"radius":0.9}]}',
    "color.json": '{"operations":[{"op":"colorControls","saturation":1.2,"brightness":0.1,"contrast":1.1},'
                  '{"op":"colorMatrix","matrix":[[1,0,0],[0,1,0],[0,0,1]],"offset":[0,0,0]},{"op":"posterize","levels":6}]}',
    "effects.json": '{"operations":[{"op":"photoEffect","effect":"noir","intensity":1},'
                    '{"op":"chromaKey","key":[0,1,0],"threshold":0.7,"background":[0,0,0]}]}',
    "blurs.json": '{"operations":[{"op":"gaussianBlur","radius":10},{"op":"unsharpMask","radius":2.5,"intensity":0.5}]}',
    "empty.json": '{"operations":[]}',
    "geometry.json": '{"operations":[{"op":"rotate","degrees":-2.5},{"op":"rotate","degrees":30,"mode":"expand",'
                     '"fill":[1,1,1]},{"op":"rotate","degrees":90},{"op":"flip","axis":"horizontal"}]}',
}
for name, text in pipelines.items():
    put("fuzz-pipeline", name, text.encode())

# Semantic versions: each precedence line, paired with the next.
lines = [l.strip() for l in open(os.path.join(FIX, "semver-precedence.txt")) if l.strip() and not l.startswith("#")]
versions = [v for l in lines if not l.startswith("invalid:") for v in l.split(" = ")]
invalid = [v for l in lines if l.startswith("invalid:") for v in l[len("invalid:"):].strip().split(" | ")]
for index, (a, b) in enumerate(zip(versions, versions[1:])):
    put("fuzz-semver", f"pair-{index:02}", f"{a}\n{b}".encode())
for index, text in enumerate(invalid):
    put("fuzz-semver", f"invalid-{index:02}", text.encode())

# Operator job files, renamed to fuzz.sql.
for name in sorted(os.listdir(os.path.join(ROOT, "Jobs"))):
    text = open(os.path.join(ROOT, "Jobs", name)).read()
    put("fuzz-job-file", name, re.sub(r"^-- job: .*$", "-- job: fuzz", text, count=1, flags=re.M).encode())

# Gain maps: the MPF payloads, gain-map XMP packets and EXIF blocks of libavif's gain-map JPEGs,
# hand-built ISO 21496-1 metadata, and a tiny gain-map JPEG (a cjpeg seed twice, the second with
# hdrgm XMP, an MPF index in the first).
def segments(jpeg, start=0):
    """(marker, payload) of each segment before the first scan."""
    found, i = [], start + 2
    while i + 4 <= len(jpeg) and jpeg[i] == 0xFF and jpeg[i + 1] not in (0xDA, 0xD9):
        length = int.from_bytes(jpeg[i + 2:i + 4], "big")
        found.append((jpeg[i + 1], jpeg[i + 4:i + 2 + length]))
        i += 2 + length
    return found


def mpf_images(jpeg):
    """The MPF payload and the second image, by the payload's offsets (big- or little-endian)."""
    for marker, payload in segments(jpeg):
        if marker == 0xE2 and payload.startswith(b"MPF\0"):
            header = jpeg.find(payload) + 4
            order = "big" if payload[4:6] == b"MM" else "little"
            entries = payload[4 + int.from_bytes(payload[4 + 8 + 2 + 24 + 8:4 + 8 + 2 + 24 + 12], order):]
            size, offset = int.from_bytes(entries[20:24], order), int.from_bytes(entries[24:28], order)
            start = header + offset if jpeg[header + offset:header + offset + 2] == b"\xff\xd8" else offset
            return payload, jpeg[start:start + size]
    return None, None


XMP = b"http://ns.adobe.com/xap/1.0/\0"
for name in ["seine_sdr_gainmap_srgb.jpg", "paris_exif_xmp_gainmap_littleendian.jpg",
             "paris_exif_xmp_gainmap_bigendian.jpg", "apple_gainmap_new.jpg", "apple_gainmap_old.jpg"]:
    jpeg = read("gainmaps/" + name)
    stem = name[:-4]
    payload, gain_map = mpf_images(jpeg)
    put("fuzz-mpf", stem + ".mpf", payload)
    for marker, data in segments(jpeg) + segments(gain_map):
        if marker == 0xE1 and data.startswith(XMP) and len(data) < 8192:
            put("fuzz-gainmap-xmp", f"{stem}-{len(data)}.xmp", data[len(XMP):])
        if marker == 0xE1 and data.startswith(b"Exif\0\0"):
            put("fuzz-apple-headroom", stem + ".exif", data)

# XMP date and location: a fixture with XMP instead of EXIF, and Lightroom's shape of the properties.
for marker, data in segments(read("exif-samples/invalid/image01551.jpg")):
    if marker == 0xE1 and data.startswith(XMP):
        put("fuzz-xmp-metadata", f"image01551-{len(data) - len(XMP)}.xmp", data[len(XMP):])
lightroom = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
             b'<rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:exif="http://ns.adobe.com/exif/1.0/" '
             b'xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/" xmp:CreateDate="2021-07-04T10:15:30.25+02:00" '
             b'exif:GPSLatitude="47,13.637334N" exif:GPSLongitude="39,41,59.97E"><exif:DateTimeOriginal>2018-05-06T07:08:09-03:00'
             b'</exif:DateTimeOriginal><photoshop:DateCreated>2019-01-01</photoshop:DateCreated></rdf:Description></rdf:RDF></x:xmpmeta>')
put("fuzz-xmp-metadata", f"lightroom-{len(lightroom)}.xmp", lightroom)


def be(value, signed=False):
    return value.to_bytes(4, "big", signed=signed)


iso_single = b"\0\0\0\0" + b"\x40" + be(0) + be(1) + be(5) + be(2) + be(0, True) + be(1) + be(5, True) + be(2) \
    + be(1) + be(1) + be(1, True) + be(64) + be(1, True) + be(64)
iso_common = b"\0\0\0\1" + b"\xc8" + be(4) + be(0) + be(10) \
    + b"".join(be(-2, True) + be(10, True) + be(4) + be(0, True) + be(1, True) for _ in range(3)) + b"\xaa"
put("fuzz-iso-gainmap", "single-channel", iso_single)
put("fuzz-iso-gainmap", "common-denominator-3ch", iso_common)
put("fuzz-iso-gainmap", "tmap-item", b"\0" + iso_single)
put("fuzz-iso-gainmap", "version-only", b"\0\0\0\0")

tiny = read("../Fuzz/corpus/fuzz-jpeg/baseline-420.jpg")
packet = (b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
          b'<rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" '
          b'hdrgm:GainMapMax="2" hdrgm:HDRCapacityMax="2"/></rdf:RDF></x:xmpmeta>')
app1 = b"\xff\xe1" + (2 + len(XMP) + len(packet)).to_bytes(2, "big") + XMP + packet
gain_map = tiny[:2] + app1 + tiny[2:]
mpf_length = 4 + 8 + 2 + 36 + 4 + 32
primary_length = len(tiny) + 4 + mpf_length
mpf = b"MPF\0MM\0\x2a" + be(8) + b"\0\x03" + b"\xb0\0\0\x07" + be(4) + b"0100" + b"\xb0\x01\0\x04" + be(1) + be(2) \
    + b"\xb0\x02\0\x07" + be(32) + be(50) + be(0) \
    + be(0x20030000) + be(primary_length) + be(0) + be(0) \
    + be(0) + be(len(gain_map)) + be(primary_length - 10) + be(0)
put("fuzz-mpf", "tiny-gainmap.jpg",
    tiny[:2] + b"\xff\xe2" + (2 + mpf_length).to_bytes(2, "big") + mpf + tiny[2:] + gain_map)

# Apple Photos' sidecars (XML property lists) and the com.apple.photo data inside them.
for name in sorted(os.listdir(os.path.join(FIX, "apple"))):
    if not name.lower().endswith((".aae", ".plist")):
        continue
    data = read("apple/" + name)
    seed = name.replace(" ", "_")
    put("fuzz-xml-plist", seed, data)
    value = plistlib.loads(data)
    if value.get("adjustmentFormatIdentifier") == "com.apple.photo":
        put("fuzz-aae", seed + ".deflate", value["adjustmentData"])
