// The benchmark command: `make bench`. Prints one line per figure,
// `name value unit`, measured in this run (ratios against a baseline timed in
// the same run, so a busy machine slows both sides alike).
import ArgumentParser
import CLinux
import ControlClient
import CTurboJPEG
import ImageCodecs
import KioskApp
import KioskCore
import KioskRendering
import LinuxPlatform
import SystemCalls
import TextRendering

#if canImport(Glibc)
import Glibc
#endif

@main
struct KioskdBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kioskd-bench",
        abstract: "Measure kioskd: decode and compose speed against their baselines, memory, missed frames, idle CPU, input to photon.",
        subcommands: [Figures.self, RegressionGuard.self, ComposeOnly.self, FirstPicture.self, DaemonMemory.self, StageProfile.self, GIFOnly.self, ZoomOnly.self, ZoomSharp.self, WorkerPriorities.self, Slides.self, Rest.self, ControlLoad.self, MQTTFigures.self, MQTTPhoton.self, InputLatency.self, FolderScale.self, RemoteLibraryFigures.self, CopyIn.self, WakeupsWhileOff.self, PresenceWake.self, WebPDecode.self, HEICDecode.self, AVIFDecode.self, VideoFigures.self, WebFigures.self],
        defaultSubcommand: Figures.self)
}

/// The settings of a headless show at 1920x1080 on `folder`, resting
/// `interval` seconds: no state written, no input devices, and a control
/// socket only where one is given (a kioskd running on this machine keeps its own).
func headlessShow(_ folder: String, interval: Double, socket: String? = nil) -> KioskSettings {
    var settings = KioskSettings()
    settings.stateDirectory = nil
    settings.images = folder
    settings.display.target = .headless
    // The in-process figures measure composition, every frame drawn, as they
    // always have: the headless screen would pan otherwise (a display with a
    // plane draws nothing for most frames of a slide; `pan_frame_cpu_ratio`).
    settings.display.panning = .off
    settings.motion.interval = interval
    settings.control.socket = socket
    settings.input.devices = []
    return settings
}

/// The slot the issue names: 70% of a 1920x1080 screen.
let slot = PixelSize(width: 1344, height: 1080)
let photoSize = PixelSize(width: 6000, height: 4000)   // 24 Mpx, 3:2 like most cameras

struct Figures: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "figures", abstract: "Print every figure (the default).")

    @Option(help: "Photos the running shows slide through.")
    var pictures = 1000

    @Option(help: "Where the generated photos are kept between runs.")
    var folder = ".build/bench-pictures"

    @Option(help: "Timed rounds for the decode figures (the median is printed).")
    var rounds = 9

    func run() throws {
        try decodeFigures(rounds: rounds)
        try stageProfile(rounds: rounds)
        try zoomFigures(folder: folder, rounds: rounds)
        composeFigures(rounds: rounds * 5)
        try gifFigures(folder: folder, rounds: rounds)
        fflush(nil)
        let dir = try generatePhotos(count: pictures, in: folder)
        let gif = try generateAnimatedGIF(in: folder)
        let heics = try showOf(try benchHEIC(in: folder), in: folder, named: "heics-20-v2")
        let avifs = try showOf(try benchAVIF(in: folder), in: folder, named: "avifs-20-v1")
        // Fresh processes, so each figure is the show's alone, not the generator's.
        for arguments in [["webp", "--folder", folder], ["heic", "--folder", folder], ["avif", "--folder", folder], ["slides", dir], ["slides", dir, "--one-core", "--suffix", "_one_core"], ["slides", dir, "--size", "3840x2160", "--suffix", "_4k"], ["slides", dir, "--text", "--suffix", "_with_text"], ["priorities", dir], ["first-picture"], ["daemon-rss", dir], ["daemon-rss", dir, "--all-features", try benchHEIC(in: folder)], ["daemon-rss", dir, "--gif", gif], ["daemon-rss", heics, "--figure", "heic_peak_rss_mb"], ["slides", heics, "--count", "40", "--suffix", "_heic"], ["daemon-rss", avifs, "--figure", "avif_peak_rss_mb"], ["rest", dir], ["control", dir], ["mqtt", dir], ["touch", dir], ["folder"], ["remote"], ["copy-in", dir], ["display-off", dir], ["display-off", dir, "--idle"], ["presence", dir], ["video", "--folder", folder], ["web", dir]] {
            fflush(nil)
            let status = waitForExit(spawnSelf(arguments))
            if status != 0 { throw ExitCode(status) }
        }
    }
}

/// The animated-GIF figures alone, and gif_peak_rss_mb: kioskd sliding
/// through 20 photos and the 500-frame 4K GIF.
struct GIFOnly: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "gif", abstract: "Print the animated-GIF figures.")
    @Option var pictures = 20
    @Option var folder = ".build/bench-pictures"
    @Option var rounds = 9

    func run() throws {
        try gifFigures(folder: folder, rounds: rounds)
        let dir = try generatePhotos(count: pictures, in: folder)
        fflush(nil)
        let status = waitForExit(spawnSelf(["daemon-rss", dir, "--gif", try generateAnimatedGIF(in: folder)]))
        if status != 0 { throw ExitCode(status) }
    }
}

