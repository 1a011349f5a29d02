import Testing

/// The error of type `type` that `body` throws; an issue is recorded (and
/// nil returned) when it throws none, or another. `#expect(throws:)`
/// returns the error itself from Swift 6.1 on; Debian 13's Swift 6.0.3,
/// which the tests also run on, returns nothing there.
public func expectError<Failure: Error, Value>(
    _ type: Failure.Type, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Value
) -> Failure? {
    do {
        _ = try body()
    } catch let error as Failure {
        return error
    } catch {
        Issue.record("expected \(Failure.self), got \(Swift.type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
    Issue.record("expected \(Failure.self) to be thrown, but nothing was", sourceLocation: sourceLocation)
    return nil
}
