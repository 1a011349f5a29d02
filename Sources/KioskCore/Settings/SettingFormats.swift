/// The kinds of value settings take: how each is read and written back.
/// The first few are shared; the rest belong to one setting each.
extension SettingFormat where Value == Bool {
    public static var boolean: Self {
        SettingFormat(read: { value in
            switch value {
            case .boolean(let on): return on
            case .string("true"): return true
            case .string("false"): return false
            default: throw SettingProblem("expected true or false")
            }
        }, write: { .boolean($0) })
    }
}

extension SettingFormat where Value == Double {
    /// Seconds within `range`, as a number or as text (`8`, `0.45`, `"8"`).
    public static func seconds(_ range: ClosedRange<Double>) -> Self {
        SettingFormat(read: { value in
            guard let seconds = value.number, range.contains(seconds) else {
                throw SettingProblem("expected seconds from \(range.lowerBound) to \(Int(range.upperBound)), e.g. 8 or 0.45")
            }
            return seconds
        }, write: { .float($0) })
    }
}

extension SettingFormat where Value == Length {
    /// Whole pixels (`1344`) or a percentage of the screen (`"70%"`).
    public static var length: Self {
        SettingFormat(read: readLength, write: writeLength)
    }

    static func readLength(_ value: SettingValue) throws -> Length {
        switch value {
        case .integer(let pixels): return .pixels(pixels)
        case .string(let text): if let length = Length(parsing: text) { return length }
        default: break
        }
        throw SettingProblem("expected whole pixels like 1344 or a percentage of the screen like \"70%\"")
    }

    static func writeLength(_ length: Length) -> SettingValue {
        if case .pixels(let pixels) = length { return .integer(pixels) }
        return .string("\(length)")
    }
}

extension SettingFormat where Value == Length? {
    /// A ``Length`` or, by default, none (nothing is written for none).
    public static var optionalLength: Self {
        SettingFormat(read: { try SettingFormat<Length>.readLength($0) }, write: { $0.map(SettingFormat<Length>.writeLength) })
    }
}

extension SettingFormat where Value == String? {
    /// `"auto"` (nil) or a name like `example`.
    public static func autoOrName(example: String) -> Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, !text.isEmpty else {
                throw SettingProblem("expected \"auto\" or a name like \"\(example)\"")
            }
            return text == "auto" ? nil : text
        }, write: { .string($0 ?? "auto") })
    }
}

extension SettingFormat where Value: CustomStringConvertible & Sendable {
    /// A value written as text that `parse` reads (`"101010"`,
    /// `"1920x1080@60"`), and written back as the value describes itself;
    /// `expected` says what else was expected.
    static func text(expected: String, _ parse: @escaping @Sendable (String) -> Value?) -> Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, let parsed = parse(text) else { throw SettingProblem(expected) }
            return parsed
        }, write: { .string($0.description) })
    }
}

extension SettingFormat where Value: RawRepresentable & Sendable, Value.RawValue == String {
    /// One of a few words (`order = "shuffle"`); `expected` lists them for the error.
    public static func word(expected: String) -> Self {
        SettingFormat(read: { value in
            guard let chosen = Value(rawValue: value.written) else { throw SettingProblem("expected " + expected) }
            return chosen
        }, write: { .string($0.rawValue) })
    }
}

// MARK: - Formats of one setting each

extension SettingFormat where Value == String? {
    /// `images`: the folder's path; no default.
    static var folderPath: Self {
        SettingFormat(read: { value in
            guard case .string(let path) = value, !path.isEmpty else { throw SettingProblem("expected the path of a folder") }
            return path
        }, write: { $0.map(SettingValue.string) })
    }