struct ComposeOnly: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "compose", abstract: "Print the compose ratios (1080p, 4K, a portrait panel).")
    @Option var rounds = 45

    func run() { composeFigures(rounds: rounds) }
}

struct ZoomOnly: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "zoom", abstract: "Print zoom_region_decode_ms and zoom_sharp_ms.")
    @Option var folder = ".build/bench-pictures"
    @Option var rounds = 9

    func run() throws { try zoomFigures(folder: folder, rounds: rounds) }
}

/// The running show, headless at 1920x1080 (or `--size`) and 60 Hz, sliding
/// 100 times back to back (0.45 s slides, the shortest rest) through 24 Mpx
/// photos, so the decoder works on the next photo while frames are composed.
/// Prints the refreshes missed, and each frame's composition time (p50, p99,
/// max) as a share of the refresh period it must fit in
/// (`frame_time_p99_share`), with the median `memcpy` of one frame of that
/// size, timed in this process before and after the show, for reference.
struct Slides: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slides", abstract: "Run 100 slides headless and print dropped_frames and frame_time_p99_share.")

    @Argument var folder: String
    @Option var count = 100
    @Option(help: "The headless screen's size.")
    var size = "1920x1080"
    @Option(help: "Listen on this control socket (the control figures' load comes through it).")
    var socket: String?
    @Option(help: "Appended to the figures' names (dropped_frames_4k).")
    var suffix = ""
    @Flag(help: "Pin the whole process to one core first (a Pi Zero 2 W's share).")
    var oneCore = false
    @Option(help: "The decode worker's priority: normal, nice, batch or idle.")
    var workerPriority = WorkerPriority.batch
    @Flag(inversion: .prefixedNo, help: "Run the display loop at SCHED_FIFO 1 where allowed, as the daemon does.")
    var realTime = true
    @Option(help: "Join the MQTT broker on this loopback port as kioskd/load (the MQTT load figure's).")
    var mqttPort: Int?
    @Flag(help: "A caption on every picture, the clock and a message on screen (dropped_frames_with_text).")
    var text = false

    func run() throws {
        guard let screen = PixelSize(parsing: size) else { throw ValidationError("--size: expected WIDTHxHEIGHT, not \(size)") }
        if oneCore {
            // Before any thread exists: the show's threads inherit it.
            var core0: UInt = 1
            guard sched_setaffinity(0, MemoryLayout<UInt>.size, &core0) == 0 else { throw SystemCallError.last("sched_setaffinity") }
        }
        keepPictureBuffersOutOfTheHeap()
        let run = try SlideRun(
            folder: folder, count: count, screen: screen, socket: socket, workerPriority: workerPriority, realTime: realTime, mqttPort: mqttPort, text: text)
        let stats = run.statistics
        print("slides_run \(stats.slides) slides, \(stats.framesShown) frames at \(screen) in \(format(run.seconds)) s"
            + (run.stolenSeconds.map { "; the host took \(format($0 * 1000)) ms of this machine's CPUs meanwhile (steal)" } ?? ""))
        if stats.changesAnimated > 0 { print("changes_animated \(stats.changesAnimated) animations of pictures arriving on screen") }
        print("dropped_frames\(suffix) \(stats.refreshesMissed) frames")
        let times = stats.composeTime, copy = run.copySeconds
        guard let p50 = times.percentile(0.5), let p99 = times.percentile(0.99), let share = run.frameTimeP99Share else { return }
        let refresh = SlideRun.refreshPeriod
        print("frame_time_p99_share\(suffix) \(format(share)) of a refresh (p50 \(format(p50 / refresh)), max \(format(times.slowest / refresh)); "
            + "a refresh is \(format(refresh * 1000)) ms)")
        print("frame_time_ms\(suffix) p50 \(format(p50 * 1000)), p99 \(format(p99 * 1000)), max \(format(times.slowest * 1000)) ms "
            + "over \(times.count) frames; memcpy \(format(copy * 1000)) ms")
    }
}

/// One run of the `slides` scenario in this process, and the median
/// `memcpy` of one frame of its screen timed before and after it.
struct SlideRun {
    let statistics: ShowStatistics
    /// Seconds one `memcpy` of a frame takes (the median of 30).
    let copySeconds: Double
    let seconds: Double
    /// CPU time the hypervisor gave to others while the show ran, over all
    /// this machine's CPUs (`steal` in /proc/stat); nil where not counted.
    /// A frame missed under load on a virtual machine is often this: the
    /// display loop's vCPU was not running, with no work of its own late.
    let stolenSeconds: Double?

