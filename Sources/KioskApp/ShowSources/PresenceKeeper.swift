import KioskCore

/// Whether someone is at the kiosk (`status`'s `presence`, Home Assistant's
/// presence sensor): a sensor holds, or a touch, key or remote came within
/// the last ``window``. Says so (``SensorReading/someoneThere(_:)``) when it
/// changes. One of ``PowerKeeper``'s parts.
final class PresenceKeeper {
    /// How long a touch, key or remote counts as someone there, without a sensor holding.
    static let window = 60.0

    private let clock: () -> Double
    private let report: (SensorReading) -> Void
    /// Told when a touch's minute will be over, to call ``update()`` then (the clock's time; nil: none).
    var rearmEnd: (Double?) -> Void = { _ in }
    /// The last touch, key, remote or sensor's word, and whether a sensor holds.
    private var lastSeen: Double?
    private var sensorHeld = false
    private(set) var someoneThere = false

    init(clock: @escaping () -> Double, report: @escaping (SensorReading) -> Void) {
        self.clock = clock
        self.report = report
    }

    /// Someone was seen now; a sensor's word (`held` not nil) holds presence while it says so.
    func seen(held: Bool?) {
        lastSeen = clock()
        if let held { sensorHeld = held }
        update()
    }

    /// Works out whether someone is there now; says so when that changed,
    /// and when a touch's minute will be over.
    func update() {
        let now = clock()
        let there = sensorHeld || (lastSeen.map { now - $0 < Self.window } ?? false)
        rearmEnd(there && !sensorHeld ? lastSeen.map { $0 + Self.window } : nil)
        guard there != someoneThere else { return }
        someoneThere = there
        report(.someoneThere(there))
    }
}
