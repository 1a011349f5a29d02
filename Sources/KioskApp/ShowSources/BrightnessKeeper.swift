import KioskCore

/// The display's brightness: the level asked for (the schedule's
/// `brightness`), no brighter than the room's light allows (an ambient light
/// sensor through ``AmbientDimming``), given to the dimmer (a backlight, or
/// software dimming) when it changes. One of ``PowerKeeper``'s parts.
final class BrightnessKeeper {
    /// Where the brightness goes.
    let dimmer: Dimmer
    private let dim: (Int) -> Void
    private let report: (SensorReading) -> Void
    private let log: (LogLine) -> Void
    /// The level an ambient light sensor gives, once one reads.
    private var ambient: AmbientDimming?
    /// The last reading said (``SensorReading/lightMeasured(lux:)``): a tenth's move says it again.
    private var luxSaid: Double?
    /// The level the dimmer was last given (nil: none yet).
    private(set) var levelSet: Int?

    /// `dim`: software dimming, the frames from now on at a percentage.
    init(dimmer: Dimmer, dim: @escaping (Int) -> Void, report: @escaping (SensorReading) -> Void, log: @escaping (LogLine) -> Void) {
        self.dimmer = dimmer
        self.dim = dim
        self.report = report
        self.log = log
    }

    /// The light sensor's last reading; nil without one.
    var lux: Double? { ambient?.lux }

    /// The level in force: `scheduled`, no brighter than the room's light says.
    func level(scheduled: Int) -> Int { min(scheduled, ambient?.percent ?? 100) }

    /// A light sensor's reading, in lux; true when the level it allows moved
    /// (``AmbientDimming``'s hysteresis). A move of a tenth or more is reported.
    func measured(lux: Double, curve: LightCurve) -> Bool {
        if ambient?.curve != curve {
            let last = ambient?.lux
            ambient = AmbientDimming(curve: curve)
            if let last { _ = ambient?.take(lux: last) }
        }
        let moved = ambient?.take(lux: lux) != nil
        if luxSaid.map({ abs(lux - $0) >= max(1, $0 / 10) }) ?? true {
            luxSaid = lux
            report(.lightMeasured(lux: lux))
        }
        return moved
    }

    /// Gives the dimmer `percent` (only a change: the power's check runs often).
    func apply(_ percent: Int) {
        if case .backlight(let writer) = dimmer, let failure = writer.takeFailure() { log(.warning("brightness: \(failure)")) }
        guard percent != levelSet else { return }
        if levelSet != nil { log("brightness \(percent)% (\(dimmer.name))") }
        levelSet = percent
        switch dimmer {
        case .software: dim(percent)
        case .backlight(let writer): writer.set(percent: percent)
        }
    }
}