    init(folder: String, count: Int, screen: PixelSize, socket: String? = nil,
         workerPriority: WorkerPriority = .batch, realTime: Bool = true, mqttPort: Int? = nil, text: Bool = false) throws {
        let frameCopy = FrameCopy(screen)
        var copies = (0..<15).map { _ in frameCopy.timed() }
        // With text, a message is sent over a control socket of its own once the show is up.
        let socket = socket ?? (text ? "/tmp/kioskd-bench-text-\(getpid()).sock" : nil)
        var settings = headlessShow(folder, interval: 0.1, socket: socket)
        if text {
            settings.text.caption = try CaptionTemplate(parsing: "{file}\n{folder}, {date:%e %B %Y}")
            settings.text.clock = try StrftimePattern("%a %e %b  %H:%M")
            if let socket { sendWhenUp("message Closing in 15 minutes: please make your way to the exit", to: socket) }
        }
        if let mqttPort {
            settings.mqtt.broker = MQTTBroker(host: "127.0.0.1", port: mqttPort, usesTLS: false)
            settings.mqtt.name = "load"
        }
        settings.display.headlessSize = screen
        let start = ContinuousClock.now, stealAtStart = Self.cpuSteal()
        var job = DisplayJob(settings: settings, index: 0, log: { _ in })
        job.tuning.workerPriority = workerPriority
        job.tuning.realTimeDisplayLoop = realTime
        statistics = try job.run { $0.slides >= count && $0.atRest }
        seconds = (ContinuousClock.now - start) / .seconds(1)
        stolenSeconds = stealAtStart.flatMap { before in Self.cpuSteal().map { $0 - before } }
        copies += (0..<15).map { _ in frameCopy.timed() }
        copySeconds = median(copies) / 1000   // milliseconds to seconds, as the histogram's
    }

    /// Seconds of CPU stolen so far, all CPUs together: the eighth figure of /proc/stat's `cpu` line, in clock ticks.
    static func cpuSteal() -> Double? {
        guard let line = procFile("/proc/stat").split(separator: "\n").first(where: { $0.hasPrefix("cpu ") }) else { return nil }
        let figures = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard figures.count >= 8 else { return nil }
        return figures[7] / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The headless screen's refresh period: 60 Hz.
    static let refreshPeriod = 1.0 / 60

    /// `frame_time_p99_share`: the 99th percentile of the frames'
    /// composition times over the refresh period they must fit in. (It was
    /// over one `memcpy` of a frame, `frame_time_p99_ratio`, which lost its
    /// meaning where the memcpy stays in the cache: 0.13 ms for 1080p.)
    var frameTimeP99Share: Double? { statistics.composeTime.percentile(0.99).map { $0 / Self.refreshPeriod } }
}

/// The show at rest, headless, until SIGTERM: the parent measures its CPU time.
struct Rest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rest", abstract: "Measure idle_cpu_percent: the show resting on a picture for 10 s.")

    @Argument var folder: String
    @Flag(help: "Be the resting show (the child the measurement watches).") var child = false

    func run() throws {
        if child {
            blockDaemonSignals()
            keepPictureBuffersOutOfTheHeap()
            try DisplayJob(settings: headlessShow(folder, interval: 3600), index: 0, log: { _ in }).run()
            return
        }
        let pid = spawnSelf(["rest", folder, "--child"])
        // Let it start and decode the neighbourhood (about half a second), then measure.
        sleep(5)
        let before = cpuTicks(of: pid)
        let start = ContinuousClock.now
        sleep(10)
        let ticks = cpuTicks(of: pid) - before
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        kill(pid, SIGTERM)
        let status = waitForExit(pid)
        let percent = Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK))) / seconds * 100
        print("idle_cpu_percent \(format(percent)) % (\(ticks) ticks in \(format(seconds)) s)")
        if status != 0 { throw ExitCode(status) }
    }
}

/// User plus system CPU time of a process, in clock ticks (/proc/PID/stat
/// fields 14 and 15, counted after the parenthesised command name).
func cpuTicks(of pid: pid_t) -> Int {
    let text = procFile("/proc/\(pid)/stat")
    guard let close = text.lastIndex(of: ")") else { return 0 }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // fields[0] is field 3 (state): utime is field 14, stime 15.
    guard fields.count > 12 else { return 0 }
    return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
}

// MARK: - compose_ratio_vs_memcpy

/// What every compose ratio divides by: one `memcpy` of a whole frame
/// between two buffers allocated and touched once.
final class FrameCopy {
    private let bytes: Int
    private let source: UnsafeMutableRawPointer, target: UnsafeMutableRawPointer

    init(_ screen: PixelSize) {
        bytes = screen.pixelCount * 4
        source = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        target = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        memset(source, 0x5A, bytes)
        memset(target, 0, bytes)
    }

    deinit {
        source.deallocate()
        target.deallocate()
    }

    /// Seconds one copy takes.
    func timed() -> Double { try! time { memcpy(target, source, bytes) } }
}

