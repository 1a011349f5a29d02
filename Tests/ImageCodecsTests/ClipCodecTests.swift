import Foundation
import ImageCodecs
import KioskCore
import KioskRendering
import SystemCalls
import TestSupport
import Testing

/// Video clips made here with the `ffmpeg` tool, shown by kioskd as their
/// first frame (the poster), checked against ffmpeg's own decode of that
/// frame (turned as ffmpeg turns it, 8-bit RGB) through kioskd's PNG path
/// and fitting.
@Suite struct ClipCodecTests {
    let loader = PictureLoader(background: RGBColor(xrgb: 0x204060))

    /// Runs ffmpeg quietly; false when it fails (an option this version does not have).
    @discardableResult
    static func ffmpeg(_ arguments: [String]) throws -> Bool {
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        tool.arguments = ["-y", "-hide_banner", "-loglevel", "error"] + arguments
        tool.standardOutput = FileHandle.nullDevice
        tool.standardError = FileHandle.nullDevice
        try tool.run()
        tool.waitUntilExit()
        return tool.terminationStatus == 0
    }

    /// A clip of `frames` frames at 10 a second, each a different generated
    /// photo of `size`, encoded with `codec` (ffmpeg's output options);
    /// returns its path.
    static func clip(
        _ codec: [String], size: PixelSize, frames: Int = 3, name: String, in folder: ScratchFolder, input: [String] = []
    ) throws -> String {
        for n in 0..<frames {
            try folder.write(String(format: "\(name)-%03d.png", n), PNGCodec.encode(GeneratedPictures.photo(size, variant: 5 + n)))
        }
        let path = folder.path + "/" + name
        let made = try ffmpeg(input + ["-framerate", "10", "-i", folder.path + "/\(name)-%03d.png"] + codec + [path])
        try #require(made, "ffmpeg \(codec.joined(separator: " ")) \(name)")
        return path
    }

    /// ffmpeg's decode of frame `n` of `path` (turned upright, as 8-bit RGB), through kioskd's PNG path.
    func reference(_ path: String, frame n: Int = 0, fittedTo slot: PixelSize) throws -> RasterImage {
        let png = path + ".frame\(n).png"
        try #require(try Self.ffmpeg(["-i", path, "-vf", "select=eq(n\\,\(n))", "-frames:v", "1", "-pix_fmt", "rgb24", png]))
        return try loader.load(png, fittedTo: slot)
    }

