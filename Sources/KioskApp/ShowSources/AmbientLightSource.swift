import KioskCore
import LinuxPlatform
import Synchronization
import SystemCalls

/// An ambient light sensor (`light_sensor`) as a source of the show: read
/// every ``period`` on a thread of its own (a read may be an I2C
/// transaction), only while the display is on, so a display that is off
/// costs no wake-up; each reading goes to the ``PowerKeeper``, which dims
/// through `light_curve` with its hysteresis.
final class AmbientLightSource: ShowSource {
    /// Seconds between readings.
    static let period = 2.0

    let reader: LightReader
    private let keeper: PowerKeeper
    private let curve: () -> LightCurve
    private var registration: Registration?
    private var events: ShowSubscription?

    init(sensor: LightSensor, keeper: PowerKeeper, curve: @escaping () -> LightCurve) throws(SystemCallError) {
        reader = try LightReader(sensor, period: Self.period)
        self.keeper = keeper
        self.curve = curve
    }

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        let reader = reader, keeper = keeper, curve = curve
        registration = try loop.register(reader.readyFD, name: "light sensor") { _ in
            for lux in reader.takeReadings() { keeper.ambientLight(lux: lux, curve: curve()) }
        }
        reader.sampling = !controller.snapshot.asleep
        events = controller.subscribe { event in
            switch event {
            case .panelChanged(let panel, _): reader.sampling = panel == .active
            case .stopped: reader.stop()
            default: break
            }
        }
    }

    /// The sensor to use for `setting` (`auto`: the first that measures illuminance), or why none.
    static func sensor(for setting: String, folder: String = LightSensor.folder) -> Result<LightSensor, SettingError> {
        let found = setting == "auto" ? LightSensor.all(in: folder).first : LightSensor(named: setting, in: folder)
        guard let found else {
            return .failure(SettingError(setting: "light_sensor", value: setting, reason: setting == "auto"
                ? "no IIO device in \(folder) measures illuminance" : "\(folder)/\(setting) is no IIO device that measures illuminance"))
        }
        return .success(found)
    }
}

/// Reads a light sensor on its own thread every `period` while sampling;
/// while not, it blocks until told again.
final class LightReader: Sendable {
    let sensor: LightSensor
    let period: Double
    private struct State {
        var sampling = false
        var readings: [Double] = []
        var stopping = false
    }

    private let mailbox: WorkerMailbox<State>

    /// Readable when readings wait: ``takeReadings()``.
    var readyFD: Int32 { mailbox.readyFD }

    init(_ sensor: LightSensor, period: Double) throws(SystemCallError) {
        self.sensor = sensor
        self.period = period
        mailbox = try WorkerMailbox(State())
        try mailbox.start { [self] in work() }
    }

    /// True while the display is on: it reads; false: it waits, costing nothing.
    var sampling: Bool {
        get { mailbox.withShared { $0.sampling } }
        set { mailbox.tell { $0.sampling = newValue } }
    }

    func takeReadings() -> [Double] {
        mailbox.take { state in
            defer { state.readings = [] }
            return state.readings
        }
    }

    func stop() { mailbox.tell { $0.stopping = true } }

    private func work() {
        while true {
            let (sampling, stopping) = mailbox.withShared { ($0.sampling, $0.stopping) }
            if stopping { return }
            guard sampling else {
                mailbox.sleep()
                continue
            }
            if let lux = sensor.lux() {
                mailbox.post { state in
                    state.readings.append(lux)
                    return true
                }
            }
            // Until the next reading, or sooner if told to stop sampling.
            _ = mailbox.sleep(milliseconds: Int32(period * 1000))
        }
    }
}