/// A frame mid-slide (three to four partly visible pictures, each prescaled
/// to its slot as the show keeps them) against one `memcpy` of a whole frame
/// of the panel, both timed in this run. Composed the way the display does
/// it: into two alternating buffers that keep their last frame. The 1080p
/// frame, the 4K one, and a portrait kiosk: a 1920x1080 panel turned 90
/// degrees, the strip laid out at 1080x1920 and written straight to its
/// turned place.
func composeFigures(rounds: Int) {
    let ratio = composeRatio(screen: PixelSize(width: 1920, height: 1080), rotation: .none, rounds: max(rounds, 1000))
    print("compose_ratio_vs_memcpy \(format(ratio.compose)) x")
    print("compose_p99_ratio_alone \(format(ratio.p99)) x (the 1080p frame 1,000 times in a tight loop: the floor under a show's frame times on this machine)")
    print("compose_every_row_ratio_vs_memcpy \(format(ratio.everyRow)) x")
    print("compose_1080p_ms \(format(ratio.composeMs)) ms")
    print("memcpy_1080p_ms \(format(ratio.copyMs)) ms")
    let big = composeRatio(screen: PixelSize(width: 3840, height: 2160), rotation: .none, rounds: rounds)
    print("compose_ratio_vs_memcpy_4k \(format(big.compose)) x (\(format(big.composeMs)) ms against \(format(big.copyMs)) ms; every row \(format(big.everyRow)) x)")
    let turned = composeRatio(screen: PixelSize(width: 1080, height: 1920), rotation: .quarter, rounds: rounds)
    print("compose_ratio_rotated \(format(turned.compose)) x (\(format(turned.composeMs)) ms against \(format(turned.copyMs)) ms; every row \(format(turned.everyRow)) x)")
    // Software dimming (brightness below 100, no backlight): the same frames, each row composed in ordinary memory and written dimmed.
    let plain = composeRatio(screen: PixelSize(width: 1920, height: 1080), rotation: .none, rounds: rounds)
    let dimmed = composeRatio(screen: PixelSize(width: 1920, height: 1080), rotation: .none, rounds: rounds, brightness: 40)
    print("compose_dimmed_ratio_vs_plain \(format(dimmed.composeMs / plain.composeMs)) x (1080p at brightness 40: \(format(dimmed.composeMs)) ms "
        + "against \(format(plain.composeMs)) ms undimmed, the same run)")
    // Words on the screen: a two-line caption on each picture, the clock and a message, blended into the same frames.
    let words = ScreenWords(screen: PixelSize(width: 1920, height: 1080))
    let withText = composeRatio(screen: PixelSize(width: 1920, height: 1080), rotation: .none, rounds: max(rounds, 1000), words: words)
    print("compose_ratio_with_text \(format(withText.compose)) x (\(format(withText.composeMs)) ms against \(format(withText.copyMs)) ms: "
        + "a caption on each picture, the clock and a message)")
    print("caption_render_ms \(format(words.captionMilliseconds)) ms (a two-line caption shaped and drawn at 1080p, the median of \(words.rounds))")
}

/// The words of the text figures, drawn once as the show's worker draws
/// them: a two-line caption for each picture, the clock, a message; and
/// how long one caption takes to shape and draw.
struct ScreenWords {
    let caption: OverlayLayer
    let fixed: [PlacedOverlay]
    let captionMilliseconds: Double
    let rounds = 31

    init(screen: PixelSize) {
        let settings = TextSettings()
        let renderer = TextRenderer(fonts: try! FontLibrary(family: settings.font))
        let appearance = settings.captionAppearance(screenHeight: screen.height, pictureWidth: 1344)
        let words = "Harbour at dusk, from the old lighthouse\nLake Geneva, 12 May 2024"
        // The first draw opens the fonts; the figure is a caption's cost after that.
        _ = try! renderer.layer(for: words, appearance: appearance)
        var times: [Double] = []
        var layer: OverlayLayer?
        for round in 0..<rounds {
            times.append(try! time { layer = try! renderer.layer(for: words + " \(round)", appearance: appearance) })
        }
        caption = layer!
        captionMilliseconds = median(times)
        let clock = try! renderer.layer(for: "Wed 26 Nov  14:05", appearance: settings.clockAppearance(screen: screen))!
        let message = try! renderer.layer(for: "Closing in 15 minutes: please make your way to the exit", appearance: settings.messageAppearance(screen: screen))!
        let margin = settings.margin(screenHeight: screen.height)
        let corner = settings.clockCorner.origin(of: clock.size, on: screen, margin: margin)
        fixed = [PlacedOverlay(clock, x: corner.x, y: corner.y), PlacedOverlay(message, x: (screen.width - message.size.width) / 2, y: margin)]
    }
}

/// Sends `line` to the control socket at `path` once it answers (a thread of its own).
func sendWhenUp(_ line: String, to path: String) {
    try! startDetachedThread {
        for _ in 0..<500 {
            if let connection = try? ControlConnection(path: path), (try? connection.request(line)) != nil { return }
            usleep(20_000)
        }
    }
}

