import ImageCodecs
import KioskCore
import KioskRendering

/// The animated pictures (GIFs) playing on screen: each one's playback,
/// the frames decoded ahead for it, and the frame it shows.
///
/// A picture plays while its slot is at least half on screen
/// (``CarouselGeometry/slotsHalfVisible(at:)``), at rest and during slides
/// alike: a frame is a prescaled picture like any other, so composing it
/// costs what a still costs (`gif_frame_compose_ratio` in `make bench`).
/// Under half on screen it holds its frame; off screen it stops, and starts
/// from its first frame when it comes back. Nothing plays while the display
/// is off or away: no frame is decoded and no wake-up asked for.
///
/// Memory: each playing picture holds the frame on screen and at most
/// ``framesAhead`` decoded ahead, each the size of its fitted picture, and
/// the worker one canvas of that size per animation.
struct AnimatedPictures {
    private struct Playing {
        var playback: FramePlayback
        let number: Int
        /// Decoded frames not yet shown, by number.
        var ahead: [Int: RasterImage] = [:]
        /// The frame on screen once it is past the first (the cached still).
        var current: RasterImage?
        var running = true
        var broken = false
    }

    private var playing: [String: Playing] = [:]
    private var playbacks = 0

    /// Frames decoded ahead of the one on screen.
    static let framesAhead = 2

    /// The frame to draw for `path` instead of its still picture.
    func frame(of path: String) -> RasterImage? { playing[path]?.current }

    var isEmpty: Bool { playing.isEmpty }

    /// Follows the strip: `running` are the animated pictures (with their
    /// schedules) in slots at least half on screen, `onScreen` every file
    /// on screen. New ones start at their first frame, ones that fell under
    /// half visible hold theirs, ones off screen stop.
    mutating func follow(running: [String: FrameSchedule], onScreen: Set<String>, at now: Double) {
        for path in playing.keys where !onScreen.contains(path) && running[path] == nil { playing[path] = nil }
        for (path, entry) in playing {
            let runs = running[path] != nil
            if runs && !entry.running { playing[path]?.playback.resume(at: now) }
            playing[path]?.running = runs
        }
        for (path, schedule) in running where playing[path] == nil {
            playbacks += 1
            playing[path] = Playing(playback: FramePlayback(schedule: schedule, startedAt: now), number: playbacks)
        }
    }

    /// Stops everything (the display went off or away, the recipe changed).
    mutating func stopAll() { playing = [:] }

    /// Files rewritten: their playbacks stop (the new contents start afresh).
    mutating func forget(_ paths: Set<String>) {
        for path in paths { playing[path] = nil }
    }

    /// What the decoder should decode: the next frames of every running picture.
    var requests: [String: AnimationRequest] {
        var requests: [String: AnimationRequest] = [:]
        for (path, entry) in playing where entry.running && !entry.broken && entry.playback.nextDue != nil {
            requests[path] = AnimationRequest(playback: entry.number, through: entry.playback.wanted(ahead: Self.framesAhead).upperBound)
        }
        return requests
    }

    /// Takes a decoded frame, if its playback still wants it.
    mutating func take(path: String, playback: Int, number: Int, picture: RasterImage) {
        guard let entry = playing[path], entry.number == playback, number > entry.playback.shown else { return }
        playing[path]?.ahead[number] = picture
    }

    /// The animation of `path` broke mid-file: the frames decoded before the
    /// break still show, then it stays on the last of them.
    mutating func stop(path: String, playback: Int) {
        guard playing[path]?.number == playback else { return }
        playing[path]?.broken = true
    }

    /// Shows every frame that is due and decoded; true if any changed.
    mutating func advance(at now: Double) -> Bool {
        var changed = false
        for (path, entry) in playing where entry.running {
            var entry = entry
            let next = entry.playback.shown + 1
            guard entry.playback.advance(at: now, ready: entry.ahead[next] != nil) else { continue }
            entry.current = entry.ahead.removeValue(forKey: next)
            playing[path] = entry
            changed = true
        }
        return changed
    }

    /// When the next decoded frame is due, the earliest over every running picture.
    var nextDue: Double? {
        playing.values.compactMap { entry in
            guard entry.running, entry.ahead[entry.playback.shown + 1] != nil else { return nil }
            return entry.playback.nextDue
        }.min()
    }
}
