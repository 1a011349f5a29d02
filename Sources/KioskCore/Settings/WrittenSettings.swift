extension KioskSettings {
    /// Setting `name`'s value as the config file would spell it, so that
    /// setting it back changes nothing; nil for a setting whose default
    /// cannot be written (no `images`, the full height, the daemon's own
    /// group): ``unwrittenDefault(of:)`` says what it means instead.
    public func writtenValue(of name: String) -> SettingValue? {
        switch name {
        case "images": return images.map(SettingValue.string)
        // One of the two says the slot's width; the other is not written (both would be an error).
        case "image_width": return layout.visible == nil ? Self.written(layout.slotWidth) : nil
        case "visible": return layout.visible.map(SettingValue.float)
        case "spacing": return Self.written(layout.spacing)
        case "slot_height": return layout.slotHeight.map(Self.written)
        case "background": return .string("\(layout.background)")
        case "align": return .string(layout.alignment.rawValue)
        case "portrait_pairs": return .boolean(layout.portraitPairs)
        case "device": return .string(display.device ?? "auto")
        case "connector": return .string(display.connector ?? "auto")
        case "mode": return .string("\(display.mode)")
        case "rotation": return .integer(display.rotation.rawValue)
        case "exif_rotate": return .boolean(exifRotate)
        case "cache_mb": return cacheMegabytes.map(SettingValue.integer) ?? .string("auto")
        case "interval": return .float(motion.interval)
        case "transition": return .float(motion.transition)
        case "easing": return .string(motion.easing.rawValue)
        case "display": return .string(display.target.rawValue)
        case "size": return .string("\(display.headlessSize)")
        case "socket": return .string(control.socket ?? "none")
        case "socket_group": return control.socketGroup.map(SettingValue.string)
        case "input":
            guard let devices = input.devices else { return .string("auto") }
            return devices.isEmpty ? .string("none") : .list(devices.map(SettingValue.string))
        case "grab": return .boolean(input.grab)
        case "tap_zones": return .boolean(input.tapZones)
        case "max_zoom": return .float(input.maxZoom)
        case "resume_after": return .float(motion.resumeAfter)
        case "calibration": return .list(input.calibration.map(SettingValue.float))
        case "keys": return .table(input.keys.mapValues { .string($0.rawValue) })
        case "recursive": return .boolean(folder.recursive)
        case "order": return .string(folder.order.rawValue)
        case "rescan_interval": return .float(folder.rescanInterval)
        case "display_schedule": return .string(power.schedule?.description ?? "none")
        case "cec":
            switch power.cec {
            case .auto: return .string("auto")
            case .off: return .string("off")
            case .device(let path): return .string(path)
            }
        case "state_dir": return .string(stateDirectory ?? "none")
        default: return nil
        }
    }

    /// What a setting without a ``writtenValue(of:)`` means.
    public static func unwrittenDefault(of name: String) -> String {
        switch name {
        case "images": return "not set: the folder of pictures must be given (images, or --images)"
        case "slot_height": return "the full height of the screen"
        case "visible": return "not set: image_width gives the slot's width"
        case "image_width": return "follows from visible: the screen width over visible, less the spacing"
        case "socket_group": return "the daemon's own group"
        default: return "no value"
        }
    }

    private static func written(_ length: Length) -> SettingValue {
        if case .pixels(let pixels) = length { return .integer(pixels) }
        return .string("\(length)")
    }
}

extension SettingValue {
    /// The value in TOML, as a config file line would hold it: strings
    /// quoted and escaped, lists in brackets, tables inline.
    public var toml: String {
        switch self {
        case .string(let text): return Self.quoted(text)
        case .integer(let number): return "\(number)"
        case .float(let number): return number.isFinite ? "\(number)" : (number.isNaN ? "nan" : number > 0 ? "inf" : "-inf")
        case .boolean(let on): return on ? "true" : "false"
        case .list(let values): return "[" + values.map(\.toml).joined(separator: ", ") + "]"
        case .table(let entries):
            if entries.isEmpty { return "{}" }
            return "{ " + entries.keys.sorted().map { "\(Self.key($0)) = \(entries[$0]!.toml)" }.joined(separator: ", ") + " }"
        }
    }

    private static func key(_ name: String) -> String {
        let bare = !name.isEmpty && name.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-"
        }
        return bare ? name : quoted(name)
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
