/// NSKeyedArchiver archives written out object by object from the documented layout — the
/// plist's top dictionary {$version, $archiver, $top, $objects}, `$objects[0]` = "$null",
/// the root NSDictionary at UID 1 with `NS.keys`/`NS.objects` arrays of UIDs and a
/// `$class` UID of {$classname, $classes} — without going through darkroom's writer.
enum HandWrittenArchives {
    /// Filtster's three settings in an NSDictionary. 37 objects and about 400 bytes: the
    /// offsets need two bytes; references fit one or two.
    static func filtster(_ plist: PlistBytes, sepia: Double, vignette: Double, radius: Double) -> [UInt8] {
        let r = plist.ref
        return plist.assemble([
            /* 0 */ [0xD4] + r(1) + r(2) + r(3) + r(4) + r(5) + r(6) + r(7) + r(9),  // 4 keys, then 4 values
            /* 1 */ ascii("$version"),
            /* 2 */ ascii("$archiver"),
            /* 3 */ ascii("$top"),
            /* 4 */ ascii("$objects"),
            /* 5 */ [0x12, 0x00, 0x01, 0x86, 0xA0],  // 100000 in a 4-byte integer
            /* 6 */ ascii("NSKeyedArchiver"),  // 15 characters: 5F, then the count 10 0F
            /* 7 */ [0xD1] + r(8) + r(10),  // $top = {"root": UID 1}
            /* 8 */ ascii("root"),
            /* 9 */ [0xA9] + r(11) + r(12) + r(21) + r(22) + r(23) + r(24) + r(25) + r(26) + r(27),  // $objects
            /* 10 */ uid(1),
            /* 11 */ ascii("$null"),  // $objects[0]
            /* 12 */ [0xD3] + r(13) + r(14) + r(15) + r(16) + r(17) + r(18),  // $objects[1]
            /* 13 */ ascii("NS.keys"),
            /* 14 */ ascii("NS.objects"),
            /* 15 */ ascii("$class"),
            /* 16 */ [0xA3] + r(19) + r(20) + r(28),  // NS.keys = [UID 2, UID 3, UID 4]
            /* 17 */ [0xA3] + r(29) + r(30) + r(31),  // NS.objects = [UID 5, UID 6, UID 7]
            /* 18 */ uid(8),  // $class = UID 8
            /* 19 */ uid(2),
            /* 20 */ uid(3),
            /* 21 */ ascii("sepiaIntensity"),  // $objects[2]
            /* 22 */ ascii("vignetteIntensity"),  // $objects[3]
            /* 23 */ ascii("vignetteRadius"),  // $objects[4]
            /* 24 */ real(sepia),  // $objects[5]
            /* 25 */ real(vignette),  // $objects[6]
            /* 26 */ real(radius),  // $objects[7]
            /* 27 */ [0xD2] + r(32) + r(33) + r(34) + r(35),  // $objects[8] = the class
            /* 28 */ uid(4),
            /* 29 */ uid(5),
            /* 30 */ uid(6),
            /* 31 */ uid(7),
            /* 32 */ ascii("$classname"),
            /* 33 */ ascii("$classes"),
            /* 34 */ ascii("NSDictionary"),
            /* 35 */ [0xA2] + r(34) + r(36),  // ["NSDictionary", "NSObject"]
            /* 36 */ ascii("NSObject"),
        ])
    }

    /// One setting, `sepiaIntensity`, in an NSMutableDictionary: small enough (under 256
    /// bytes) for one-byte offsets.
    static func sepiaOnly(_ plist: PlistBytes, sepia: Double) -> [UInt8] {
        let r = plist.ref
        return plist.assemble([
            /* 0 */ [0xD4] + r(1) + r(2) + r(3) + r(4) + r(5) + r(6) + r(7) + r(9),
            /* 1 */ ascii("$version"),
            /* 2 */ ascii("$archiver"),
            /* 3 */ ascii("$top"),
            /* 4 */ ascii("$objects"),
            /* 5 */ [0x12, 0x00, 0x01, 0x86, 0xA0],
            /* 6 */ ascii("NSKeyedArchiver"),
            /* 7 */ [0xD1] + r(8) + r(10),
            /* 8 */ ascii("root"),
            /* 9 */ [0xA5] + r(11) + r(12) + r(20) + r(21) + r(22),  // $null, dictionary, key, value, class
            /* 10 */ uid(1),
            /* 11 */ ascii("$null"),
            /* 12 */ [0xD3] + r(13) + r(14) + r(15) + r(16) + r(17) + r(18),
            /* 13 */ ascii("NS.keys"),
            /* 14 */ ascii("NS.objects"),
            /* 15 */ ascii("$class"),
            /* 16 */ [0xA1] + r(19),  // [UID 2]
            /* 17 */ [0xA1] + r(23),  // [UID 3]
            /* 18 */ uid(4),
            /* 19 */ uid(2),
            /* 20 */ ascii("sepiaIntensity"),
            /* 21 */ real(sepia),
            /* 22 */ [0xD2] + r(24) + r(25) + r(26) + r(27),
            /* 23 */ uid(3),
            /* 24 */ ascii("$classname"),
            /* 25 */ ascii("$classes"),
            /* 26 */ ascii("NSMutableDictionary"),
            /* 27 */ [0xA3] + r(26) + r(28) + r(29),
            /* 28 */ ascii("NSDictionary"),
            /* 29 */ ascii("NSObject"),
        ])
    }
}