    /// Each codec kioskd plays, 8- and 10-bit, odd sizes among them: the
    /// poster is the first frame as ffmpeg decodes it, within a mean of 1.5
    /// levels, both reduced to a smaller slot and at the clip's own size;
    /// and it is the first frame, not the second.
    @Test(arguments: [
        ("h264-420.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "10"], PixelSize(width: 320, height: 180), "H.264", 8),
        ("h264-444.mkv", ["-c:v", "libx264", "-pix_fmt", "yuv444p", "-crf", "10"], PixelSize(width: 321, height: 179), "H.264", 8),
        ("hevc-10.mov", ["-c:v", "libx265", "-tag:v", "hvc1", "-pix_fmt", "yuv420p10le", "-crf", "10", "-x265-params", "log-level=error"],
         PixelSize(width: 322, height: 180), "HEVC", 10),
        ("vp9.webm", ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p", "-crf", "10", "-b:v", "0"], PixelSize(width: 321, height: 179), "VP9", 8),
        ("vp9-10.webm", ["-c:v", "libvpx-vp9", "-pix_fmt", "yuv420p10le", "-crf", "10", "-b:v", "0"], PixelSize(width: 320, height: 180), "VP9", 10),
        ("av1.mkv", ["-c:v", "libaom-av1", "-cpu-used", "8", "-crf", "10", "-pix_fmt", "yuv420p"], PixelSize(width: 321, height: 179), "AV1", 8),
        ("av1-10.mp4", ["-c:v", "libaom-av1", "-cpu-used", "8", "-crf", "10", "-pix_fmt", "yuv420p10le"], PixelSize(width: 320, height: 180), "AV1", 10),
    ])
    func thePosterIsTheFirstFrameAsFFmpegDecodesIt(name: String, codec: [String], size: PixelSize, codecName: String, depth: Int) throws {
        let folder = try ScratchFolder()
        let path = try Self.clip(codec, size: size, name: name, in: folder)
        for slot in [PixelSize(width: 160, height: 120), size] {
            let shown = try loader.loadPicture(path, fittedTo: slot)
            let fitted = aspectFitSize(of: size, in: slot)
            #expect(shown.picture.size == fitted && shown.info.originalSize == size && shown.info.format == "video clip")
            let clip = try #require(shown.info.clip)
            #expect(clip.codec == codecName && clip.size == size && clip.depth == depth, "\(clip)")
            #expect(clip.framesPerSecond == 10 && abs((clip.length ?? 0) - 0.3) < 0.02, "\(clip)")
            // Reduced by a whole factor, libyuv's box filter (kioskd's for
            // video-coded pictures) and the resampler of RGB pictures average
            // the same pixels; by a fraction, the box filter's bounds fall on
            // whole pixels: 2.0 to 2.1 levels apart at 322x180 to 160x89.
            let whole = size.width % fitted.width == 0 && size.height % fitted.height == 0
            let first = channelDifferences(shown.picture, try reference(path, fittedTo: slot))
            #expect(first.mean <= (whole ? 1.5 : 2.5), "\(name) at \(slot): mean \(first.mean), worst \(first.worst) levels")
            let second = channelDifferences(shown.picture, try reference(path, frame: 1, fittedTo: slot))
            #expect(second.mean > 10, "\(name): not the second frame (mean \(second.mean))")
        }
    }

    /// A phone's clip held upright: stored on its side, with a display
    /// matrix saying a quarter turn. Shown turned, as ffmpeg turns it.
    @Test func aPhonesTurnIsApplied() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 320, height: 180)
        let codec = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "10"]
        let stored = try Self.clip(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-crf", "10"], size: size, name: "stored.mp4", in: folder)
        let path = folder.path + "/turned.mp4"
        // The matrix is written by copying the stream: FFmpeg 6 and later
        // take -display_rotation, 5.1 the `rotate` tag.
        if try !Self.ffmpeg(["-display_rotation", "90", "-i", stored, "-c", "copy", path]) {
            try #require(try Self.ffmpeg(["-i", stored, "-c", "copy", "-metadata:s:v:0", "rotate=90", path]))
        }
        let slot = PixelSize(width: 90, height: 160)
        let shown = try loader.loadPicture(path, fittedTo: slot)
        #expect(shown.info.originalSize == PixelSize(width: 180, height: 320) && shown.picture.size == aspectFitSize(of: PixelSize(width: 180, height: 320), in: slot))
        let upright = channelDifferences(shown.picture, try reference(path, fittedTo: slot))
        #expect(upright.mean <= 1.5, "mean \(upright.mean), worst \(upright.worst) levels")
        #expect(try loader.uprightSize(of: path) == PixelSize(width: 180, height: 320), "the portrait pairs' size, from the header")
    }

