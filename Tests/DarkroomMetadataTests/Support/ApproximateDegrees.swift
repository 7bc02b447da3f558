/// Degrees, minutes and seconds as decimal degrees, for writing expected values by hand.
func dms(_ degrees: Double, _ minutes: Double, _ seconds: Double) -> Double {
    degrees + minutes / 60 + seconds / 3600
}

/// `value` is present and within `tolerance` of `expected`.
func isClose(_ value: Double?, _ expected: Double, tolerance: Double = 1e-9) -> Bool {
    guard let value else { return false }
    return abs(value - expected) <= tolerance
}
