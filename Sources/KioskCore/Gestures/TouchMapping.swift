/// From a touch device's axes to the show's screen pixels (x along the strip).
///
/// Steps, as libinput and a compositor take them:
/// 1. The raw value is normalised by the axis range (`[min, max]` to `[0, 1]`).
/// 2. The optional calibration, libinput's 6-value matrix `a b c d e f`
///    (`x' = a x + b y + c`, `y' = d x + e y + f`), applies to those
///    normalised device coordinates: a `LIBINPUT_CALIBRATION_MATRIX` from a
///    udev rule or a vendor's sheet works unchanged.
/// 3. The display `rotation` turns the panel's coordinates into the
///    layout's, the inverse of how frames are turned onto the panel (a
///    touchscreen is glued to its panel, so it turns with it).
/// 4. Points off the screen (absurd values past the axis range, a
///    calibration that overshoots) are clamped to its edge.
public struct TouchMapping: Equatable, Sendable {
    /// One absolute axis as the kernel describes it (`input_absinfo`).
    public struct Axis: Equatable, Sendable {
        public var minimum: Double
        public var maximum: Double
        /// Units per millimetre; nil when the device does not say.
        public var resolution: Double?

        public init(minimum: Double, maximum: Double, resolution: Double? = nil) {
            self.minimum = minimum
            self.maximum = maximum
            self.resolution = resolution.flatMap { $0 > 0 ? $0 : nil }
        }

        /// Millimetres the axis spans, if the device says.
        var millimetres: Double? { resolution.map { (maximum - minimum) / $0 } }
    }

    /// libinput's identity matrix.
    public static let identity = [1.0, 0, 0, 0, 1, 0]

    public let x: Axis
    public let y: Axis
    public let rotation: Rotation
    /// The layout's screen (the panel turned by `rotation`).
    public let screen: PixelSize
    public let calibration: [Double]

    /// Nil when an axis has no range (min >= max): such a device cannot be mapped.
    public init?(x: Axis, y: Axis, rotation: Rotation, screen: PixelSize, calibration: [Double] = identity) {
        guard x.maximum > x.minimum, y.maximum > y.minimum, calibration.count == 6,
              calibration.allSatisfy(\.isFinite), screen.width > 0, screen.height > 0 else { return nil }
        self.x = x
        self.y = y
        self.rotation = rotation
        self.screen = screen
        self.calibration = calibration
    }

    /// The screen point of raw axis values.
    public func point(rawX: Double, rawY: Double) -> ScreenPoint {
        let u0 = (rawX - x.minimum) / (x.maximum - x.minimum)
        let v0 = (rawY - y.minimum) / (y.maximum - y.minimum)
        let c = calibration
        let u = c[0] * u0 + c[1] * v0 + c[2]
        let v = c[3] * u0 + c[4] * v0 + c[5]
        // (u, v) across the panel; (s, t) across the layout.
        let s: Double, t: Double
        switch rotation {
        case .none: (s, t) = (u, v)
        case .half: (s, t) = (1 - u, 1 - v)
        case .quarter: (s, t) = (v, 1 - u)
        case .threeQuarters: (s, t) = (1 - v, u)
        }
        let width = Double(screen.width), height = Double(screen.height)
        return ScreenPoint(x: min(max(s * width, 0), width), y: min(max(t * height, 0), height))
    }

    /// Where a device's millimetres come from.
    public enum ScaleSource: Equatable, Sendable {
        /// The axis's resolution (units per millimetre), from the device.
        case device
        /// The screen's physical width, from its connector: a touchscreen covers its panel.
        case screen
        /// Neither says: 96 dpi.
        case assumed
    }

    /// 96 dpi, where neither the device nor the screen says its size.
    public static let assumedPixelsPerMillimetre = 96 / 25.4

    /// Screen pixels per millimetre along the strip, and where that comes
    /// from: the axis that runs along the strip, if the device gives its
    /// resolution, else the screen's physical width along the strip
    /// (`screenMillimetres`, from the connector), else 96 dpi.
    public func scale(screenMillimetres: Double? = nil) -> (pixelsPerMillimetre: Double, source: ScaleSource) {
        let along = rotation == .none || rotation == .half ? x : y
        if let millimetres = along.millimetres, millimetres > 0 { return (Double(screen.width) / millimetres, .device) }
        if let screenMillimetres, screenMillimetres > 0 { return (Double(screen.width) / screenMillimetres, .screen) }
        return (Self.assumedPixelsPerMillimetre, .assumed)
    }

    /// Screen pixels per millimetre along the strip (see ``scale(screenMillimetres:)``).
    public func pixelsPerMillimetre(screenMillimetres: Double? = nil) -> Double {
        scale(screenMillimetres: screenMillimetres).pixelsPerMillimetre
    }
}
