import KioskCore
import LinuxPlatform

extension ShowEvent {
    /// The operator's log line for this event, or nil when it is not worth
    /// one. `verbose` (`--verbose`) adds every picture the strip rests on.
    func logLine(verbose: Bool) -> LogLine? {
        switch self {
        case .ready(let count, let centred, _):
            return "showing \(count) picture(s), picture \(centred.map(String.init) ?? "none") in the centre"
        case .pictureCentred(let item, let file, let partner, _):
            return verbose ? .info("picture \(item) in the centre: \(file)" + (partner.map { " and \($0)" } ?? "")) : nil
        case .pictureRefused(let file, let reason):
            return .warning("skipping \(file): \(reason)")
        case .animationStopped(let file, let reason):
            return .warning("\(file) stops animating: \(reason)")
        case .clipStarted(let file, let words):
            return .info("playing \(file): \(words)")
        case .clipStopped(let file, let reason):
            return .warning("\(file) stops playing: \(reason); its first frame stays")
        case .pictureNote(let file, let note):
            return .info("\(file): \(note)")
        case .zoomNotSharp(let file, let reason):
            return .warning("\(file): the zoomed part cannot be decoded again sharp (\(reason)); it stays scaled up")
        case .playlistChanged(let count, let added, let removed):
            if count == 0 { return .warning("no picture in the folder can be shown: showing the background only") }
            guard verbose else { return nil }
            let changes = [added > 0 ? "\(added) added" : nil, removed > 0 ? "\(removed) removed" : nil].compactMap { $0 }
            return .info("\(count) picture(s) in the playlist" + (changes.isEmpty ? "" : " (" + changes.joined(separator: ", ") + ")"))
        case .folderGone(let folder):
            return .warning("the picture folder \(folder) is gone (unmounted, moved or deleted): showing the background until it is back")
        case .folderBack(let folder, let count):
            return "the picture folder \(folder) is back: \(count) picture(s)"
        case .textNote(let line):
            return .warning(line)
        case .panningChanged(let line):
            return .info(line)
        case .libraryChanged(let library, let reason):
            let name = "library \(library.kind.rawValue) \(library.source)"
            let cached = library.counts.map { "showing its \($0.cached) cached picture(s)" } ?? ""
            switch library.state {
            case .online:
                return .info(name + " online" + (library.counts.map { ": \($0.listed) picture(s), \($0.cached) in the cache" } ?? ""))
            case .offline:
                return .warning("\(name) offline since \(Self.localTime(library.since)): \(reason ?? "no answer"); \(cached), asking again")
            case .refused:
                return .warning("\(name) refused since \(Self.localTime(library.since)): \(reason ?? "refused"); \(cached), asking again later")
            }
        case .folderNote(let line):
            return .warning(line)
        case .settingsApplied:
            return "settings applied"
        case .paused:
            return "paused: no automatic slides until resume"
        case .resumed:
            return "resumed"
        case .displayLost(let reason):
            return .warning("cannot present a frame: \(reason); retrying every second")
        case .displayBack:
            return "the display takes frames again"
        case .panelChanged(let state, let why):
            switch state {
            case .off: return "display off (\(why)): no drawing, decoding or slides until it is on"
            case .active: return "display on (\(why))"
            case .disconnected: return .warning("display: \(why); the show keeps its time and comes back when a screen does")
            case .elsewhere: return nil
            }
        case .screenChanged, .seatChanged, .messageChanged:
            return nil   // the show's own wiring; what they cause is logged where it happens
        case .stopped(let reason, let stats):
            var line = "stopping\(reason.map { " on " + $0 } ?? "") after \(stats.slides) slide(s), "
                + "\(stats.framesShown) frame(s) (\(stats.framesPanned) panned), \(stats.refreshesMissed) refresh(es) missed during slides"
            let composed = stats.framesComposed - stats.longBuffersDrawn
            let longBuffers = stats.longBuffersDrawn + stats.longBuffersDrawnAhead
            let ahead = stats.longBuffersDrawnAhead > 0 ? " (\(stats.longBuffersDrawnAhead) ahead of their slide)" : ""
            if stats.framesPanned > 0 && composed > 0 {
                line += "; CPU per frame: panned \(microsecondsAsMilliseconds(stats.pannedFramesCPU / Double(stats.framesPanned))), "
                    + "composed \(microsecondsAsMilliseconds(stats.composedFramesCPU / Double(composed))), "
                    + "\(longBuffers) long buffer(s) drawn\(ahead) \(microsecondsAsMilliseconds(stats.longBuffersCPU / Double(max(1, longBuffers)))) each"
            }
            if stats.clipFramesShown > 0 {
                line += "; clips: \(stats.clipFramesShown) frame(s) shown, \(stats.clipFramesDropped) dropped"
                if let median = stats.clipStart.percentile(0.5) {
                    line += ", first frame \(milliseconds(median)) after the rest began (median; slowest \(exactMilliseconds(stats.clipStart.slowest)) over \(stats.clipStart.count) start(s))"
                }
                if let p99 = stats.clipComposeTime.percentile(0.99) {
                    line += ", composed in \(microsecondsAsMilliseconds(p99)) at p99 over \(stats.clipComposeTime.count) frame(s)"
                }
            }
            let latency = stats.inputToPhoton
            if let median = latency.percentile(0.5), let p99 = latency.percentile(0.99) {
                line += "; finger to screen: median \(milliseconds(median)), 99% within \(milliseconds(p99)), "
                    + "slowest \(exactMilliseconds(latency.slowest)) over \(latency.count) move(s)"
            }
            return LogLine(line)
        }
    }
}

extension ShowEvent {
    /// Unix time `utc` as the kiosk's local time of day, `13:05:12` (the journal gives the date).
    static func localTime(_ utc: Int64) -> String {
        let local = utc + Int64(localUTCOffset(at: utc))
        let seconds = Int((local % 86_400 + 86_400) % 86_400)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(seconds / 3600)):\(two(seconds / 60 % 60)):\(two(seconds % 60))"
    }
}

/// Seconds as milliseconds with one decimal: `16.8 ms`; `250+ ms` at the
/// histogram's ceiling, where it no longer tells latencies apart.
private func milliseconds(_ seconds: Double) -> String {
    if seconds >= LatencyHistogram.defaultCeiling { return "\(Int(LatencyHistogram.defaultCeiling * 1000))+ ms" }
    return exactMilliseconds(seconds)
}

/// Seconds as milliseconds with one decimal, however many.
/// Seconds as milliseconds to the microsecond: `0.052 ms`.
private func microsecondsAsMilliseconds(_ seconds: Double) -> String {
    let micro = Int((seconds * 1_000_000).rounded())
    let fraction = String(micro % 1000)
    return "\(micro / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction) ms"
}

private func exactMilliseconds(_ seconds: Double) -> String {
    let tenths = Int((seconds * 10_000).rounded())
    return "\(tenths / 10).\(tenths % 10) ms"
}
