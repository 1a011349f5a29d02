import ArgumentParser
import Foundation
import InputDevices
import KioskApp
import KioskCore
import LinuxPlatform
import Synchronization
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// `presence_wake_ms`: a headless 1920x1080 show with `idle_off` of 2 s and
/// a piped motion sensor (a device with `KEY_WAKEUP`, as a PIR on
/// gpio-keys is). The sensor holds while the first pictures decode; then,
/// `wakes` times, once the display has gone off by idle, it sends one
/// press: the time from the press (its event time, the kernel's clock) to
/// the first frame shown after the wake (``ShowStatistics/wakesShown``),
/// the slowest of them printed. The pictures stay decoded while the display
/// is off, so that frame is full.
struct PresenceWake: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presence", abstract: "Wake a headless show that idled off with a piped motion sensor and print presence_wake_ms.")

    @Argument var folder: String
    @Option(help: "Wakes measured.") var wakes = 20

    static let idleOff = 2.0

    func run() throws {
        blockDaemonSignals()   // before the sensor's thread exists: the show takes SIGTERM from its signalfd
        keepPictureBuffersOutOfTheHeap()
        var settings = headlessShow(folder, interval: 3600)
        settings.power.idleOff = Self.idleOff
        var capabilities = InputCapabilities()
        capabilities.sensesPresence = true
        let sensor = try PipedInputDevice(name: "bench motion sensor", capabilities: capabilities)
        var job = DisplayJob(settings: settings, index: 0, log: { _ in })
        job.tuning.inputDevices = [sensor]
        let writer = sensor.writer, wakes = wakes
        let presses = Mutex<[Double]>([])
        Thread.detachNewThread {
            func press(_ value: Int32) {
                let now = MonotonicClock.now()
                try? writer.send(InputCode.key, 143, value, at: now)
                try? writer.report(at: now)
            }
            // Someone there while the first pictures decode.
            usleep(300_000)
            press(1)
            usleep(6_000_000)
            press(0)
            for _ in 0..<wakes {
                // Off by idle_off after the release, and a little more.
                usleep(useconds_t((Self.idleOff + 0.6) * 1_000_000))
                presses.withLock { $0.append(MonotonicClock.now()) }
                press(1)
                usleep(100_000)
                press(0)
            }
            usleep(500_000)
            kill(getpid(), SIGTERM)
        }
        let stats = try job.run { _ in false }
        let pressed = presses.withLock { $0 }
        let latencies = pressed.compactMap { time in stats.wakesShown.first { $0 >= time }.map { ($0 - time) * 1000 } }
        guard latencies.count == pressed.count, let slowest = latencies.max() else {
            throw ValidationError("\(latencies.count) of \(pressed.count) presses woke the display")
        }
        let refresh = 1000.0 / 60
        print("presence_wake_ms \(format(slowest)) ms (the slowest of \(latencies.count) wakes from idle_off; median "
            + "\(format(median(latencies))); one refresh is \(format(refresh)) ms, the target one refresh + 10 ms)")
    }
}
