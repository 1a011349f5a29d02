import ArgumentParser
import Foundation
import InputDevices
import KioskApp
import KioskCore
import LinuxPlatform
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// `input_to_photon_ms`: a finger dragging the strip back and forth on a
/// touchscreen reporting at 120 Hz (each report a little late or early, as
/// a panel's are, so the moves fall at every moment of the refresh), the
/// show headless at 1920x1080 and 60 Hz on the 24 Mpx photos (each swipe
/// brings new ones into view, so the decoder works meanwhile). Each move
/// is stamped on `CLOCK_MONOTONIC` when it is sent, as the kernel stamps a
/// touch when the panel reports it; the show counts, for every move, the
/// time to the flip of the first frame that shows it.
///
/// The touchscreen is a ``PipedInputDevice``: these machines have no
/// `/dev/input`. From the pipe on, the path is the daemon's own (its
/// ``InputSource``, the recogniser, the show's run loop and screen). The
/// VM tests read the same figure from real evdev devices.
struct InputLatency: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touch", abstract: "Drag the headless show with a piped finger and print input_to_photon_ms.")

    @Argument var folder: String
    @Option(help: "Swipes, alternating left and right.")
    var swipes = 24

    func run() throws {
        blockDaemonSignals()   // before the finger's thread exists: the show takes SIGTERM from its signalfd
        keepPictureBuffersOutOfTheHeap()
        let settings = headlessShow(folder, interval: 3600)   // no devices: only the piped finger
        let panel = try PipedInputDevice.touchscreen(name: "bench finger", axisMaximum: 4095)
        let finger = Finger(writer: panel.writer, swipes: swipes)
        var job = DisplayJob(settings: settings, index: 0, log: { _ in })
        job.tuning.inputDevices = [panel]
        Thread.detachNewThread {
            finger.play()
            // The strip has settled by now; nothing else would wake the resting show to end it.
            kill(getpid(), SIGTERM)
        }
        let stats = try job.run { _ in false }
        let latency = stats.inputToPhoton
        guard let p99 = latency.percentile(0.99), let median = latency.percentile(0.5) else {
            throw ValidationError("no finger move reached the screen")
        }
        let refresh = 1000.0 / 60
        print("input_to_photon_ms \(format(p99 * 1000)) ms (99% of \(latency.count) finger moves; median "
            + "\(format(median * 1000)), slowest \(format(latency.slowest * 1000)); one refresh is \(format(refresh)) ms)")
        print("input_to_photon_refreshes \(format(p99 * 1000 / refresh)) refreshes (the same 99th percentile)")
    }
}

/// Swipes across the middle of the panel: down at three quarters of the
/// width, across half of it in 0.6 s, up; a pause; then back the other way.
private struct Finger: Sendable {
    let writer: InputEventWriter
    let swipes: Int

    func play() {
        // The show takes its screen and first pictures first.
        usleep(1_500_000)
        var random: UInt64 = 12345
        for swipe in 0..<swipes {
            let (from, to) = swipe % 2 == 0 ? (0.75, 0.25) : (0.25, 0.75)
            let steps = 72  // 0.6 s at 120 Hz
            send(trackingID: Int32(swipe + 1), x: from)
            for step in 1...steps {
                random = random &* 6364136223846793005 &+ 1442695040888963407
                // 120 Hz, each report up to a millisecond early or late.
                let jitter = Double(Int(random >> 33) % 2001 - 1000) / 1_000_000
                usleep(useconds_t((1.0 / 120 + jitter) * 1_000_000))
                let f = Double(step) / Double(steps)
                // Ease in and out, as a hand moves.
                send(x: from + (to - from) * (3 * f * f - 2 * f * f * f))
            }
            send(trackingID: -1, x: to)
            usleep(700_000)
        }
    }

    private func send(trackingID: Int32? = nil, x: Double) {
        let now = MonotonicClock.now()
        let value = Int32((x * 4095).rounded())
        if let trackingID { try? writer.send(InputCode.absolute, InputCode.trackingID, trackingID, at: now) }
        if trackingID != -1 {
            try? writer.send(InputCode.absolute, InputCode.positionX, value, at: now)
            try? writer.send(InputCode.absolute, InputCode.positionY, 2048, at: now)
        }
        try? writer.report(at: now)
    }
}