/// Medians of `rounds` frames early in a slide on `screen` (the strip's
/// size) turned by `rotation` onto the panel, over one `memcpy` of the panel.
/// `everyRow`: into a buffer of unknown contents, every pixel written.
/// `p99`: the 99th percentile of the frames over the median `memcpy`: the
/// same frame in a tight loop, nothing else running, which is this
/// machine's own jitter under a running show's frame times.
func composeRatio(
    screen: PixelSize, rotation: Rotation, rounds: Int, brightness: Int = 100, words: ScreenWords? = nil
) -> (compose: Double, everyRow: Double, composeMs: Double, copyMs: Double, p99: Double, fastest: Double) {
    let geometry = try! CarouselGeometry(screen: screen, settings: LayoutSettings())
    let renderer = FrameRenderer(compositor: StripCompositor(geometry: geometry, background: .black), rotation: rotation)
    // 3:2 photos fitted to the slot (1344x896 at 1080p), letterboxed as most are.
    let pictures = (0..<4).map { GeneratedPictures.photo(aspectFitSize(of: photoSize, in: geometry.slotSize), variant: $0) }
    let playlist = CircularIndex(count: pictures.count)
    var buffers = [RasterImage](repeating: RasterImage(size: renderer.panel, filledWith: .black), count: 2)
    var contents = [BufferContents(), BufferContents()]
    let frameCopy = FrameCopy(renderer.panel)
    // Early in a slide the centred picture, both neighbours and the one
    // coming in are partly visible: the most pictures a frame draws here.
    let first = 0.03, last = 0.15
    var compose: [Double] = [], full: [Double] = [], copy: [Double] = []
    for round in 0..<rounds {
        // Positions along a slide, as consecutive frames would have them.
        let position = first + (last - first) * Double(round) / Double(rounds)
        let back = round % 2
        compose.append(try! time {
            buffers[back].withSurface { surface in
                renderer.draw(
                    into: surface, position: position, playlist: playlist, brightness: brightness, overlays: words?.fixed ?? [],
                    caption: { _ in words?.caption }, contents: &contents[back]
                ) { pictures[$0] }
            }
        })
        full.append(try! time {
            buffers[back].withSurface { surface in
                renderer.draw(into: surface, position: position, playlist: playlist) { pictures[$0] }
            }
        })
        copy.append(frameCopy.timed())
    }
    let copyTime = median(copy)
    let p99 = compose.sorted()[compose.count * 99 / 100]
    return (median(compose) / copyTime, median(full) / copyTime, median(compose), copyTime, p99 / copyTime,
            compose.min()! / copy.min()!)
}

// MARK: - gif_frame_compose_ratio

/// The 500-frame 4K animated GIF of the memory figure (written once, frame
/// by frame: 16 colours in diagonal bands that move 8 px a frame, every
/// frame the whole screen).
func generateAnimatedGIF(in folder: String) throws -> String {
    let path = "\(folder)/animated-4k-500-v1.gif"
    if access(path, F_OK) == 0 { return path }
    mkdir(folder, 0o755)
    let start = ContinuousClock.now
    let size = PixelSize(width: 3840, height: 2160)
    let palette = (0..<16).map { (n: Int) -> RGBColor in
        let red = UInt8(n * 16), green = UInt8(255 - n * 16), blue = UInt8((n * 96) & 0xFF)
        return RGBColor(red: red, green: green, blue: blue)
    }
    let gif = GIFCodec.encode(width: size.width, height: size.height, palette: palette, frameCount: 500, loops: 0) { n in
        var indices = [UInt8](repeating: 0, count: size.pixelCount)
        for y in 0..<size.height {
            for x in 0..<size.width { indices[y * size.width + x] = UInt8(((x + y + 8 * n) / 64) % 16) }
        }
        return GIFCodec.Frame(indices: indices, delay: 4)
    }
    try writeWholeFile(path, bytes: gif)
    print("generated_gif 500 frames of \(size) (\(format(Double(gif.count) / 1_048_576)) MB) in \(format((ContinuousClock.now - start) / .seconds(1))) s")
    return path
}

/// Composing a frame whose centred slot shows an animated GIF's next frame
/// (each frame a new prescaled picture), early in a slide, against one
/// `memcpy` of the frame; and what a 4K GIF's frame costs the worker.
func gifFigures(folder: String, rounds: Int) throws {
    let gif = try generateAnimatedGIF(in: folder)
    let screen = PixelSize(width: 1920, height: 1080)
    let geometry = try CarouselGeometry(screen: screen, settings: LayoutSettings())
    let compositor = StripCompositor(geometry: geometry, background: .black)
    let options = DecodeOptions(background: .black)
    let animation = try GIFAnimation(
        path: gif, background: .black, fittedTo: geometry.slotSize, maximumPixels: options.maximumGIFPixels, maximumFileBytes: options.maximumFileBytes)
    var decode: [Double] = []
    var frames: [RasterImage] = []
    for _ in 0..<rounds {
        decode.append(try time { frames.append(try animation.decodeNext()) })
    }
    let stills = (0..<4).map { GeneratedPictures.photo(aspectFitSize(of: photoSize, in: geometry.slotSize), variant: $0) }
    let playlist = CircularIndex(count: stills.count)
    var buffers = [RasterImage](repeating: RasterImage(size: screen, filledWith: .black), count: 2)
    var contents = [BufferContents(), BufferContents()]
    let frameCopy = FrameCopy(screen)
    var compose: [Double] = [], copy: [Double] = []
    for round in 0..<rounds * 5 {
        let position = 0.03 + 0.12 * Double(round) / Double(rounds * 5)
        let back = round % 2
        let frame = frames[round % frames.count]
        compose.append(try time {
            buffers[back].withSurface { surface in
                compositor.compose(into: surface, position: position, playlist: playlist, contents: &contents[back]) {
                    $0 == 0 ? frame : stills[$0]
                }
            }
        })
        copy.append(frameCopy.timed())
    }
    print("gif_frame_compose_ratio \(format(median(compose) / median(copy))) x")
    print("gif_4k_frame_decode_ms \(format(median(decode))) ms (\(animation.screen) composed at \(animation.size), the worker's cost per frame)")
}