    /// `socket`: a path that fits `sockaddr_un`, or `"none"` (nil) for no socket.
    static var socketPath: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, !text.isEmpty, !text.contains("\0"),
                  text.utf8.count <= ControlSettings.maximumPathBytes else {
                throw SettingProblem(
                    "expected \"none\" or the path of the control socket, at most \(ControlSettings.maximumPathBytes) bytes, e.g. \"\(ControlSettings.defaultSocket)\"")
            }
            return text == "none" ? nil : text
        }, write: { .string($0 ?? "none") })
    }

    /// `socket_group`: a group's name; by default (nil) the daemon's own, not written.
    static var groupName: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, !text.isEmpty, !text.contains("\0"), !text.contains(":") else {
                throw SettingProblem("expected the name of a group, e.g. \"kioskd\"")
            }
            return text
        }, write: { $0.map(SettingValue.string) })
    }

    /// `state_dir`: an absolute folder, or `"none"` (nil) to keep nothing.
    static var stateDirectory: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, text == "none" || (text.hasPrefix("/") && !text.contains("\0")) else {
                throw SettingProblem("expected \"none\" or an absolute folder path like \"/var/lib/kioskd\"")
            }
            return text == "none" ? nil : text
        }, write: { .string($0 ?? "none") })
    }
}

extension SettingFormat where Value == Double? {
    /// `visible`: how many slots the screen holds across. Whether the slot
    /// fits the screen is the geometry's to say, against a screen.
    static var slotsAcross: Self {
        SettingFormat(read: { value in
            guard let count = value.number, count.isFinite, count > 0, count <= 100 else {
                throw SettingProblem(
                    "expected how many slots the screen holds across, e.g. 1.4 (the centred picture and its neighbours peeking in)")
            }
            return count
        }, write: { $0.map(SettingValue.float) })
    }
}

extension SettingFormat where Value == Double {
    /// `max_zoom`: 1 (no zoom) to 8.
    static var zoom: Self {
        SettingFormat(read: { value in
            guard let zoom = value.number, zoom.isFinite, zoom >= 1, zoom <= 8 else {
                throw SettingProblem("expected how far a pinch zooms, from 1 (no zoom) to 8, e.g. 2")
            }
            return zoom
        }, write: { .float($0) })
    }
}

extension SettingFormat where Value == RGBColor {
    static var colour: Self { .text(expected: "expected a colour as RRGGBB, e.g. \"101010\"") { RGBColor(hex: $0) } }
}

extension SettingFormat where Value == PictureAlignment {
    /// `align`: `centre` (or `center`) or `inner`.
    static var alignment: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, let alignment = PictureAlignment(rawValue: text == "center" ? "centre" : text) else {
                throw SettingProblem(
                    "expected \"centre\" (a picture centred in its slot) or \"inner\" (toward the screen's centre, so every neighbour peeks in)")
            }
            return alignment
        }, write: { .string($0.rawValue) })
    }
}

extension SettingFormat where Value == ModeRequest {
    static var mode: Self {
        .text(expected: "expected \"auto\", a size like \"1920x1080\" or a size and rate like \"1920x1080@60\"") { ModeRequest(parsing: $0) }
    }
}

extension SettingFormat where Value == Rotation {
    static var rotation: Self {
        SettingFormat(read: { value in
            guard let rotation = Rotation(parsing: value.written) else { throw SettingProblem("expected 0, 90, 180 or 270") }
            return rotation
        }, write: { .integer($0.rawValue) })
    }
}

extension SettingFormat where Value == PixelSize {
    /// `size`: the headless screen's, up to 8192x8192.
    static var screenSize: Self {
        .text(expected: "expected WIDTHxHEIGHT up to 8192x8192, e.g. \"1280x720\"") { text in
            PixelSize(parsing: text).flatMap { $0.width <= 8192 && $0.height <= 8192 ? $0 : nil }
        }
    }
}

