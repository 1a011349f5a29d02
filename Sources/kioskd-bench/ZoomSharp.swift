import ArgumentParser
import Foundation
import ImageCodecs
import InputDevices
import KioskApp
import KioskCore
import LinuxPlatform
import SystemCalls

#if canImport(Glibc)
import Glibc
#endif

/// `zoom_sharp_ms`: two fingers on a piped touchscreen pinch the centred
/// 24 Mpx photo of a headless 1920x1080 show to 1.9x, about a different
/// place each time, stop, and lift `--hold` seconds later; the show counts
/// from the lift's timestamp to the flip of the first frame with the
/// zoomed part decoded again sharp on its worker
/// (``ShowStatistics/zoomToSharp``). With `--hold 0` they lift while still
/// moving (`zoom_sharp_moving_ms`), the worst case: nothing can start
/// before the lift. A double tap takes it back to 1x between pinches. The
/// path from the pipe on is the daemon's own.
struct ZoomSharp: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zoom-sharp", abstract: "Pinch the headless show's 24 Mpx photo and print zoom_sharp_ms.")

    @Argument var folder: String
    @Option(help: "Pinches.")
    var pinches = 8
    @Option(help: "Seconds the fingers stay still before they lift (0: they lift moving).")
    var hold = 0.15

    func run() throws {
        blockDaemonSignals()   // before the finger's thread exists: the show takes SIGTERM from its signalfd
        keepPictureBuffersOutOfTheHeap()
        let settings = headlessShow(folder, interval: 3600)
        let panel = try PipedInputDevice.touchscreen(name: "bench fingers", axisMaximum: 4095)
        let fingers = Fingers(writer: panel.writer, pinches: pinches, hold: hold)
        var job = DisplayJob(settings: settings, index: 0, log: { _ in })
        job.tuning.inputDevices = [panel]
        Thread.detachNewThread {
            fingers.play()
            kill(getpid(), SIGTERM)
        }
        let statistics = try job.run { _ in false }
        let latency = statistics.zoomToSharp
        guard let median = latency.percentile(0.5) else { throw ValidationError("no pinch reached a sharp frame") }
        let name = hold > 0 ? "zoom_sharp_ms" : "zoom_sharp_moving_ms"
        let how = hold > 0 ? "fingers still \(format(hold * 1000)) ms before the lift" : "fingers lifted while moving"
        print("\(name) \(format(median * 1000)) ms (median of \(latency.count) pinches of the 24 Mpx photo to 1.9x, \(how), lift to the sharp frame's flip; slowest \(format(latency.slowest * 1000)))")
        // The run loop's cost of a zoomed frame: nearly every frame of this run is a pinch's or a zoom's animation.
        let frames = statistics.composeTime
        if hold > 0, let p50 = frames.percentile(0.5), let p90 = frames.percentile(0.9), let p99 = frames.percentile(0.99) {
            print("zoom_frame_ms p50 \(format(p50 * 1000)), p90 \(format(p90 * 1000)), p99 \(format(p99 * 1000)), max \(format(frames.slowest * 1000)) ms over \(frames.count) frames "
                + "(the pinches' frames on the run loop: the part of the slot's picture on screen scaled up, then composed)")
        }
        // The whole process at its peak: the show, its cache and the zoom's pictures (the region, the slot's zoomed picture, the worker's decode).
        guard hold > 0 else { return }
        print("zoom_peak_rss_mb \(format(Double(residentKiB("VmHWM")) / 1024)) MB (the whole process's peak while pinching 24 Mpx photos)")
    }
}

/// Pinches across the middle of the panel: two fingers 0.1 of the width
/// apart spread to 0.19 over 0.3 s (1.9x, below max_zoom, so every move
/// changes the zoom), each about another point; still for `hold`; lift;
/// 1.5 s for the sharp frame; a double tap back to 1x; a pause.
private struct Fingers: Sendable {
    let writer: InputEventWriter
    let pinches: Int
    let hold: Double

    func play() {
        // The show takes its screen and first pictures first (the 24 Mpx decode included).
        usleep(3_000_000)
        for pinch in 0..<pinches {
            let x = 0.4 + 0.2 * Double(pinch % 4) / 3, y = 0.35 + 0.3 * Double(pinch % 3) / 2
            let steps = 36
            for step in 0...steps {
                let apart = 0.05 + 0.045 * Double(step) / Double(steps)
                fingers([(1, x - apart, y), (2, x + apart, y)], landing: step == 0)
                usleep(8_333)
            }
            if hold > 0 { usleep(useconds_t(hold * 1_000_000)) }
            lift([0, 1])
            usleep(1_500_000)
            for tap in 0..<2 {
                fingers([(Int32(10 + tap), 0.5, 0.5)], landing: true)
                usleep(60_000)
                lift([0])
                usleep(100_000)
            }
            usleep(1_000_000)
        }
    }

    /// Each finger (tracking id, x, y) in its slot, then one report.
    private func fingers(_ touches: [(id: Int32, x: Double, y: Double)], landing: Bool) {
        let now = MonotonicClock.now()
        for (slot, touch) in touches.enumerated() {
            try? writer.send(InputCode.absolute, InputCode.slot, Int32(slot), at: now)
            if landing { try? writer.send(InputCode.absolute, InputCode.trackingID, touch.id, at: now) }
            try? writer.send(InputCode.absolute, InputCode.positionX, Int32((touch.x * 4095).rounded()), at: now)
            try? writer.send(InputCode.absolute, InputCode.positionY, Int32((touch.y * 4095).rounded()), at: now)
        }
        try? writer.report(at: now)
    }

    private func lift(_ slots: [Int32]) {
        let now = MonotonicClock.now()
        for slot in slots {
            try? writer.send(InputCode.absolute, InputCode.slot, slot, at: now)
            try? writer.send(InputCode.absolute, InputCode.trackingID, -1, at: now)
        }
        try? writer.report(at: now)
    }
}