// MARK: - decode_ratio_vs_turbojpeg

func decodeFigures(rounds: Int) throws {
    let (upright, turned) = try benchJPEGs()
    print("jpeg_24mp_file_mb \(format(Double(upright.count) / 1_048_576)) MB")
    for (name, jpeg) in [("", upright), ("_exif6", turned)] {
        let decode = try DecodeRatio(jpeg, rounds: rounds)
        if name.isEmpty {
            print("decode_scale_factor \(decode.factor) (\(decode.factor.scaled(photoSize)) decoded, \(decode.fitted) shown)")
        }
        print("decode_ratio_vs_turbojpeg\(name) \(format(decode.ratio)) x")
        if name.isEmpty {
            let decoded = try JPEGCodec.decode(jpeg, path: "bench.jpg", minimumSize: decode.fitted, maximumPixels: 1 << 24)
            let resampling = try (0..<rounds).map { _ in try time { _ = resample(decoded, to: decode.fitted) } }
            print("resample_\(decoded.size)_to_\(decode.fitted)_ms \(format(median(resampling))) ms")
        }
        print("decode_24mp_to_slot_ms\(name) \(format(decode.pipelineMs)) ms")
        print("bare_tjdecompress2_ms\(name) \(format(decode.bareMs)) ms")
    }
}

/// The 24 Mpx photo as a JPEG, upright and as a phone held upright stores it (EXIF 6).
func benchJPEGs() throws -> (upright: [UInt8], turned: [UInt8]) {
    (try JPEGCodec.encode(GeneratedPictures.photo(photoSize), quality: 90),
     try GeneratedPictures.cameraJPEG(GeneratedPictures.photo(photoSize), orientation: 6, quality: 90))
}

/// `decode_ratio_vs_turbojpeg`: the whole pipeline for `jpeg` into the
/// 1344x1080 slot (header, EXIF, DCT-scaled decode, turn, resample) over a
/// bare `tjDecompress2` of the same file at the same scale, medians of `rounds`.
struct DecodeRatio {
    let factor: JPEGCodec.ScalingFactor
    let fitted: PixelSize
    let pipelineMs: Double
    let bareMs: Double
    var ratio: Double { pipelineMs / bareMs }

    init(_ jpeg: [UInt8], rounds: Int) throws {
        let loader = PictureLoader(background: .black)
        // The pipeline's own choice of DCT factor, so the baseline decodes the same pixels.
        let orientation = EXIFOrientation.read(jpeg)
        fitted = aspectFitSize(of: orientation.uprightSize(of: photoSize), in: slot)
        factor = JPEGCodec.scalingFactor(for: photoSize, atLeast: orientation.uprightSize(of: fitted))
        var bare: [Double] = [], pipeline: [Double] = []
        for _ in 0..<rounds {
            bare.append(try timeAfterSetUp { [factor] in try bareDecode(jpeg, factor: factor) })
            pipeline.append(try time { _ = try loader.load(bytes: jpeg, path: "bench.jpg", fittedTo: slot) })
        }
        pipelineMs = median(pipeline)
        bareMs = median(bare)
    }
}


/// `zoom_region_decode_ms`: the worker's part of a pinch's sharp picture
/// (`zoom_sharp_ms`, once the show draws it): a 24 Mpx photo in a
/// 1344x1080 slot zoomed 2x about its middle, its visible region cut from
/// the file, decoded and resampled to the window, the median of `rounds`;
/// then `zoom_sharp_ms` from a show (``ZoomSharp``).
func zoomFigures(folder: String, rounds: Int) throws {
    mkdir(folder, 0o755)
    let path = folder + "/zoom-24mp-v1.jpg"
    if access(path, F_OK) != 0 { try writeWholeFile(path, bytes: JPEGCodec.encode(GeneratedPictures.photo(photoSize), quality: 90)) }
    let window = slot
    let limits = PictureZoom.Limits(fitted: aspectFitSize(of: photoSize, in: window), original: photoSize, maximumZoom: 2)
    let view = PictureZoom.focused(on: (0.5, 0.5), scale: 2, limits: limits).view(in: window, limits: limits)
    let loader = PictureLoader(background: .black)
    let times = try (0..<rounds).map { _ in try time { _ = try loader.loadRegion(path, region: view.region, at: view.onScreen.size) } }
    print("zoom_region_decode_ms \(format(median(times))) ms (\(view.region.pixels(of: photoSize).size) of the photo to \(view.onScreen.size))")
    // How that splits: libjpeg's decode of the part alone (the rest: reading the file, cutting, resampling).
    let bytes = try readWholeFile(path, limit: 1 << 28)
    let rect = view.region.pixels(of: photoSize)
    let parts = try (0..<rounds).map { _ in
        try time { _ = try JPEGCodec.decodeRegion(bytes, path: path, rect: rect, minimumSize: view.onScreen.size, maximumPixels: 1 << 24) }
    }
    print("zoom_region_jpeg_ms \(format(median(parts))) ms of that: libjpeg decoding the part alone")
    // The whole path in a show: the pinch's lift to the sharp frame on screen.
    let show = folder + "/zoom-show"
    mkdir(show, 0o755)
    for name in ["1.jpg", "2.jpg"] where access(show + "/" + name, F_OK) != 0 { link(path, show + "/" + name) }
    fflush(nil)
    for hold in ["0.15", "0"] {
        let status = waitForExit(spawnSelf(["zoom-sharp", show, "--hold", hold]))
        if status != 0 { throw ExitCode(status) }
    }
}

