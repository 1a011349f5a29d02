#if !canImport(PropertyBased)
import TestSupport
/// A stand-in for the part of swift-property-based the property tests use
/// (`Gen.int(in:)`, `map`, `array(of:)`, `propertyCheck(count:input:_:)`),
/// compiled only where that package cannot be had: its one version in
/// the mirror needs tools 6.1, and Debian 13 ships Swift 6.0.3. The same
/// properties then run on inputs from a fixed seed, so a failure there
/// repeats run after run; it does not shrink the failing input.

/// Makes one input from the seeded source (``SplitMix``).
struct Gen<Value>: Sendable {
    let generate: @Sendable (inout SplitMix) -> Value

    func map<Other>(_ transform: @escaping @Sendable (Value) -> Other) -> Gen<Other> {
        Gen<Other> { random in transform(generate(&random)) }
    }

    /// `count` values.
    func array(of count: Int) -> Gen<[Value]> {
        Gen<[Value]> { random in (0..<count).map { _ in generate(&random) } }
    }

    /// Between `counts.lowerBound` and `counts.upperBound` values.
    func array(of counts: ClosedRange<Int>) -> Gen<[Value]> {
        Gen<[Value]> { random in (0..<Int.random(in: counts, using: &random)).map { _ in generate(&random) } }
    }
}

extension Gen where Value == Int {
    static func int(in range: ClosedRange<Int>) -> Gen<Int> { Gen { random in Int.random(in: range, using: &random) } }
}

/// Checks `property` on `count` inputs drawn from the generators.
func propertyCheck<each Input>(
    count: Int = 100, input generators: repeat Gen<each Input>, property: (repeat each Input) async throws -> Void
) async rethrows {
    var random = SplitMix(seed: 0x6B69_6F73_6B64)
    for _ in 0..<count {
        try await property(repeat (each generators).generate(&random))
    }
}
#endif
