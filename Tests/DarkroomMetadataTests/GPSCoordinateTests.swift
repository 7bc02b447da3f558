import DarkroomMetadata
import LibExif
import Testing

@Suite struct GPSCoordinateTests {
    private func degrees(
        _ d: (UInt32, UInt32), _ m: (UInt32, UInt32), _ s: (UInt32, UInt32), _ reference: String
    ) -> Double? {
        GPSCoordinate.decimalDegrees(
            degrees: ExifRational(d.0, d.1), minutes: ExifRational(m.0, m.1),
            seconds: ExifRational(s.0, s.1), reference: reference
        )
    }

    @Test(arguments: [
        // 43° 28' 2.814" = 43 + 28/60 + 2.814/3600 = 43.46744833…
        ("N", 43.467448333333),
        ("S", -43.467448333333),
        ("E", 43.467448333333),
        ("W", -43.467448333333),
        ("w", -43.467448333333),
        ("N\0", 43.467448333333),
        ("S ", -43.467448333333),
    ])
    func signFollowsHemisphere(reference: String, expected: Double) throws {
        let value = try #require(degrees((43, 1), (28, 1), (2814, 1000), reference))
        #expect(abs(value - expected) < 1e-9)
    }

    @Test func decimalMinutesWithZeroSeconds() throws {
        // Kodak style: 0° 22.278' 0" S = -(22.278 / 60) = -0.3713
        let value = try #require(degrees((0, 1), (22278, 1000), (0, 1), "S"))
        #expect(abs(value - -0.3713) < 1e-12)
    }

    @Test func axisLimits() {
        #expect(degrees((90, 1), (0, 1), (0, 1), "N") == 90)
        #expect(degrees((90, 1), (0, 1), (1, 1), "S") == nil)
        #expect(degrees((91, 1), (0, 1), (0, 1), "N") == nil)
        // 91° is a fine longitude, 180° the largest one, 180° 0' 1" too far.
        #expect(degrees((91, 1), (0, 1), (0, 1), "E") == 91)
        #expect(degrees((180, 1), (0, 1), (0, 1), "W") == -180)
        #expect(degrees((180, 1), (0, 1), (1, 1), "E") == nil)
    }

    @Test(
        arguments: [
            ((10, 0), (0, 1), (0, 1)),  // zero denominator in degrees
            ((10, 1), (5, 0), (0, 1)),  // … in minutes
            ((10, 1), (5, 1), (0, 0)),  // … in seconds
            ((10, 1), (60, 1), (0, 1)),  // minutes out of range
            ((10, 1), (5, 1), (60, 1)),  // seconds out of range
            ((10, 1), (5, 1), (6001, 100)),  // 60.01 seconds
        ] as [((UInt32, UInt32), (UInt32, UInt32), (UInt32, UInt32))])
    func badRationalsAreRejected(d: (UInt32, UInt32), m: (UInt32, UInt32), s: (UInt32, UInt32)) {
        #expect(degrees(d, m, s, "N") == nil)
    }

    @Test(arguments: ["", "X", "NE", "North", "\0"])
    func unknownReferencesAreRejected(reference: String) {
        #expect(degrees((10, 1), (0, 1), (0, 1), reference) == nil)
    }

    @Test func altitudeSignFollowsReference() {
        let altitude = ExifRational(105532, 165)  // 639.5878…
        #expect(GPSCoordinate.altitudeMetres(altitude: altitude, reference: 0) == 105532.0 / 165)
        #expect(GPSCoordinate.altitudeMetres(altitude: altitude, reference: nil) == 105532.0 / 165)
        #expect(GPSCoordinate.altitudeMetres(altitude: altitude, reference: 1) == -105532.0 / 165)
        #expect(GPSCoordinate.altitudeMetres(altitude: altitude, reference: 2) == nil)
        #expect(GPSCoordinate.altitudeMetres(altitude: ExifRational(5, 0), reference: 0) == nil)
    }
}
