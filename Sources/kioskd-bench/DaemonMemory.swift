import ArgumentParser
import BrokerSupport
import KioskCore

#if canImport(Glibc)
import Glibc
#endif

/// `peak_rss_mb`, measured on kioskd itself: the release `kioskd` beside
/// this program (`make bench` builds it), headless at 1920x1080, sliding
/// through the 24 Mpx photos back to back (0.1 s rests, 0.45 s slides: a
/// new photo decoded about every half second) for `seconds`; then its
/// `VmHWM` from /proc, before SIGTERM. Nothing else shares the process:
/// no benchmark code, no Foundation. The kioskd measured is built as
/// `make install` builds it, with Swift's runtime linked in statically.
///
/// With `--figure heic_peak_rss_mb` or `avif_peak_rss_mb`, the same on a
/// folder of 12 Mpx grid HEICs or 4K AVIFs (``showOf(_:in:named:)``), each
/// decoded whole to its planes.
///
/// With `--gif`, `gif_peak_rss_mb` instead: the animated GIF playing in
/// the centre for `seconds` (it loops for ever), beside four of the photos,
/// which the show holds decoded meanwhile.
///
/// With `--all-features HEIC`, `peak_rss_mb_all_features`: every optional
/// part on at once, as a kiosk with everything configured runs: the photos
/// with a HEIC (the file given, 12 Mpx as an iPhone's) after every fourth,
/// a two-line caption and a clock, and MQTT joined to a real mosquitto on
/// loopback with Home Assistant's discovery. Beside it,
/// `peak_rss_floor_mb_all_features`: the same floor with the text's layers.
struct DaemonMemory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "daemon-rss", abstract: "Print peak_rss_mb: the real kioskd sliding through the photos.")

    @Argument var folder: String
    @Option var seconds = 60.0
    @Option(help: "An animated GIF to play in the centre instead (gif_peak_rss_mb).")
    var gif: String?
    @Option(help: "The figure's name: heic_peak_rss_mb or avif_peak_rss_mb for a folder of HEICs or AVIFs.")
    var figure = "peak_rss_mb"
    @Option(help: "Every feature on, with this HEIC among the photos (peak_rss_mb_all_features).")
    var allFeatures: String?

    func run() throws {
        var folder = folder, interval = "0.1", name = figure, what = "sliding through \(folder)"
        if let gif {
            let show = folder + "-with-gif"
            mkdir(show, 0o755)
            for n in 0..<4 { link(folder + "/photo-000\(n).jpg", show + "/photo-000\(n).jpg") }
            link(gif, show + "/0-animated.gif")   // first by name: centred at --index 0
            (folder, interval, name, what) = (show, "600", "gif_peak_rss_mb", "playing \(gif) beside four photos")
        }
        var more: [String] = []
        var broker: TestBroker?
        if let heic = allFeatures {
            let show = folder + "-all-features"
            mkdir(show, 0o755)
            for n in 0..<20 {
                let name = String(n < 10 ? "0\(n)" : "\(n)")
                _ = n % 4 == 3 ? link(heic, show + "/photo-\(name).heic") : link(folder + "/photo-00\(name).jpg", show + "/photo-\(name).jpg")
            }
            broker = try TestBroker()
            more = ["--caption", "{file}\n{date:%e %B %Y}", "--clock", "%a %e %b  %H:%M",
                    "--mqtt-broker", "mqtt://127.0.0.1:\(broker!.port)", "--mqtt-name", "rss"]
            (folder, name, what) = (show, "peak_rss_mb_all_features", "sliding through \(show) with captions, a clock, MQTT and HEICs")
        }
        defer { broker?.stop() }
        let exe = try readLink("/proc/self/exe")
        let kioskd = String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)]) + "/kioskd"
        guard access(kioskd, X_OK) == 0 else { throw ValidationError("no \(kioskd): build it with `swift build -c release --product kioskd`") }
        let arguments = ["kioskd", "show", "--display", "headless", "--images", folder, "--interval", interval,
                         "--socket", "none", "--state-dir", "none", "--index", "0"] + more
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, kioskd, nil, nil, argv, environ) == 0 else { throw ExitCode(127) }
        usleep(UInt32(seconds * 1_000_000))
        let status = procStatus(pid)
        kill(pid, SIGTERM)
        let exit = waitForExit(pid)
        guard let peak = status["VmHWM"], let now = status["VmRSS"] else { throw ValidationError("kioskd ended early (status \(exit))") }
        print("\(name) \(format(Double(peak) / 1024)) MB (kioskd itself after \(format(seconds)) s \(what); \(format(Double(now) / 1024)) MB resident at the end)")
        if name == "peak_rss_mb" { try printFloor() }
        if allFeatures != nil { try printFloor(withText: true) }
        if exit != 0 { throw ExitCode(exit) }
    }

    /// `peak_rss_floor_mb`: what the pictures alone must cost, computed (the
    /// target is this plus 14 MB of code, runtime and decoding): the two
    /// buffers kioskd flips between, and the pictures its neighbourhood
    /// holds at rest (``PreloadPlan``: those on screen, one ahead, one
    /// behind), each a photo fitted to the default layout's slot. With
    /// panning (the headless screen pans, as a display with a plane does)
    /// each buffer grows to a slide's long buffer (``PannedStrip``: the
    /// screen, one pitch and the margins); `peak_rss_floor_mb_composed`
    /// beside it is the floor with `panning = off`, screen-sized buffers.
    ///
    /// `withText`: `peak_rss_floor_mb_all_features`, with the layers the text
    /// holds: a two-line caption over each held picture (two lines of 27 px
    /// at 20 pt, with their spacing and outline about 70 px, at most as wide
    /// as the slot) and the clock, drawn for this minute and the next.
    private func printFloor(withText: Bool = false) throws {
        let screen = PixelSize(width: 1920, height: 1080)
        let geometry = try CarouselGeometry(screen: screen, settings: LayoutSettings())
        let held = PreloadPlan().items(geometry, at: 0, travelling: .forward, towards: nil, playlist: CircularIndex(count: 1000)).count
        let fitted = aspectFitSize(of: photoSize, in: geometry.slotSize)
        var bytes = 2 * screen.pixelCount * 4 + held * fitted.pixelCount * 4
        guard withText else {
            // PannedStrip for a slide of one picture: always some length at most the largest buffer.
            let long = PannedStrip(geometry: geometry, covering: 0...1, maximumLength: .max)!.length
            let panned = bytes + 2 * (long - screen.width) * screen.height * 4
            print("peak_rss_floor_mb \(format(Double(panned) / 1_048_576)) MB (two \(long)x\(screen.height) buffers, long enough to pan a slide, "
                + "and \(held) pictures of \(fitted); target peak_rss_mb <= floor + 14)")
            print("peak_rss_floor_mb_composed \(format(Double(bytes) / 1_048_576)) MB (panning = off: two \(screen) screen buffers; "
                + "panning adds \(format(Double(panned - bytes) / 1_048_576)) MB)")
            return
        }
        bytes += held * geometry.slotSize.width * 70 * 4 + 2 * 400 * 40 * 4
        // The clock on screen is a fixed overlay: every frame is composed, the buffers stay the screen's size.
        print("peak_rss_floor_mb_all_features \(format(Double(bytes) / 1_048_576)) MB (two \(screen) screen buffers (the clock: frames composed), "
            + "the pictures, \(held) captions and two clock layers)")
    }

    private func readLink(_ path: String) throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { throw ExitCode(1) }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
