#if canImport(Glibc)
import Glibc
#endif

/// How an HDR photo (a PQ or HLG transfer, as phones and cameras write
/// 10-bit AVIF and HEIF) is brought to the 8-bit SDR screen: neither clipped
/// to white (every highlight above SDR white would be one flat 255) nor
/// washed out (shown as if its curve were SDR's gamma, greys and faded).
///
/// 1. The transfer is undone to light in nits: PQ's EOTF (SMPTE ST 2084),
///    or HLG's inverse OETF and its OOTF for a 1,000-nit display (BT.2100,
///    system gamma 1.2).
/// 2. Light is measured against HDR reference white, 203 nits (BT.2408),
///    and the luminance is compressed with an extended Reinhard curve whose
///    white point is the content's peak (`peakNits`, 1,000 unless the file
///    says): reference white lands at about 75% of the screen's white
///    (sRGB level 190), the peak at exactly 255, every level between keeps
///    its order. Colour is scaled with its luminance, so hues do not shift.
/// 3. BT.2020 colours are converted to the screen's BT.709 primaries, and
///    what falls outside is clipped per channel.
/// 4. sRGB's curve encodes the result in 8 bits.
public struct HDRToneMapping: Sendable {
    public enum Transfer: Sendable, Equatable {
        /// SMPTE ST 2084, CICP transfer 16.
        case pq
        /// ARIB STD-B67, BT.2100 HLG, CICP transfer 18.
        case hlg

        /// The HDR transfer a CICP `transfer_characteristics` names; nil for SDR ones.
        public init?(cicp: Int) {
            switch cicp {
            case 16: self = .pq
            case 18: self = .hlg
            default: return nil
            }
        }
    }

    public static let referenceWhiteNits: Float = 203
    /// PQ content's assumed peak when the file gives none; HLG's nominal display peak.
    public static let defaultPeakNits: Float = 1000
    /// How many steps of the non-linear signal the light table holds (12 bits).
    public static let signalSteps = 4096

    public let transfer: Transfer
    /// True for BT.2020 primaries (CICP 9), converted to BT.709.
    public let wideGamut: Bool
    public let peakNits: Float
    /// Light, relative to reference white, for each step of the signal: for PQ the displayed light, for HLG the scene light.
    private let light: [Float]
    /// sRGB levels for linear light 0...1 in `encodeSteps` steps.
    private let encode: [UInt8]
    private static let encodeSteps = 16384

    public init(transfer: Transfer, wideGamut: Bool, peakNits: Float? = nil) {
        self.transfer = transfer
        self.wideGamut = wideGamut
        let peak = max(Self.referenceWhiteNits * 1.5, peakNits.flatMap { $0 > 0 ? $0 : nil } ?? Self.defaultPeakNits)
        self.peakNits = peak
        light = (0..<Self.signalSteps).map { step in
            let signal = Float(step) / Float(Self.signalSteps - 1)
            switch transfer {
            case .pq: return Self.pqNits(signal) / Self.referenceWhiteNits
            case .hlg: return Self.hlgSceneLight(signal)
            }
        }
        encode = (0...Self.encodeSteps).map { step in
            let linear = Double(step) / Double(Self.encodeSteps)
            let srgb = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            return UInt8((srgb * 255).rounded())
        }
    }

    /// ST 2084's EOTF: a signal 0...1 to nits 0...10,000.
    public static func pqNits(_ signal: Float) -> Float {
        let m1: Float = 2610 / 16384, m2: Float = 2523 / 4096 * 128
        let c1: Float = 3424 / 4096, c2: Float = 2413 / 4096 * 32, c3: Float = 2392 / 4096 * 32
        let p = powf(max(signal, 0), 1 / m2)
        return 10000 * powf(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// HLG's inverse OETF: a signal 0...1 to scene light 0...1.
    public static func hlgSceneLight(_ signal: Float) -> Float {
        let a: Float = 0.17883277, b: Float = 0.28466892, c: Float = 0.55991073
        return signal <= 0.5 ? signal * signal / 3 : (expf((signal - c) / a) + b) / 12
    }

    /// One pixel: its three non-linear components as steps of the signal
    /// (0 ..< ``signalSteps``), to 8-bit sRGB red, green and blue.
    @inline(__always)
    public func map(_ red: Int, _ green: Int, _ blue: Int) -> (UInt8, UInt8, UInt8) {
        var r = light[red], g = light[green], b = light[blue]
        // Luminance in the source primaries.
        let weights: (Float, Float, Float) = wideGamut ? (0.2627, 0.6780, 0.0593) : (0.2126, 0.7152, 0.0722)
        var y = weights.0 * r + weights.1 * g + weights.2 * b
        if transfer == .hlg {
            // BT.2100's OOTF for a display of `peakNits`: scene light to displayed light.
            let displayed = powf(max(y, 1e-6), 0.2) * peakNits / Self.referenceWhiteNits
            (r, g, b, y) = (r * displayed, g * displayed, b * displayed, y * displayed)
        }
        if y > 0 {
            let white = peakNits / Self.referenceWhiteNits
            let compressed = y * (1 + y / (white * white)) / (1 + y)
            let scale = compressed / y
            (r, g, b) = (r * scale, g * scale, b * scale)
        }
        if wideGamut {
            (r, g, b) = (1.6605 * r - 0.5876 * g - 0.0728 * b,
                         -0.1246 * r + 1.1329 * g - 0.0083 * b,
                         -0.0182 * r - 0.1006 * g + 1.1187 * b)
        }
        @inline(__always) func level(_ linear: Float) -> UInt8 {
            encode[Int(min(max(linear, 0), 1) * Float(Self.encodeSteps) + 0.5)]
        }
        return (level(r), level(g), level(b))
    }
}