extension SettingFormat where Value == Int? {
    /// `cache_mb`: `"auto"` (nil) or whole MiB.
    static var cacheMegabytes: Self {
        SettingFormat(read: { value in
            switch value {
            case .string("auto"): return nil
            case .integer(let megabytes) where (1...65536).contains(megabytes): return megabytes
            case .string(let text) where Int(text).map((1...65536).contains) == true: return Int(text)
            default: throw SettingProblem("expected \"auto\" or whole MiB from 1 to 65536")
            }
        }, write: { $0.map(SettingValue.integer) ?? .string("auto") })
    }
}

extension SettingFormat where Value == [String]? {
    /// `input`: `"auto"` (nil), `"none"` (`[]`), or device paths and by-id names.
    static var inputDevices: Self {
        SettingFormat(read: { value in
            let entries: [SettingValue]
            switch value {
            case .string("auto"): return nil
            case .string("none"): return []
            case .list(let values): entries = values
            default: entries = [value]
            }
            return try entries.map { entry in
                guard case .string(let device) = entry, !device.isEmpty, !device.contains("\0"),
                      device.hasPrefix("/dev/input/") ? !device.contains("/../") : !device.contains("/") else {
                    throw SettingProblem(
                        "expected \"auto\", \"none\", or a list of /dev/input/eventN paths or /dev/input/by-id names, e.g. [\"/dev/input/event3\"]")
                }
                return device
            }
        }, write: { devices in
            guard let devices else { return .string("auto") }
            return devices.isEmpty ? .string("none") : .list(devices.map(SettingValue.string))
        })
    }
}

extension SettingFormat where Value == [Double] {
    /// `calibration`: libinput's six numbers, as text or a list.
    static var calibration: Self {
        SettingFormat(read: { value in
            let numbers: [Double?]
            switch value {
            case .string(let text): numbers = text.split(whereSeparator: { $0 == " " || $0 == "," }).map { Double($0) }
            case .list(let values): numbers = values.map(\.number)
            default: numbers = []
            }
            guard numbers.count == 6, let matrix = numbers as? [Double], matrix.allSatisfy(\.isFinite) else {
                throw SettingProblem("expected libinput's 6 numbers \"a b c d e f\" (as LIBINPUT_CALIBRATION_MATRIX), e.g. \"1 0 0 0 1 0\"")
            }
            return matrix
        }, write: { .list($0.map(SettingValue.float)) })
    }
}

extension SettingFormat where Value == [String: KeyAction] {
    /// `[keys]`: kernel key names and actions; the daemon checks the names
    /// against libevdev's when it loads the settings.
    static var keyActions: Self {
        SettingFormat(read: { value in
            guard case .table(let entries) = value else {
                throw SettingProblem("expected a table of key names and actions, e.g. [keys] KEY_F5 = \"next\"")
            }
            var keys: [String: KeyAction] = [:]
            for (key, action) in entries {
                guard key.hasPrefix("KEY_") || key.hasPrefix("BTN_"), case .string(let word) = action, let chosen = KeyAction(rawValue: word) else {
                    throw SettingProblem(
                        "expected a kernel key name (KEY_... or BTN_..., as evtest shows them) and next, prev or pause",
                        value: "\(key) = \(action.written)")
                }
                keys[key] = chosen
            }
            return keys
        }, write: { .table($0.mapValues { .string($0.rawValue) }) })
    }
}

extension SettingFormat where Value == DisplaySchedule? {
    /// `display_schedule`: rules, or `"none"` (nil): always on.
    static var schedule: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value else {
                throw SettingProblem("expected \"none\" or rules like \"mon-fri 07:00-19:00; sat,sun 09:00-23:00\"")
            }
            if text == "none" { return nil }
            do { return try DisplaySchedule(parsing: text) } catch { throw SettingProblem("\(error)", value: text) }
        }, write: { .string($0?.description ?? "none") })
    }
}

