import ArgumentParser
import ImageCodecs
import KioskCore

#if canImport(Glibc)
import Glibc
#endif

/// The video figures (issue 48), on the release `kioskd` beside this
/// program, headless at 1920x1080 and 60 Hz, from its own exit line (the
/// clip frames it showed and dropped, when each clip's first frame came,
/// how long its frames took to compose) and /proc. The clips are made once
/// by `ffmpeg` from its moving test pattern (`testsrc2`), kept under `folder`.
///
/// - `video_dropped_frames_1080p30`, `video_peak_rss_mb`,
///   `frame_time_p99_share_video` and `video_frame_ratio_vs_ffmpeg`: a
///   60 s 1080p30 H.264 clip alone in the folder, looping, for 60 s. The
///   ratio divides kioskd's CPU time (user + system, the whole process,
///   its start included) per frame shown by `ffmpeg -threads N -f null`'s
///   per frame decoded, N being kioskd's decoder threads, in the same run.
/// - `video_4k_peak_rss_mb`: a 20 s 4K 10-bit HEVC clip the same way.
/// - `video_start_ms`: the 1080p clip between two 24 Mpx photos, 2 s rests
///   and `video_max = "3s"`, for 40 s: from the strip coming to rest on
///   the clip to its first frame on screen, the median of the starts (the
///   slowest beside it).
struct VideoFigures: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video", abstract: "Print the video clip figures: dropped frames, CPU against ffmpeg, start, memory.")

    @Option(help: "Where the clips are kept between runs.")
    var folder = ".build/bench-pictures"
    @Option var seconds = 60.0

    /// A clip alone in the folder, playing on and on.
    static let looping = "interval = 600\nvideo_repeat = \"loop\"\nvideo_max = \"10m\"\n"

    /// kioskd's decoder threads (``ClipStreams``): the cores, at most 4.
    var threads: Int { max(1, min(4, sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }

    func run() throws {
        let clip = try benchClip(
            "h264-1080p30-60s-v1.mp4", ["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=30:d=60", "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"])
        let clip4K = try benchClip(
            "hevc10-2160p30-20s-v1.mp4",
            ["-f", "lavfi", "-i", "testsrc2=s=3840x2160:r=30:d=20", "-c:v", "libx265", "-preset", "ultrafast", "-pix_fmt", "yuv420p10le",
             "-tag:v", "hvc1", "-x265-params", "log-level=error"])

        let alone = try show(named: "video-1080p", of: [clip])
        let played = try runKioskd(on: alone, config: Self.looping, seconds: seconds)
        let clips = try played.clipLine()
        print("video_dropped_frames_1080p30 \(clips.dropped) (of \(clips.shown + clips.dropped) frames of a 1080p30 H.264 clip in \(format(seconds)) s, software decoding on \(threads) threads, 1920x1080 screen)")
        print("video_peak_rss_mb \(format(Double(played.peakKiB) / 1024)) MB (kioskd itself playing it; at the end \(format(Double(played.anonymousKiB) / 1024)) MB "
            + "anonymous, \(format(Double(played.filesKiB) / 1024)) MB of mapped files; target: peak_rss_mb + 40)")
        if let p99 = clips.composeP99 {
            print("frame_time_p99_share_video \(format(p99 / (1.0 / 60))) of a refresh (\(format(p99 * 1000)) ms at p99 over \(clips.composed) frames composed while the clip played)")
        }
        let reference = try ffmpegCPU(clip, frames: 1800, threads: threads)
        let kioskdPerFrame = played.cpuSeconds / Double(max(1, clips.shown))
        print("video_frame_ratio_vs_ffmpeg \(format(kioskdPerFrame / reference.perFrame)) (kioskd \(format(kioskdPerFrame * 1000)) ms of CPU per frame shown, "
            + "decode, convert and compose; ffmpeg -threads \(threads) -f null \(format(reference.perFrame * 1000)) ms per frame over \(reference.frames))")

        let fourK = try runKioskd(on: try show(named: "video-2160p-hevc10", of: [clip4K]), config: Self.looping, seconds: 20)
        // The decoder's frames at 4K, 10 bits stored in 16: 3840x2160 luma and half as much chroma, 2 bytes each.
        let frameMB = Double(3840 * 2160 * 3) / 1_048_576
        let references = 6 + threads
        print("video_4k_peak_rss_mb \(format(Double(fourK.peakKiB) / 1024)) MB (a 4K 10-bit HEVC clip, \(try fourK.clipLine().dropped) frames dropped; its decoder's reference frames: up to "
            + "\(references) (HEVC's largest picture buffer at 4K, 6, and one per decoder thread) x \(format(frameMB)) MB = \(format(Double(references) * frameMB)) MB; "
            + "target: peak_rss_mb + 40 + that)")

        let photos = try generatePhotos(count: 2, in: folder)
        let between = try show(named: "video-start", of: [clip, photos + "/photo-0000.jpg", photos + "/photo-0001.jpg"])
        let starts = try runKioskd(on: between, config: "interval = 2\nvideo_max = \"3s\"\n", seconds: 40).clipLine()
        guard let median = starts.startMedian else { throw ValidationError("no clip started in 40 s") }
        print("video_start_ms \(format(median * 1000)) ms (median of \(starts.starts) starts, slowest \(format(starts.startSlowest * 1000)) ms: "
            + "from the strip at rest on the 1080p clip to its first frame on screen, beside two 24 Mpx photos)")
    }

    /// The clip `name` made by ffmpeg from `input` once under `folder`.
    func benchClip(_ name: String, _ arguments: [String]) throws -> String {
        mkdir(folder, 0o755)
        let path = "\(folder)/\(name)"
        if access(path, F_OK) == 0 { return path }
        guard let pid = spawnQuietly("ffmpeg", ["ffmpeg", "-y", "-loglevel", "error"] + arguments + [path + ".part.mp4"], silencing: 1),
              waitForExit(pid) == 0, rename(path + ".part.mp4", path) == 0
        else { throw ValidationError("ffmpeg could not make \(name): install it (scripts/install-deps --vm)") }
        return path
    }

    /// A folder `name` under `folder` of links to `files`, in that order.
    func show(named name: String, of files: [String]) throws -> String {
        let dir = "\(folder)/\(name)"
        mkdir(dir, 0o755)
        for (n, file) in files.enumerated() {
            let link = "\(dir)/\(n)-\(file.split(separator: "/").last!)"
            if access(link, F_OK) != 0, symlink(file.hasPrefix("/") ? file : cwd() + "/" + file, link) != 0 {
                throw ValidationError("cannot link \(link)")
            }
        }
        return dir
    }

    func cwd() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        return getcwd(&buffer, buffer.count).map { String(cString: $0) } ?? "."
    }

    /// What a run of kioskd left: its peak resident set, its CPU time, and its log.
    struct Run {
        var peakKiB: Int
        /// Resident at the end: anonymous memory, and mapped files (code: FFmpeg's libraries and the codecs').
        var anonymousKiB = 0, filesKiB = 0
        var cpuSeconds: Double
        var log: String

        /// The exit line's clip figures.
        struct Clips {
            var shown = 0, dropped = 0
            var startMedian: Double?
            var startSlowest = 0.0
            var starts = 0
            var composeP99: Double?
            var composed = 0
        }

        func clipLine() throws -> Clips {
            guard let line = log.split(separator: "\n").last(where: { $0.contains("stopping") }),
                  let clips = line.range(of: "; clips: ") else { throw ValidationError("kioskd played no clip:\n\(log)") }
            let words = line[clips.upperBound...].split(whereSeparator: { " (),;".contains($0) })
            func number(before word: String, after start: Int = 0) -> Double? {
                guard let at = words.indices.dropFirst(start).first(where: { $0 > 0 && words[$0] == word }) else { return nil }
                return Double(words[at - 1])
            }
            var result = Clips()
            result.shown = Int(number(before: "frame") ?? 0)
            result.dropped = Int(number(before: "dropped") ?? 0)
            if let after = words.firstIndex(of: "after") {
                result.startMedian = Double(words[after - 2]).map { $0 / 1000 }
                if let slowest = words.firstIndex(of: "slowest") { result.startSlowest = (Double(words[slowest + 1]) ?? 0) / 1000 }
                result.starts = Int(number(before: "start") ?? 0)
            }
            if let at = words.firstIndex(of: "p99") {
                result.composeP99 = Double(words[at - 3]).map { $0 / 1000 }
                result.composed = Int(words[at + 2]) ?? 0
            }
            return result
        }
    }

    /// kioskd headless on `show` with `config`, for `seconds`; then its
    /// peak resident set and CPU time from /proc, and SIGTERM (its exit line).
    func runKioskd(on show: String, config: String, seconds: Double) throws -> Run {
        let exe = procLink("/proc/self/exe")
        let kioskd = String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)]) + "/kioskd"
        guard access(kioskd, X_OK) == 0 else { throw ValidationError("no \(kioskd): build it with `swift build -c release --product kioskd`") }
        let configFile = show + ".toml", logFile = show + ".log"
        try writeWholeFile(configFile, bytes: Array(config.utf8))
        guard let pid = spawnQuietly(
            kioskd, ["kioskd", "show", "--display", "headless", "--images", show, "--config", configFile,
                     "--socket", "none", "--state-dir", "none", "--index", "0"],
            silencing: 2, into: logFile)
        else { throw ExitCode(127) }
        usleep(UInt32(seconds * 1_000_000))
        let status = procFile("/proc/\(pid)/status")
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first }.flatMap { Int($0) }
        }
        let peak = field("VmHWM")
        let ticks = cpuTicks(of: pid)
        kill(pid, SIGTERM)
        let exit = waitForExit(pid)
        let log = procFile(logFile)
        guard exit == 0, let peak else { throw ValidationError("kioskd ended with status \(exit):\n\(log)") }
        return Run(
            peakKiB: peak, anonymousKiB: field("RssAnon") ?? 0, filesKiB: field("RssFile") ?? 0,
            cpuSeconds: Double(ticks) / Double(sysconf(Int32(_SC_CLK_TCK))), log: log)
    }

    /// `ffmpeg -threads N -i clip -f null -`: its CPU time (user + system) per frame decoded (the clip has `frames`).
    func ffmpegCPU(_ clip: String, frames: Int, threads: Int) throws -> (perFrame: Double, frames: Int) {
        guard let pid = spawnQuietly("ffmpeg", ["ffmpeg", "-nostdin", "-loglevel", "error", "-threads", "\(threads)", "-i", clip, "-f", "null", "-"], silencing: 1)
        else { throw ExitCode(127) }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid, status == 0 else { throw ValidationError("ffmpeg could not decode \(clip)") }
        let seconds = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return (seconds / Double(frames), frames)
    }

    func procLink(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        return n > 0 ? String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    }
}