    /// Recognised by content: a clip named .jpg is a clip, and its header
    /// (`moov` at the end, as ffmpeg writes it) gives its size.
    @Test func aClipIsRecognisedByItsContentNotItsName() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 320, height: 180)
        let clip = try Self.clip(["-c:v", "libx264", "-pix_fmt", "yuv420p"], size: size, name: "clip.mp4", in: folder)
        let renamed = folder.path + "/clip.jpg"
        try FileManager.default.moveItem(atPath: clip, toPath: renamed)
        #expect(try loader.loadPicture(renamed, fittedTo: size).info.clip?.codec == "H.264")
        #expect(try loader.uprightSize(of: renamed) == size)
        #expect(PictureCodecs.codec(sniffing: try readFileStart(renamed, count: PictureCodecs.sniffLength))?.name == ClipCodec.name)
    }

    /// The heads of clips, and of stills in the same boxes, each to its codec.
    @Test func clipsAreToldFromHEIFAndAVIFByTheirBrand() {
        func head(_ size: UInt32, _ type: String, _ brand: String) -> [UInt8] {
            withUnsafeBytes(of: size.bigEndian) { Array($0) } + Array(type.utf8) + Array(brand.utf8) + [0, 0, 0, 0]
        }
        #expect(PictureCodecs.codec(sniffing: head(24, "ftyp", "isom"))?.name == ClipCodec.name)
        #expect(PictureCodecs.codec(sniffing: head(20, "ftyp", "qt  "))?.name == ClipCodec.name, "an iPhone's MOV")
        #expect(PictureCodecs.codec(sniffing: head(8, "wide", "\0\0\0\0"))?.name == ClipCodec.name, "an old QuickTime movie")
        #expect(PictureCodecs.codec(sniffing: [0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 1, 0x42, 0xF7, 0x81, 1, 0x42, 0xF2, 0x81])?.name == ClipCodec.name)
        #expect(PictureCodecs.codec(sniffing: head(24, "ftyp", "heic"))?.name == HEIFCodec.name)
        #expect(PictureCodecs.codec(sniffing: head(24, "ftyp", "avif"))?.name == AVIFCodec.name)
        #expect(PictureCodecs.codec(sniffing: head(24, "ftyp", "crx ")) == nil, "a Canon raw is not a clip")
        #expect(PictureCodecs.codec(sniffing: head(4, "moov", "\0\0\0\0")) == nil, "an atom smaller than its header")
    }

    /// With `video = false` a clip is refused, by content too.
    @Test func videoFalseRefusesClips() throws {
        let folder = try ScratchFolder()
        let path = try Self.clip(["-c:v", "libx264", "-pix_fmt", "yuv420p"], size: PixelSize(width: 64, height: 48), name: "c.mp4", in: folder)
        var loader = self.loader
        loader.options.clipsAllowed = false
        let error = expectError(ImageFileError.self) { try loader.loadPicture(path, fittedTo: PixelSize(width: 64, height: 48)) }
        #expect(error?.description == "\(path): a video clip, and video = false")
    }

    /// Played frame by frame (``ClipPlayer``): times on the clip's clock
    /// from 0; a decoder fallen behind passes over the frames already late
    /// without converting them, and says how many; a looping clip counts
    /// its time on across plays, its frames starting again.
    @Test func thePlayerGivesFramesOnTheClipsClockPassesOverLateOnesAndLoops() throws {
        let folder = try ScratchFolder()
        let size = PixelSize(width: 64, height: 48)
        let path = try Self.clip(["-c:v", "libx264", "-pix_fmt", "yuv444p", "-qp", "0"], size: size, frames: 10, name: "ten.mkv", in: folder)
        let options = DecodeOptions(background: .black)
        func frame(_ next: ClipPlayer.Next) throws -> ClipPlayer.Frame {
            guard case .frame(let frame) = next else { throw ImageFileError(path: path, reason: .corrupt("no frame")) }
            return frame
        }
        let player = try ClipPlayer(path: path, fittedTo: size, options: options, loops: false, threads: 2)
        #expect(player.frameTime == 0.1)
        let first = try frame(player.next())
        #expect(first.number == 0 && first.time == 0 && first.skipped == 0)
        let late = try frame(player.next(skippingBefore: 0.45))
        #expect(late.number == 5 && abs(late.time - 0.5) < 1e-9 && late.skipped == 4, "\(late.number) at \(late.time), \(late.skipped) passed over")
        #expect(channelDifferences(late.picture, try reference(path, frame: 5, fittedTo: size)).mean <= 1.5)
        for _ in 6..<10 { _ = try frame(player.next()) }
        guard case .end(let end) = try player.next() else { Issue.record("no end after ten frames"); return }
        #expect(abs(end - 1.0) < 1e-9)

        let looping = try ClipPlayer(path: path, fittedTo: size, options: options, loops: true, threads: 1)
        var times: [Double] = []
        var pictures: [RasterImage] = []
        for _ in 0..<13 {
            let next = try frame(looping.next())
            times.append(next.time)
            pictures.append(next.picture)
        }
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - 0.1) < 1e-9 }, "\(times)")
        #expect(pictures[10] == pictures[0] && pictures[12] == pictures[2], "the second play's frames are the first's")
    }

    /// A playing clip's frames are made in the memory of frames the show
    /// has let go (``ClipFrameMemory``: no fresh mapping for the kernel to
    /// fault in and clear every frame), and a frame the show still holds is
    /// never written over, however many come after it.
    @Test func framesAreMadeInTheMemoryOfFramesLetGoAndNeverOverAFrameHeld() throws {
        let folder = try ScratchFolder()
        let slot = PixelSize(width: 80, height: 60)
        let path = try Self.clip(["-c:v", "libx264", "-pix_fmt", "yuv420p", "-qp", "0"], size: PixelSize(width: 160, height: 120), frames: 12, name: "twelve.mp4", in: folder)
        let options = DecodeOptions(background: .black)
        func pixels(_ picture: RasterImage) -> UnsafeRawPointer? { picture.pixels.withUnsafeBytes { $0.baseAddress } }

        // A show that lets each frame go once the next comes: after the
        // first few, each frame is written where one of them was, in turn.
        let letGo = try ClipPlayer(path: path, fittedTo: slot, options: options, loops: false, threads: 1)
        var places: [UnsafeRawPointer?] = []
        var last: RasterImage?
        while case .frame(let frame) = try letGo.next() {
            last = nil
            places.append(pixels(frame.picture))
            last = frame.picture
        }
        let kept = 4
        #expect(places.count == 12)
        #expect(Set(places.prefix(kept)).count == kept, "the first frames each have memory of their own")
        #expect(places.indices.dropFirst(kept).allSatisfy { places[$0] == places[$0 - kept] }, "a frame let go is written over by a later one: \(places)")

        // A show that holds every frame: each stays as it came, every one of them different.
        let held = try ClipPlayer(path: path, fittedTo: slot, options: options, loops: false, threads: 1)
        var frames: [(picture: RasterImage, asItCame: [UInt32])] = []
        while case .frame(let frame) = try held.next() { frames.append((frame.picture, frame.picture.pixels.map { $0 })) }
        #expect(frames.count == 12)
        #expect(frames.allSatisfy { $0.picture.pixels == $0.asItCame }, "a frame held was written over")
        #expect(Set(frames.map(\.asItCame)).count == 12)
        // Made over another frame or in memory of its own, a frame is the same.
        #expect(last == frames[11].picture)
        #expect(channelDifferences(frames[0].picture, try loader.load(path, fittedTo: slot)).mean == 0, "the first frame is the poster")
    }

    /// Timestamps all zero (a stream copied with its times wiped): the
    /// frames still move on, a nominal frame apart.
    @Test func aClipWhoseTimestampsAreAllZeroStillMovesOn() throws {
        let folder = try ScratchFolder()
        let made = try Self.clip(["-c:v", "libx264", "-bf", "0", "-pix_fmt", "yuv420p"], size: PixelSize(width: 64, height: 48), frames: 10, name: "z.mp4", in: folder)
        let zero = folder.path + "/zero.mkv"
        try #require(try Self.ffmpeg(["-i", made, "-c", "copy", "-bsf:v", "setts=ts=0", zero]))
        let player = try ClipPlayer(path: zero, fittedTo: PixelSize(width: 64, height: 48), options: DecodeOptions(background: .black), loops: false, threads: 1)
        var times: [Double] = []
        while case .frame(let frame) = try player.next() { times.append(frame.time) }
        #expect(times.count == 10)
        #expect(zip(times, times.dropFirst()).allSatisfy { abs($1 - $0 - player.frameTime) < 1e-9 }, "\(times)")
    }

    /// Hostile and broken clips: each refused with one error naming the
    /// file and saying why, or shown; never a crash.
    @Test func brokenAndHostileClipsAreRefusedWithTheirReason() throws {
        let folder = try ScratchFolder()
        let slot = PixelSize(width: 160, height: 90)
        func refusal(_ path: String) -> String? {
            expectError(ImageFileError.self) { try loader.loadPicture(path, fittedTo: slot) }?.description
        }
        let size = PixelSize(width: 320, height: 180)
        let h264 = ["-c:v", "libx264", "-pix_fmt", "yuv420p"]

        // Cut in half with its index (`moov`) at the end: no container to read.
        let whole = try Self.clip(h264, size: size, frames: 20, name: "cut.mp4", in: folder)
        let bytes = try readWholeFile(whole, limit: 1 << 24)
        let cut = try folder.write("cut-half.mp4", Array(bytes.prefix(bytes.count / 2)))
        #expect(refusal(cut)?.hasPrefix("\(cut): cannot decode: cannot read the container: ") == true, "\(refusal(cut) ?? "shown")")

        // Cut with its index first (`faststart`): the frames that are there show.
        let fast = try Self.clip(h264 + ["-movflags", "+faststart"], size: size, frames: 20, name: "fast.mp4", in: folder)
        let fastBytes = try readWholeFile(fast, limit: 1 << 24)
        let fastCut = try folder.write("fast-half.mp4", Array(fastBytes.prefix(fastBytes.count * 6 / 10)))
        let shown = try loader.loadPicture(fastCut, fittedTo: slot)
        #expect(channelDifferences(shown.picture, try reference(fast, fittedTo: slot)).mean <= 1.5)

        // A Matroska header declaring 65535x65535 (a 257x257 clip's size patched): refused before decoding.
        let small = try Self.clip(h264 + ["-pix_fmt", "yuv444p"], size: PixelSize(width: 257, height: 257), frames: 1, name: "huge.mkv", in: folder)
        var huge = try readWholeFile(small, limit: 1 << 24)
        for id: UInt8 in [0xB0, 0xBA] {
            let at = try #require(huge.indices.first { huge[$0...].starts(with: [id, 0x82, 0x01, 0x01]) })
            huge[at + 2] = 0xFF
            huge[at + 3] = 0xFF
        }
        let hugePath = try folder.write("huge-patched.mkv", huge)
        #expect(refusal(hugePath) == "\(hugePath): the picture is too large to decode (65535x65535 pixels)")

        // A codec kioskd does not play.
        let mpeg4 = try Self.clip(["-c:v", "mpeg4"], size: size, frames: 1, name: "old.mp4", in: folder)
        #expect(refusal(mpeg4) == "\(mpeg4): cannot decode: a clip in mpeg4: kioskd plays H.264, HEVC, VP9 and AV1")

        // Sound and no picture.
        let audio = folder.path + "/sound.mp4"
        try #require(try Self.ffmpeg(["-f", "lavfi", "-i", "sine=duration=0.5", "-c:a", "aac", audio]))
        #expect(refusal(audio) == "\(audio): cannot decode: the file holds no video")

        // An MP4's first box, then noise.
        var random = SplitMix(seed: 48)
        let noise = try folder.write("noise.mp4", Array("\0\0\0\u{18}ftypisom\0\0\0\0isommp41".utf8) + (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        #expect(refusal(noise)?.hasPrefix("\(noise): cannot decode: ") == true, "\(refusal(noise) ?? "shown")")
    }
}

/// An iPhone's HDR clip: 10-bit HEVC in BT.2020 with HLG, brought to the
/// 8-bit screen by the same ``HDRToneMapping`` as an HLG photo (the levels
/// ``HDRAVIFTests`` expect of one), and named HLG in its log words.
@Suite struct HDRClipTests {
    @Test func anHLGClipIsToneMappedAsAnHLGPhotoIs() throws {
        let folder = try ScratchFolder()
        let signals = [0, 0.25, 0.5, 0.75, 0.85, 0.92, 1.0]
        let size = PixelSize(width: 16 * signals.count, height: 16)
        _ = try folder.write("hlg.png", greyPatchesPNG(signals))
        let clip = folder.path + "/IMG_0001.MOV"
        // The frames are tagged as well as the encoder: FFmpeg 7's command line takes the colour from the frames.
        try runTool("ffmpeg", [
            "-loglevel", "error", "-i", folder.path + "/hlg.png", "-vf", "scale=out_range=full,setparams=range=pc:color_primaries=bt2020:color_trc=arib-std-b67:colorspace=bt2020nc", "-c:v", "libx265", "-pix_fmt", "yuv444p10le",
            "-x265-params", "lossless=1:log-level=error", "-color_range", "pc", "-color_trc", "arib-std-b67", "-color_primaries", "bt2020",
            "-colorspace", "bt2020nc", "-tag:v", "hvc1", "-f", "mov", clip,
        ])
        let decoded = try PictureLoader(background: .black).loadPicture(clip, fittedTo: size)
        #expect(decoded.info.clip?.highDynamicRange == "HLG" && decoded.info.clip?.depth == 10, "\(String(describing: decoded.info.clip))")
        #expect(decoded.info.clip?.description.hasPrefix("HEVC \(size) 10-bit HLG") == true)
        let shown = (0..<signals.count).map { Int(decoded.picture[16 * $0 + 8, 8] >> 8 & 0xFF) }
        #expect(shown[0] <= 2 && shown[6] >= 253, "\(shown)")
        #expect((184...198).contains(shown[3]), "HLG's reference white (75%) at three quarters: \(shown)")
        #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 < $1 }, "\(shown)")
    }
}