extension SettingFormat where Value == CECChoice {
    static var cec: Self {
        SettingFormat(read: { value in
            guard case .string(let text) = value, text == "auto" || text == "off" || (text.hasPrefix("/dev/") && !text.contains("\0")) else {
                throw SettingProblem("expected \"auto\", \"off\" or a CEC device like \"/dev/cec0\"")
            }
            return text == "auto" ? .auto : text == "off" ? .off : .device(text)
        }, write: { choice in
            switch choice {
            case .auto: return .string("auto")
            case .off: return .string("off")
            case .device(let path): return .string(path)
            }
        })
    }
}

extension SettingFormat where Value == Double? {
    /// `idle_off`: a time (``DurationText``, or seconds as a number) from
    /// 1 s to a day, or `"none"` (nil).
    static var duration: Self {
        SettingFormat(read: { value in
            let problem = SettingProblem("expected a time like \"10m\", \"90s\" or \"1h\" (1 second to 24 hours), or \"none\"")
            let seconds: Double
            switch value {
            case .string("none"), .string("off"): return nil
            case .integer, .float:
                guard let number = value.number else { throw problem }
                seconds = number
            case .string(let text):
                guard let written = DurationText.seconds(in: text) else { throw problem }
                seconds = written
            default:
                throw problem
            }
            guard seconds.isFinite, DurationText.range.contains(seconds) else { throw problem }
            return seconds
        }, write: { seconds in
            guard let seconds else { return .string("none") }
            if seconds == seconds.rounded() {
                let whole = Int(seconds)
                if whole % 3600 == 0 { return .string("\(whole / 3600)h") }
                if whole % 60 == 0 { return .string("\(whole / 60)m") }
                return .string("\(whole)s")
            }
            return .float(seconds)
        })
    }
}

extension SettingFormat where Value == Double {
    /// `video_max`: a time written as `idle_off`'s is (``DurationText``, or
    /// seconds as a number), 1 s to a day, never `"none"`.
    static var requiredDuration: Self {
        let problem = "expected a time like \"60s\", \"2m\" or \"1h\" (1 second to 24 hours)"
        return SettingFormat(read: { value in
            // try? flattens: nil for "none" and for anything unreadable.
            guard let seconds = try? SettingFormat<Double?>.duration.read(value) else { throw SettingProblem(problem) }
            return seconds
        }, write: { SettingFormat<Double?>.duration.write($0) })
    }
}

extension SettingFormat where Value == Bool {
    /// `video_audio`: false; true is refused, since this kioskd plays no sound.
    static var audioNotBuilt: Self {
        SettingFormat(read: { value in
            guard case .boolean(let on) = value else { throw SettingProblem("expected true or false") }
            if on { throw SettingProblem("sound is not built into this kioskd: clips play muted (leave video_audio = false)") }
            return false
        }, write: { .boolean($0) })
    }
}

extension SettingFormat where Value == PresenceWaking {
    /// `wake_on_presence`: true, false or "always".
    static var presenceWaking: Self {
        SettingFormat(read: { value in
            switch value {
            case .boolean(let on): return on ? .inHours : .never
            case .string(let text):
                if let chosen = PresenceWaking(rawValue: text) { return chosen }
            default: break
            }
            throw SettingProblem("expected true, false or \"always\"")
        }, write: { waking in
            switch waking {
            case .never: return .boolean(false)
            case .inHours: return .boolean(true)
            case .always: return .string("always")
            }
        })
    }
}

/// A time as an operator writes it, in a setting (`idle_off`) or a command
/// (`message --for`): `90s`, `10m`, `2h`, or bare seconds.
public enum DurationText {
    /// The longest: a day.
    public static let range = 1.0...86_400

    /// The seconds `text` says, or nil when it says none within ``range``.
    public static func seconds(in text: some StringProtocol) -> Double? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        let scale = text.last.flatMap { units[$0] }
        guard let number = Double(String(scale == nil ? text[...] : text.dropLast())), number.isFinite else { return nil }
        let seconds = number * (scale ?? 1)
        return range.contains(seconds) ? seconds : nil
    }
}
