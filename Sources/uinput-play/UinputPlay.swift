import ArgumentParser
import Foundation
import InputDevices
import KioskCore

/// The VM tests' finger and keyboard: makes a virtual touchscreen or
/// keyboard through uinput (so every run also plugs a device in and out
/// while kioskd runs), waits for kioskd to pick it up, plays one gesture at
/// the panel's 125 Hz, and removes the device.
@main
struct UinputPlay: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uinput-play",
        abstract: "Play a swipe or a key on a virtual uinput device (the VM tests).",
        subcommands: [Swipe.self, Pinch.self, Tap.self, Key.self, Flood.self, Replay.self])

    struct Timing: ParsableArguments {
        @Option(help: "Seconds to wait after making the device, for kioskd to open it.")
        var ready = 1.5
        @Option(help: "Seconds to keep the device after the gesture.")
        var linger = 0.5
    }

    struct Swipe: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Touch at FROM, move to TO (fractions of the panel's width, or height with --along y) over SECONDS, then lift.")
        @Argument var from: Double
        @Argument var to: Double
        @Argument var seconds: Double
        @Option(help: "The panel's axis the finger moves along: x, or y (a panel turned on its side, whose strip runs along its y axis).")
        var along = "x"
        @Option(help: "Where the finger is on the other axis, as a fraction.")
        var across = 0.5
        @Option(help: "Seconds the finger stays still before lifting.")
        var liftAfter = 0.008
        @OptionGroup var timing: Timing

        func run() throws {
            let maximum: Int32 = 4095
            let panel = try VirtualInputDevice(.touchscreen(axisMaximum: maximum), name: "kioskd test touchscreen")
            FileHandle.standardOutput.write(Data("\(panel.path)\n".utf8))
            Thread.sleep(forTimeInterval: timing.ready)
            guard along == "x" || along == "y" else { throw ValidationError("--along is x or y, not \(along)") }
            func axis(_ fraction: Double) -> Int32 { Int32((fraction * Double(maximum)).rounded()) }
            // The moving axis, multitouch and single-touch codes; the other one stays at `across`.
            let moving = along == "x" ? (InputCode.positionX, InputCode.x) : (InputCode.positionY, InputCode.y)
            let still = along == "x" ? (InputCode.positionY, InputCode.y) : (InputCode.positionX, InputCode.x)
            try panel.send(InputCode.absolute, InputCode.slot, 0)
            try panel.send(InputCode.absolute, InputCode.trackingID, 1)
            try panel.send(InputCode.absolute, moving.0, axis(from))
            try panel.send(InputCode.absolute, still.0, axis(across))
            try panel.send(InputCode.key, InputCode.buttonTouch, 1)
            try panel.send(InputCode.absolute, moving.1, axis(from))
            try panel.send(InputCode.absolute, still.1, axis(across))
            try panel.report()
            let steps = max(1, Int((seconds / 0.008).rounded()))
            for step in 1...steps {
                Thread.sleep(forTimeInterval: seconds / Double(steps))
                let value = axis(from + (to - from) * Double(step) / Double(steps))
                try panel.send(InputCode.absolute, moving.0, value)
                try panel.send(InputCode.absolute, moving.1, value)
                try panel.report()
            }
            // For a script that looks at the screen while the finger is still down.
            FileHandle.standardOutput.write(Data("moved\n".utf8))
            Thread.sleep(forTimeInterval: liftAfter)
            try panel.send(InputCode.absolute, InputCode.trackingID, -1)
            try panel.send(InputCode.key, InputCode.buttonTouch, 0)
            try panel.report()
            Thread.sleep(forTimeInterval: timing.linger)
        }
    }

    struct Pinch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Two fingers either side of X,Y (fractions of the panel), FROM apart, spread (or close) to TO apart over SECONDS (fractions of the width), then lift.")
        @Argument var x: Double
        @Argument var y: Double
        @Argument var from: Double
        @Argument var to: Double
        @Argument var seconds: Double
        @OptionGroup var timing: Timing

        func run() throws {
            let maximum: Int32 = 4095
            let panel = try VirtualInputDevice(.touchscreen(axisMaximum: maximum), name: "kioskd test touchscreen")
            FileHandle.standardOutput.write(Data("\(panel.path)\n".utf8))
            Thread.sleep(forTimeInterval: timing.ready)
            func axis(_ fraction: Double) -> Int32 { Int32((fraction * Double(maximum)).rounded()) }
            func place(_ apart: Double) throws {
                for (slot, side) in [(Int32(0), -0.5), (1, 0.5)] {
                    try panel.send(InputCode.absolute, InputCode.slot, slot)
                    try panel.send(InputCode.absolute, InputCode.positionX, axis(x + side * apart))
                }
            }
            for slot in Int32(0)...1 {
                try panel.send(InputCode.absolute, InputCode.slot, slot)
                try panel.send(InputCode.absolute, InputCode.trackingID, slot + 1)
                try panel.send(InputCode.absolute, InputCode.positionY, axis(y))
            }
            try place(from)
            try panel.send(InputCode.key, InputCode.buttonTouch, 1)
            try panel.report()
            let steps = max(1, Int((seconds / 0.008).rounded()))
            for step in 1...steps {
                Thread.sleep(forTimeInterval: seconds / Double(steps))
                try place(from + (to - from) * Double(step) / Double(steps))
                try panel.report()
            }
            Thread.sleep(forTimeInterval: 0.05)
            for slot in Int32(0)...1 {
                try panel.send(InputCode.absolute, InputCode.slot, slot)
                try panel.send(InputCode.absolute, InputCode.trackingID, -1)
            }
            try panel.send(InputCode.key, InputCode.buttonTouch, 0)
            try panel.report()
            Thread.sleep(forTimeInterval: timing.linger)
        }
    }

    struct Tap: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Tap at X,Y (fractions of the panel), COUNT times, 0.1 s apart (2: a double tap).")
        @Argument var x: Double
        @Argument var y: Double
        @Option(help: "How many taps.")
        var count = 1
        @OptionGroup var timing: Timing

        func run() throws {
            let maximum: Int32 = 4095
            let panel = try VirtualInputDevice(.touchscreen(axisMaximum: maximum), name: "kioskd test touchscreen")
            FileHandle.standardOutput.write(Data("\(panel.path)\n".utf8))
            Thread.sleep(forTimeInterval: timing.ready)
            for tap in 0..<max(1, count) {
                if tap > 0 { Thread.sleep(forTimeInterval: 0.1) }
                try panel.send(InputCode.absolute, InputCode.slot, 0)
                try panel.send(InputCode.absolute, InputCode.trackingID, Int32(tap + 1))
                try panel.send(InputCode.absolute, InputCode.positionX, Int32((x * Double(maximum)).rounded()))
                try panel.send(InputCode.absolute, InputCode.positionY, Int32((y * Double(maximum)).rounded()))
                try panel.send(InputCode.key, InputCode.buttonTouch, 1)
                try panel.report()
                Thread.sleep(forTimeInterval: 0.06)
                try panel.send(InputCode.absolute, InputCode.trackingID, -1)
                try panel.send(InputCode.key, InputCode.buttonTouch, 0)
                try panel.report()
            }
            Thread.sleep(forTimeInterval: timing.linger)
        }
    }

    struct Flood: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send random touch frames as fast as possible for SECONDS: up to four fingers landing, moving and lifting, positions far outside the axis range, then lift them all.")
        @Argument var seconds: Double
        @Option(help: "The random generator's seed.")
        var seed: UInt64 = 1
        @OptionGroup var timing: Timing

        func run() throws {
            let panel = try VirtualInputDevice(.touchscreen(axisMaximum: 4095), name: "kioskd test touchscreen")
            Thread.sleep(forTimeInterval: timing.ready)
            var random = seed
            func next(_ bound: Int32) -> Int32 {
                random = random &* 6364136223846793005 &+ 1442695040888963407
                return Int32(truncatingIfNeeded: (random >> 33) % UInt64(bound))
            }
            let end = Date().addingTimeInterval(seconds)
            var events = 0
            var nextID: Int32 = 100
            while Date() < end {
                for _ in 0..<64 {
                    try panel.send(InputCode.absolute, InputCode.slot, next(4))
                    switch next(8) {
                    case 0:
                        nextID += 1
                        try panel.send(InputCode.absolute, InputCode.trackingID, nextID)
                    case 1: try panel.send(InputCode.absolute, InputCode.trackingID, -1)
                    default: break
                    }
                    try panel.send(InputCode.absolute, InputCode.positionX, next(12000) - 4000)
                    try panel.send(InputCode.absolute, InputCode.positionY, next(12000) - 4000)
                    try panel.report()
                    events += 5
                }
            }
            for slot in Int32(0)..<4 {
                try panel.send(InputCode.absolute, InputCode.slot, slot)
                try panel.send(InputCode.absolute, InputCode.trackingID, -1)
            }
            try panel.report()
            FileHandle.standardOutput.write(Data("\(events) events in \(seconds) s\n".utf8))
            Thread.sleep(forTimeInterval: timing.linger)
        }
    }

    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Play a recording in evemu's event format (\"E: seconds type code value\", type and code in hex) on the touchscreen, at its own pace.")
        @Argument var file: String
        @OptionGroup var timing: Timing

        func run() throws {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            var events: [(time: Double, type: UInt16, code: UInt16, value: Int32)] = []
            for line in text.split(separator: "\n") where line.hasPrefix("E: ") {
                let fields = line.split(separator: " ")
                guard fields.count == 5, let time = Double(fields[1]), let type = UInt16(fields[2], radix: 16),
                      let code = UInt16(fields[3], radix: 16), let value = Int32(fields[4]) else {
                    throw ValidationError("\(file): not an evemu event line: \(line)")
                }
                events.append((time, type, code, value))
            }
            let panel = try VirtualInputDevice(.touchscreen(axisMaximum: 4095), name: "kioskd test touchscreen")
            Thread.sleep(forTimeInterval: timing.ready)
            let start = Date()
            for event in events {
                let wait = event.time - Date().timeIntervalSince(start)
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
                try panel.send(event.type, event.code, event.value)
            }
            FileHandle.standardOutput.write(Data("\(events.count) events in \(events.last?.time ?? 0) s\n".utf8))
            Thread.sleep(forTimeInterval: timing.linger)
        }
    }

    struct Key: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Press and release a key (its kernel code: 106 is KEY_RIGHT).")
        @Argument var code: UInt16
        @Flag(help: "A device with this key alone, as a PIR on gpio-keys is (143 is KEY_WAKEUP), not a keyboard.") var only = false
        @Option(help: "Seconds the key stays down.") var hold = 0.05
        @OptionGroup var timing: Timing

        func run() throws {
            let keyboard = try VirtualInputDevice(
                .keyboard(keys: only ? [code] : Array(KeyMap().codes) + [code]), name: only ? "kioskd test motion sensor" : "kioskd test keyboard")
            FileHandle.standardOutput.write(Data("\(keyboard.path)\n".utf8))
            Thread.sleep(forTimeInterval: timing.ready)
            try keyboard.send(InputCode.key, code, 1)
            try keyboard.report()
            FileHandle.standardOutput.write(Data("down\n".utf8))
            Thread.sleep(forTimeInterval: hold)
            try keyboard.send(InputCode.key, code, 0)
            try keyboard.report()
            Thread.sleep(forTimeInterval: timing.linger)
        }
    }
}