/// Only `tjDecompress2` at `factor` into a buffer allocated beforehand.
func bareDecode(_ jpeg: [UInt8], factor: JPEGCodec.ScalingFactor) throws -> () throws -> Void {
    guard let handle = tjInitDecompress() else { throw ExitCode.failure }
    let size = factor.scaled(photoSize)
    var out = [UInt8](repeating: 0, count: size.pixelCount * 4)
    return {
        defer { tjDestroy(handle) }
        let status = out.withUnsafeMutableBytes {
            tjDecompress2(handle, jpeg, UInt(jpeg.count), $0.baseAddress!.assumingMemoryBound(to: UInt8.self),
                          Int32(size.width), Int32(size.width * 4), Int32(size.height), Int32(TJPF_BGRX.rawValue), 0)
        }
        guard status == 0 else { throw ExitCode.failure }
    }
}

/// Milliseconds taken by `body`.
func time(_ body: () throws -> Void) throws -> Double {
    let start = ContinuousClock.now
    try body()
    return (ContinuousClock.now - start) / .milliseconds(1)
}

/// Milliseconds taken by the closure `setUp` returns; the set-up is not timed.
func timeAfterSetUp(_ setUp: () throws -> (() throws -> Void)) throws -> Double {
    let body = try setUp()
    return try time(body)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func format(_ value: Double) -> String {
    let hundredths = Int((value * 100).rounded())
    let fraction = abs(hundredths % 100)
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}

// MARK: - peak_rss_mb

/// Writes `count` different 24 Mpx photos once; later runs reuse them.
func generatePhotos(count: Int, in folder: String) throws -> String {
    let dir = "\(folder)/photos-\(count)-v1"
    let done = dir + "/.complete"
    if access(done, F_OK) == 0 { return dir }
    mkdir(folder, 0o755)
    mkdir(dir, 0o755)
    let start = ContinuousClock.now
    for i in 0..<count {
        let name = "\(dir)/photo-\(String(repeating: "0", count: max(0, 4 - "\(i)".count)))\(i).jpg"
        if access(name, F_OK) == 0 { continue }
        try writeWholeFile(name, bytes: JPEGCodec.encode(GeneratedPictures.photo(photoSize, variant: i), quality: 90))
    }
    try writeWholeFile(done, bytes: [])
    print("generated_photos \(count) photos in \(format((ContinuousClock.now - start) / .seconds(1))) s")
    return dir
}

/// A file of /proc as text (its first 64 KiB; "" when it cannot be read):
/// one read, since /proc's files say they are empty to `fstat`.
/// The `kB` fields of /proc/PID/status (`VmRSS`, `VmHWM`).
func procStatus(_ pid: pid_t) -> [String: Int] {
    var fields: [String: Int] = [:]
    for line in procFile("/proc/\(pid)/status").split(separator: "\n") {
        let parts = line.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "\t" })
        if parts.count == 3, parts[2] == "kB", let value = Int(parts[1]) { fields[String(parts[0])] = value }
    }
    return fields
}

func procFile(_ path: String) -> String {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return "" }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 1 << 16)
    let n = read(fd, &bytes, bytes.count)
    return String(decoding: bytes.prefix(max(0, n)), as: UTF8.self)
}

/// A memory figure of this process from /proc/self/status, in KiB: `VmHWM`
/// (the peak resident set of this program, not counting whatever the
/// process was before exec) or `VmRSS` (now).
func residentKiB(_ field: String) -> Int {
    let line = procFile("/proc/self/status").split(separator: "\n").first { $0.hasPrefix(field + ":") }
    let fields = line?.split(whereSeparator: { $0 == " " || $0 == "\t" }) ?? []
    return fields.count > 1 ? Int(fields[1]) ?? 0 : 0
}

/// Starts this executable again with `arguments`, sharing stdout; returns its pid (-1 if it could not start).
func spawnSelf(_ arguments: [String]) -> pid_t {
    let path = "/proc/self/exe"
    let argv = (["kioskd-bench"] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, path, nil, nil, argv, environ) == 0 else { return -1 }
    return pid
}

/// Waits for a child; its exit status, or 128 + the signal that ended it.
func waitForExit(_ pid: pid_t) -> Int32 {
    guard pid > 0 else { return 127 }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}

extension WorkerPriority: ExpressibleByArgument {}

