import KioskCore
#if canImport(Glibc)
import Glibc
#endif

/// Writes dates and times with strftime in a locale (`de_DE.UTF-8`: "Mai"),
/// in the kiosk's time zone (`TZ`, else /etc/localtime). A locale that is
/// not installed is noted once and dates are written in C's.
public final class DateWriter {
    private let locale: locale_t?
    /// Why dates are not in the locale asked for, worth one log line; nil when they are.
    public let note: String?

    /// `name`: a locale's name, or nil for the environment's (LC_ALL, LC_TIME, LANG).
    public init(locale name: String?) {
        if let made = newlocale(LC_TIME_MASK, name ?? "", nil) {
            locale = made
            note = nil
        } else {
            locale = newlocale(LC_TIME_MASK, "C", nil)
            note = name.map { "locale \($0) is not installed (locale -a lists those that are): dates are written in English" }
        }
    }

    deinit { if let locale { freelocale(locale) } }

    /// `pattern` for the instant `seconds` (since the epoch), local time; "" when it writes nothing.
    public func write(_ pattern: StrftimePattern, at seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return "" }
        var buffer = [CChar](repeating: 0, count: 512)
        let count = pattern.text.withCString { format in
            locale.map { strftime_l(&buffer, buffer.count, format, &parts, $0) } ?? strftime(&buffer, buffer.count, format, &parts)
        }
        guard count > 0 else { return "" }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