/// The decode worker's priority measured alone: the `dropped_frames`
/// scenario pinned to one core with the display loop at ordinary priority
/// (as on a kiosk without `LimitRTPRIO`), once per ``WorkerPriority``, at
/// 4K and 30 slides (about 20 s each). At 1080p a frame is too short for
/// the worker to take the core from it, and every priority gave 0; at 4K
/// a frame takes about 6 ms, and a worker at ordinary priority does.
struct WorkerPriorities: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "priorities", abstract: "Print dropped_frames_one_core for each decode worker priority, the display loop at ordinary priority.")

    @Argument var folder: String
    @Option(help: "The headless screen's size: 4K, so that a frame (about 6 ms) is long enough for the worker to take the core from it.")
    var size = "3840x2160"
    @Option var count = 30

    func run() throws {
        for priority in WorkerPriority.allCases {
            fflush(nil)
            let status = waitForExit(spawnSelf([
                "slides", folder, "--one-core", "--no-real-time", "--worker-priority", priority.rawValue, "--size", size, "--count", "\(count)",
                "--suffix", "_one_core_ordinary_loop_\(priority.rawValue)_worker",
            ]))
            if status != 0 { throw ExitCode(status) }
        }
    }
}

// MARK: - The new formats' decode ratios

/// An iPhone's photo: 12 Mpx, 4:3.
let heicPhotoSize = PixelSize(width: 4032, height: 3024)

/// The bench's HEIC, made once under `folder`: ``heicPhotoSize`` as an
/// iPhone stores it, a grid of 512x512 HEVC tiles (``HEIFGridWriter``,
/// x265 at quality 85).
func benchHEIC(in folder: String) throws -> String {
    mkdir(folder, 0o755)
    let path = "\(folder)/photo-\(heicPhotoSize)-grid-v1.heic"
    if access(path, F_OK) != 0 {
        try writeWholeFile(path, bytes: try HEIFGridWriter.encode(GeneratedPictures.photo(heicPhotoSize), quality: 85))
    }
    return path
}

/// A 4K photo as an AVIF: 10-bit 4:2:0, as phones and browsers save them.
let avifPhotoSize = PixelSize(width: 3840, height: 2160)

/// The bench's AVIF (``avifPhotoSize``, by avifenc), made once under `folder`.
func benchAVIF(in folder: String) throws -> String {
    try benchPhoto(avifPhotoSize, in: folder, as: "avif", by: "avifenc", ["-s", "8", "-j", "2", "-d", "10", "-y", "420", "--min", "20", "--max", "30"])
}

/// A folder of 20 names for the one photo at `photo` (hard links), for
/// the running show's figures on a format (`heic_peak_rss_mb`,
/// `dropped_frames_heic`, `avif_peak_rss_mb`): each name a picture of its
/// own, decoded anew each time it comes.
func showOf(_ photo: String, in folder: String, named name: String) throws -> String {
    let dir = "\(folder)/\(name)"
    let suffix = photo.split(separator: ".").last.map(String.init) ?? "jpg"
    mkdir(dir, 0o755)
    for i in 0..<20 {
        let name = "\(dir)/photo-\(i < 10 ? "0" : "")\(i).\(suffix)"
        if access(name, F_OK) != 0, link(photo, name) != 0 { throw SystemCallError.last("link \(name)") }
    }
    return dir
}

/// A generated photo of `size` encoded by `tool` (`arguments`, then the
/// PNG it reads and `-o` the file it writes), made once under `folder`
/// and kept: the `webp` and `heic` figures' files.
func benchPhoto(_ size: PixelSize, in folder: String, as suffix: String, by tool: String, _ arguments: [String]) throws -> String {
    mkdir(folder, 0o755)
    let path = "\(folder)/photo-\(size)-v1.\(suffix)"
    if access(path, F_OK) == 0 { return path }
    let source = path + ".png"
    try writeWholeFile(source, bytes: PNGCodec.encode(GeneratedPictures.photo(size)))
    defer { unlink(source) }
    // The tool's chatter (avifenc reports every setting) stays out of the figures.
    guard let pid = spawnQuietly(tool, [tool] + arguments + [source, "-o", path], silencing: 1), waitForExit(pid) == 0 else {
        throw ValidationError("\(tool) failed: install the test tools (scripts/install-deps --vm)")
    }
    return path
}

/// Starts `program` (looked up in `PATH` unless it is a path) with
/// `arguments` (the first its name), its descriptor `silencing` (1: its
/// output, 2: its log) going to /dev/null, or to the file `into` (made
/// anew); nil when it cannot be started.
func spawnQuietly(_ program: String, _ arguments: [String], silencing descriptor: Int32, into file: String = "/dev/null") -> pid_t? {
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var quiet = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&quiet)
    defer { posix_spawn_file_actions_destroy(&quiet) }
    posix_spawn_file_actions_addopen(&quiet, descriptor, file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    var pid: pid_t = 0
    return posix_spawnp(&pid, program, &quiet, nil, argv, environ) == 0 ? pid : nil
}

/// The medians of `rounds` timings of kioskd's pipeline and of the bare library, alternated.
func pipelineAgainstBare(rounds: Int, pipeline: () throws -> Void, bare: () throws -> Void) throws -> (pipelineMs: Double, bareMs: Double) {
    var bareTimes: [Double] = [], pipelineTimes: [Double] = []
    for _ in 0..<rounds {
        bareTimes.append(try time(bare))
        pipelineTimes.append(try time(pipeline))
    }
    return (median(pipelineTimes), median(bareTimes))
}
