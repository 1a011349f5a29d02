import Foundation
import ImageCodecs
import KioskApp
import KioskCore
import KioskRendering
import TestSupport
import Testing

/// The results of Tests/vm/run-vm-tests: screendumps of kioskd running on a
/// real kernel's DRM drivers (bochs-drm, virtio-gpu) under QEMU, with kioskd's
/// logs and exit statuses. `scripts/test` runs the VM first and points
/// KIOSKD_VM_RESULTS here; without it these tests are skipped, not passed.
let vmResults = ProcessInfo.processInfo.environment["KIOSKD_VM_RESULTS"]

/// Reads QEMU's screendump: binary PPM (P6), 8 bits per channel.
func readScreendump(_ path: String) throws -> RasterImage {
    let bytes = try readWholeFile(path, limit: 64 << 20)
    // Header: "P6" WS width WS height WS maxval, one whitespace byte, then RGB rows.
    var fields: [Int] = [], index = 2, field = ""
    guard bytes.starts(with: Array("P6".utf8)) else { throw VMResultError("\(path) is not a binary PPM") }
    while fields.count < 3 && index < bytes.count {
        let c = Character(UnicodeScalar(bytes[index]))
        if c.isWhitespace {
            if !field.isEmpty { fields.append(Int(field) ?? -1); field = "" }
        } else {
            field.append(c)
        }
        index += 1
    }
    guard fields.count == 3, fields[2] == 255, fields[0] > 0, fields[1] > 0 else { throw VMResultError("\(path): bad PPM header") }
    let size = PixelSize(width: fields[0], height: fields[1])
    guard bytes.count - index >= size.pixelCount * 3 else { throw VMResultError("\(path) is truncated") }
    let pixels = (0..<size.pixelCount).map { i -> UInt32 in
        let p = index + 3 * i
        return UInt32(bytes[p]) << 16 | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p + 2])
    }
    return RasterImage(size: size, pixels: pixels)
}

struct VMResultError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// What `kioskd snapshot` renders for the same state as a VM scenario.
func snapshot(
    size: PixelSize, position: Double = 0, configure: (inout KioskSettings) -> Void = { _ in }
) throws -> RasterImage {
    var settings = KioskSettings()
    settings.images = demoImages
    settings.layout.background = RGBColor(xrgb: vmBackground)
    configure(&settings)
    return try SnapshotJob(settings: settings, screen: size, position: position).run().frame
}

/// Exact equality, with a useful message when it fails.
func expectSamePixels(_ screen: RasterImage, _ expected: RasterImage, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(screen.size == expected.size, sourceLocation: sourceLocation)
    guard screen.size == expected.size else { return }
    let differing = zip(screen.pixels, expected.pixels).enumerated().filter { $0.element.0 != $0.element.1 }
    if let first = differing.first {
        let x = first.offset % screen.width, y = first.offset / screen.width
        let message = "\(differing.count) pixel(s) differ; first at (\(x), \(y)): screen \(RGBColor(xrgb: first.element.0)), "
            + "snapshot \(RGBColor(xrgb: first.element.1))"
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}

func results(_ file: String) -> String { vmResults! + "/" + file }

func exitOf(_ file: String) throws -> (status: Int, milliseconds: Int) {
    let words = try String(contentsOfFile: results(file), encoding: .utf8).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    guard words.count == 2 else { throw VMResultError("\(file): expected 'status milliseconds'") }
    return (words[0], words[1])
}

let vmBackground: UInt32 = 0x102030

/// The first connected screen's size in millimetres from `kioskd
/// --list-outputs` (`Virtual-1: connected, 320x200 mm`), if it gives one.
func screenMillimetres(_ file: String) throws -> PhysicalSize? {
    let text = try String(contentsOfFile: results(file), encoding: .utf8)
    guard let line = text.split(separator: "\n").first(where: { $0.contains(": connected, ") && $0.hasSuffix(" mm") }) else { return nil }
    let size = line.split(separator: " ").dropLast().last?.split(separator: "x").compactMap { Int($0) } ?? []
    return size.count == 2 ? PhysicalSize(widthMillimetres: size[0], heightMillimetres: size[1]) : nil
}

/// kioskd's exit line about its finger's moves: `finger to screen: median
/// 15.6 ms, 99% within 49.4 ms, slowest 87.9 ms over 477 move(s)`. The
/// median is nil when it is past the histogram's ceiling (`250+ ms`); the
/// slowest is exact.
func fingerToScreen(_ log: String) throws -> (medianMilliseconds: Double?, slowestMilliseconds: Double, moves: Int) {
    guard let part = log.components(separatedBy: "finger to screen: median ").last, part != log,
          let slowest = Double(part.components(separatedBy: "slowest ").last?.prefix { $0 != " " } ?? ""),
          let moves = Int(part.components(separatedBy: " over ").last?.prefix { $0 != " " } ?? "") else {
        throw VMResultError("no finger-to-screen figures in the log's last line: \(log)")
    }
    return (Double(part.prefix { $0 != " " }), slowest, moves)
}

@Suite(.enabled(if: vmResults != nil, "run Tests/vm/run-vm-tests and set KIOSKD_VM_RESULTS"))
struct VMDisplayTests {
    @Test func bochsAtThePreferredModeScansOutExactlyTheSnapshot() throws {
        let screen = try readScreendump(results("bochs/preferred.ppm"))
        #expect(screen.size == PixelSize(width: 1280, height: 800))   // bochs' preferred mode
        expectSamePixels(screen, try snapshot(size: screen.size))
        // Default layout at 1280: w = 896, s = 26, centred slot at 192; the left
        // neighbour ends at 192 - 922 + 896 = 166, the right starts at 1114.
        let y = 400
        #expect(screen[165, y] != vmBackground && screen[166, y] == vmBackground)
        #expect(screen[191, y] == vmBackground && screen[192, y] != vmBackground)
        #expect(screen[1087, y] != vmBackground && screen[1088, y] == vmBackground)
        #expect(screen[1113, y] == vmBackground && screen[1114, y] != vmBackground)
    }

    /// An animated GIF in the centre on bochs: two screendumps (the second
    /// the first of up to eight, a second and a half apart, that differs
    /// from the first) show two different frames, each exactly as
    /// `kioskd snapshot --frame N` draws it. A GIF that stood still would
    /// leave them equal.
    @Test func anAnimatedGIFAdvancesFramesOnTheRealScreen() throws {
        let demo = (demoImages as NSString).deletingLastPathComponent
        let folder = try PictureFolder([
            ("01.gif", readWholeFile(demo + "/animated.gif", limit: 1 << 20)),
            ("02.jpg", readWholeFile(demoImages + "/02.jpg", limit: 1 << 20)),
            ("03.jpg", readWholeFile(demoImages + "/03.jpg", limit: 1 << 20)),
        ])
        let dumps = try ["a", "b"].map { try readScreendump(results("bochs/gif-\($0).ppm")) }
        var settings = KioskSettings()
        settings.images = folder.path
        settings.layout.background = RGBColor(xrgb: vmBackground)
        let frames = try (0..<4).map { try SnapshotJob(settings: settings, screen: dumps[0].size, position: 0, frame: $0).run().frame }
        #expect(Set(frames.map(\.pixels)).count == 4)
        let shown = dumps.map { dump in frames.firstIndex { $0.pixels == dump.pixels } }
        #expect(shown[0] != nil && shown[1] != nil && shown[0] != shown[1], "frames shown: \(shown)")
        #expect(try exitOf("bochs/gif.exit").status == 0)
    }

    /// `--portrait-pairs` on the real screen: cards 6 and 7, named to pair,
    /// share the centred slot, and the screen is `kioskd snapshot
    /// --portrait-pairs` pixel for pixel (and not the frame without pairs,
    /// where card 6 is alone in the centre).
    @Test func twoPortraitsShareTheCentredSlotOnTheRealScreen() throws {
        let names = [PortraitPairs.fileName("1", ext: "jpg", side: .left), PortraitPairs.fileName("2", ext: "jpg", side: .right)]
        #expect(names == ["1-5.jpg", "2-1.jpg"], "the guest's names must be the ones that pair")
        let folder = try PictureFolder([
            (names[0], readWholeFile(demoImages + "/06.jpg", limit: 1 << 20)),
            (names[1], readWholeFile(demoImages + "/07.jpg", limit: 1 << 20)),
            ("3.jpg", readWholeFile(demoImages + "/08.jpg", limit: 1 << 20)),
            ("4.jpg", readWholeFile(demoImages + "/05.jpg", limit: 1 << 20)),
        ])
        let screen = try readScreendump(results("bochs/pairs.ppm"))
        var settings = KioskSettings()
        settings.images = folder.path
        settings.layout.background = RGBColor(xrgb: vmBackground)
        settings.layout.portraitPairs = true
        let paired = try SnapshotJob(settings: settings, screen: screen.size, position: 0).run().frame
        expectSamePixels(screen, paired)
        settings.layout.portraitPairs = false
        let single = try SnapshotJob(settings: settings, screen: screen.size, position: 0).run().frame
        #expect(single.pixels != paired.pixels)
        #expect(try exitOf("bochs/pairs.exit").status == 0)
    }

    /// Two fingers spread on the virtual touchscreen zoom the centred card;
    /// once sharp, the real screen is exactly `kioskd snapshot --zoom Z
    /// --focus X,Y` for the zoom `status` reported, and differs from the
    /// unzoomed frame. A double tap takes it back to that frame.
    @Test func aPinchZoomsTheRealScreenAndADoubleTapResets() throws {
        let status = try String(contentsOfFile: results("bochs/zoom-status.json"), encoding: .utf8)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any], "\(status)")
        let zoom = try #require(object["zoom"] as? Double), focus = try #require(object["focus"] as? [Double])
        #expect(object["zoom_sharp"] as? Bool == true, "\(status)")
        // Spread to three times the distance: the card's own pixels stop it
        // (1200x900 fitted at 896x672 on bochs' 1280x800: 1.34x), about the middle.
        let fitted = aspectFitSize(of: PixelSize(width: 1200, height: 900), in: try CarouselGeometry(
            screen: PixelSize(width: 1280, height: 800), settings: KioskSettings().layout).slotSize)
        #expect(abs(zoom - 1200 / Double(fitted.width)) < 1e-9 && abs(focus[0] - 0.5) < 0.05 && abs(focus[1] - 0.5) < 0.05, "\(status)")
        let screen = try readScreendump(results("bochs/zoom-pinch.ppm"))
        var settings = KioskSettings()
        settings.images = demoImages
        settings.layout.background = RGBColor(xrgb: vmBackground)
        var job = SnapshotJob(settings: settings, screen: screen.size, position: 0)
        job.zoom = zoom
        job.focus = (focus[0], focus[1])
        expectSamePixels(screen, try job.run().frame)
        let plain = try snapshot(size: screen.size)
        #expect(screen.pixels != plain.pixels)
        expectSamePixels(try readScreendump(results("bochs/zoom-reset.ppm")), plain)
        let reset = try String(contentsOfFile: results("bochs/zoom-reset.json"), encoding: .utf8)
        let after = try #require(try JSONSerialization.jsonObject(with: Data(reset.utf8)) as? [String: Any], "\(reset)")
        #expect(after["zoom"] as? Double == 1 && after["focus"] is NSNull && after["zoom_sharp"] as? Bool == false, "\(reset)")
        let log = try String(contentsOfFile: results("bochs/zoom.log"), encoding: .utf8)
        #expect(!log.contains("paused") && !log.contains("picture 1 in the centre"), "neither a pause nor a slide: \(log)")
        #expect(try exitOf("bochs/zoom.exit").status == 0)
    }

    @Test func aModeFromTheConfigIsUsedAndLaidOutByTheGeometry() throws {
        let screen = try readScreendump(results("bochs/mode1080.ppm"))
        #expect(screen.size == PixelSize(width: 1920, height: 1080))
        expectSamePixels(screen, try snapshot(size: screen.size) { $0.layout.slotWidth = .percent(60) })
        // 60% of 1920: w = 1152, s = 38, centred slot at 384; neighbours end at
        // 346 and start at 1574.
        let y = 540
        #expect(screen[345, y] != vmBackground && screen[346, y] == vmBackground)
        #expect(screen[383, y] == vmBackground && screen[384, y] != vmBackground)
        #expect(screen[1535, y] != vmBackground && screen[1536, y] == vmBackground)
        #expect(screen[1573, y] == vmBackground && screen[1574, y] != vmBackground)
    }

    @Test func rotation90ScansOutTheTurnedPicture() throws {
        let screen = try readScreendump(results("bochs/rotated.ppm"))
        #expect(screen.size == PixelSize(width: 1280, height: 800))
        let turned = try snapshot(size: screen.size) { $0.display.rotation = .quarter }
        expectSamePixels(screen, turned)
        #expect(try turned != (snapshot(size: screen.size)))
        // Laid out on an 800x1280 strip (w = 560, s = 16, slot 0 at x = 120),
        // then turned clockwise: the strip runs down the panel. Slot 0 covers
        // panel rows 120..<680, the left neighbour ends above row 104, the
        // right one starts at row 696. Card 1 (4:3, 560x420) sits in panel
        // columns 430..<850.
        let x = 640
        #expect(screen[x, 103] != vmBackground && screen[x, 104] == vmBackground)
        #expect(screen[x, 119] == vmBackground && screen[x, 120] != vmBackground)
        #expect(screen[x, 679] != vmBackground && screen[x, 680] == vmBackground)
        #expect(screen[x, 695] == vmBackground && screen[x, 696] != vmBackground)
        #expect(screen[429, 400] == vmBackground && screen[430, 400] != vmBackground)
        #expect(screen[849, 400] != vmBackground && screen[850, 400] == vmBackground)
    }

    @Test func virtioGPUScansOutExactlyTheSnapshot() throws {
        let screen = try readScreendump(results("virtio-gpu/virtio.ppm"))
        expectSamePixels(screen, try snapshot(size: screen.size))
    }

    /// Promptly: a stop that waited on something (a decode, a flip that
    /// never completes) would take the VM's whole time; the bound is loose,
    /// as an emulated guest on a busy host is slow.
    @Test(arguments: ["bochs/preferred", "bochs/mode1080", "bochs/rotated", "virtio-gpu/virtio"])
    func sigtermExitsZeroPromptlyAndRestoresTheConsole(scenario: String) throws {
        let exit = try exitOf(scenario + ".exit")
        #expect(exit.status == 0)
        #expect(exit.milliseconds <= 20_000, "\(exit.milliseconds) ms")
        let during = try readScreendump(results(scenario + ".ppm"))
        let after = try readScreendump(results(scenario + "-after.ppm"))
        func backgroundShare(_ image: RasterImage) -> Double {
            Double(image.pixels.lazy.filter { $0 == vmBackground }.count) / Double(image.pixels.count)
        }
        #expect(backgroundShare(during) > 0.2, "the carousel was on screen")
        #expect(backgroundShare(after) < 0.01, "the carousel is gone after exit")
        let log = try String(contentsOfFile: results(scenario + ".log"), encoding: .utf8)
        #expect(log.contains("stopping on SIGTERM after ") && log.hasSuffix("restoring the console\n"))
    }

    /// The running show on virtio-gpu: it rests, slides to the next picture
    /// by itself twice, frame by frame, and rests on the third exactly as
    /// the snapshot draws it.
    @Test func theShowAdvancesByItselfWithSmoothSlides() throws {
        let log = try String(contentsOfFile: results("virtio-gpu/advance.log"), encoding: .utf8)
        let lines = log.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("kioskd: picture 1 in the centre: ") && $0.hasSuffix("/02.jpg") })
        let second = try #require(lines.firstIndex { $0.hasPrefix("kioskd: picture 2 in the centre: ") && $0.hasSuffix("/03.jpg") })
        #expect(first < second)
        let screen = try readScreendump(results("virtio-gpu/advance.ppm"))
        expectSamePixels(screen, try snapshot(size: screen.size, position: 2))
        #expect(try exitOf("virtio-gpu/advance.exit").status == 0)
        // "stopping on SIGTERM after 2 slide(s), F frame(s), M refresh(es) missed during slides; ..."
        let stop = try #require(lines.last { $0.contains("stopping on SIGTERM after ") })
        let numbers = stop.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        try #require(numbers.count >= 3)
        #expect(numbers[0] == 2, "\(stop)")
        // Slides are drawn frame by frame (0.5 s at 60 Hz is 30 refreshes),
        // not as jumps; under TCG some refreshes may be missed.
        #expect(numbers[1] >= 2 * 10, "\(stop)")
    }

    /// Five quick `next`s (SIGUSR1) on virtio-gpu: one continuous movement
    /// that rests only on the sixth picture, exactly as the snapshot draws it.
    @Test func quickNextsDuringMotionMoveFivePicturesInOneMovement() throws {
        let log = try String(contentsOfFile: results("virtio-gpu/commands.log"), encoding: .utf8)
        let rests = log.split(separator: "\n").filter { $0.contains(" in the centre: ") }
        #expect(rests.count == 1 && rests.first?.hasPrefix("kioskd: picture 5 in the centre: ") == true, "\(log)")
        #expect(rests.first?.hasSuffix("/06.jpg") == true)
        let screen = try readScreendump(results("virtio-gpu/commands.ppm"))
        expectSamePixels(screen, try snapshot(size: screen.size, position: 5))
        #expect(try exitOf("virtio-gpu/commands.exit").status == 0)
        #expect(log.contains("stopping on SIGTERM after 5 slide(s), "), "\(log)")
    }

    /// The control socket on a real display: `kioskctl next 2` slides the
    /// screen to the third picture, and `kioskctl screenshot` saves exactly
    /// what QEMU's screendump reads back.
    @Test func kioskctlMovesTheRealScreenAndItsScreenshotIsTheScreendump() throws {
        let next = try String(contentsOfFile: results("virtio-gpu/control-next.txt"), encoding: .utf8)
        #expect(next == "moving to picture 2: 03.jpg\nexit 0\n")
        let screen = try readScreendump(results("virtio-gpu/control.ppm"))
        expectSamePixels(screen, try snapshot(size: screen.size, position: 2))
        let saved = try String(contentsOfFile: results("virtio-gpu/control-screenshot.txt"), encoding: .utf8)
        #expect(saved.hasSuffix("exit 0\n"), "\(saved)")
        let path = results("virtio-gpu/control-screenshot.png")
        let screenshot = try PNGCodec.decode(try readWholeFile(path, limit: 1 << 26), path: path, background: .black, maximumPixels: 1 << 24)
        expectSamePixels(screenshot, screen)
        let status = try String(contentsOfFile: results("virtio-gpu/control-status.json"), encoding: .utf8)
        #expect(status.hasPrefix(#"{"ok":true,"index":2,"file":"03.jpg","files":["03.jpg"],"count":8,"#), "\(status)")
        #expect(status.contains(#""display":{"driver":"virtio_gpu","device":"/dev/dri/card0","connector":"Virtual-1","mode":"1280x800@"#), "\(status)")
        #expect(try exitOf("virtio-gpu/control.exit").status == 0)
        #expect(try String(contentsOfFile: results("virtio-gpu/control-socket"), encoding: .utf8) == "removed\n")
    }

    /// Presence on a real kernel (issue 36): idle_off turns the display off
    /// (nothing scanned out); a uinput device with KEY_WAKEUP alone, as a
    /// PIR on gpio-keys is, wakes it with the snapshot's picture, and keeps
    /// it on past idle_off while its key is down; then idle turns it off again.
    @Test func aMotionSensorWakesADisplayThatIdledOff() throws {
        let log = try String(contentsOfFile: results("virtio-gpu/presence.log"), encoding: .utf8)
        #expect(log.contains("(kioskd test motion sensor): presence\n"), "\(log)")
        let lines = log.split(separator: "\n").filter { $0.contains("display o") }.map { String($0.split(separator: ": ", maxSplits: 1).last ?? "") }
        #expect(Array(lines.prefix(3)) == [
            "display off (idle_off: nobody there for 3s): no drawing, decoding or slides until it is on",
            "display on (someone is there)",
            "display off (idle_off: nobody there for 3s): no drawing, decoding or slides until it is on",
        ], "\(log)")
        // The scanout off: QEMU's virtio-gpu shows black with its own grey
        // line "Display output is not active.", none of the show's pixels.
        for dark in ["presence-idle", "presence-idle-again"] {
            let screen = try readScreendump(results("virtio-gpu/\(dark).ppm"))
            let lit = screen.pixels.map { $0 & 0xFF_FFFF }.filter { $0 != 0 }
            #expect(lit.allSatisfy { $0 == 0xAA_AAAA } && lit.count < screen.pixels.count / 100, "\(dark): the scanout is off")
        }
        let held = try readScreendump(results("virtio-gpu/presence-held.ppm"))
        expectSamePixels(held, try snapshot(size: held.size, position: 0))
        #expect(try exitOf("virtio-gpu/presence.exit").status == 0)
    }

    /// Software dimming on a real kernel (issue 36): `brightness = 40` on a
    /// screen with no backlight scans out every pixel at 40% of the
    /// snapshot's, each channel rounded.
    @Test func brightness40DimsEveryPixelOfARealScreen() throws {
        let screen = try readScreendump(results("virtio-gpu/dim-40.ppm"))
        let dimmed = try snapshot(size: screen.size, position: 0).pixels.map { dimmedPixel($0, toPercent: 40) }
        #expect(screen.pixels.map { $0 & 0xFF_FFFF } == dimmed)
        #expect(try exitOf("virtio-gpu/dim.exit").status == 0)
    }

    /// Words on the screen on a real kernel (issue 37): captions, the clock
    /// and a message sent with kioskctl (Latin, Arabic and CJK), scanned out
    /// exactly as `kioskd snapshot` draws them for the same settings and time.
    @Test func captionsTheClockAndAMessageOnARealScreenAreTheSnapshots() throws {
        let screen = try readScreendump(results("virtio-gpu/text.ppm"))
        let times = try String(contentsOfFile: results("virtio-gpu/text-time"), encoding: .utf8).split(separator: "\n").compactMap { Double($0) }
        try #require(times.count == 2)
        #expect(MinuteTurns.minute(of: times[0]) == MinuteTurns.minute(of: times[1]), "the dump straddled a minute's turn: \(times)")
        let message = "Closing in 15 minutes — مرحبا 你好"
        var settings = KioskSettings()
        settings.images = demoImages
        settings.layout.background = RGBColor(xrgb: vmBackground)
        settings.text.caption = try CaptionTemplate(parsing: "{file}\\n{folder}")
        settings.text.clock = try StrftimePattern("%a %H:%M")
        settings.text.font = "DejaVu Sans"
        var job = SnapshotJob(settings: settings, screen: screen.size, position: 0)
        job.message = message
        job.time = times[0]
        expectSamePixels(screen, try job.run().frame)
        let status = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: results("virtio-gpu/text-status.json")))) as? [String: Any]
        #expect(status?["message"] as? String == message && status?["caption"] as? String == "01\nimages", "\(String(describing: status))")
        let log = try String(contentsOfFile: results("virtio-gpu/text.log"), encoding: .utf8)
        #expect(!log.contains("no fonts"), "\(log)")
        #expect(try exitOf("virtio-gpu/text.exit").status == 0)
    }

    /// Touch and keys on a real kernel: uinput devices (a multitouch
    /// touchscreen, a keyboard), each plugged in for one gesture and
    /// removed, drive the strip on virtio-gpu; every screendump equals the
    /// snapshot of where the strip should be.
    @Test func swipesAndKeysFromUinputDevicesMoveTheRealScreen() throws {
        let log = try String(contentsOfFile: results("virtio-gpu/touch.log"), encoding: .utf8)
        let rests = log.split(separator: "\n").filter { $0.contains(" in the centre: ") }.map { $0.split(separator: ":")[1] }
        // Swipe on, snap back, key on, drag and snap back, swipe back.
        #expect(Array(rests.prefix(5)) == [" picture 1 in the centre", " picture 1 in the centre", " picture 2 in the centre", " picture 2 in the centre", " picture 1 in the centre"], "\(log)")
        // Seven devices plugged in and out while it ran, each picked up and dropped.
        #expect(log.components(separatedBy: "(kioskd test touchscreen): touch, 4.0 px/mm from the screen's width\n").count - 1 == 6, "\(log)")
        #expect(log.components(separatedBy: "(kioskd test keyboard): keys\n").count - 1 == 1, "\(log)")
        #expect(log.components(separatedBy: " removed\n").count - 1 == 7, "\(log)")
        #expect(try exitOf("virtio-gpu/touch.exit").status == 0)

        // The two-finger recording: the first finger's swipe moves on one
        // picture; the second finger, moving back after the first lifted,
        // moves nothing. It ends at rest on the whole picture.
        #expect(rests.count > 5 && rests[5] == " picture 2 in the centre", "\(log)")
        #expect(try String(contentsOfFile: results("virtio-gpu/touch-replay.txt"), encoding: .utf8).hasPrefix("425 events"))
        for (name, position) in [("touch-next", 1.0), ("touch-snapback", 1.0), ("touch-key", 2.0), ("touch-prev", 1.0), ("touch-replay", 2.0)] {
            let screen = try readScreendump(results("virtio-gpu/\(name).ppm"))
            expectSamePixels(screen, try snapshot(size: screen.size, position: position))
        }

        // Mid-drag the strip is where the finger put it: the same samples
        // uinput-play sent (0.6 to 0.4 of the width in 0.5 s, every 8 ms)
        // through the same mapping and recogniser give the offset.
        let screen = try readScreendump(results("virtio-gpu/touch-drag.ppm"))
        let mapping = try #require(TouchMapping(
            x: .init(minimum: 0, maximum: 4095), y: .init(minimum: 0, maximum: 4095), rotation: .none, screen: screen.size))
        // The panel gives no resolution: millimetres come from the screen's width, as its connector says.
        let millimetres = try #require(try screenMillimetres("virtio-gpu/outputs.txt"))
        var recognizer = SwipeRecognizer(thresholds: SwipeThresholds(
            pixelsPerMillimetre: mapping.pixelsPerMillimetre(screenMillimetres: Double(millimetres.widthMillimetres))))
        func axis(_ fraction: Double) -> Double { (fraction * 4095).rounded() }
        var offset: Double?
        _ = recognizer.feed(.down(id: 1, at: mapping.point(rawX: axis(0.6), rawY: axis(0.5)), time: 0))
        let steps = Int((0.5 / 0.008).rounded())
        for step in 1...steps {
            let point = mapping.point(rawX: axis(0.6 - 0.2 * Double(step) / Double(steps)), rawY: axis(0.5))
            if case .dragged(let dragged)? = recognizer.feed(.move(id: 1, to: point, time: Double(step) * 0.008)) { offset = dragged }
        }
        let geometry = try CarouselGeometry(screen: screen.size, settings: LayoutSettings())
        let dragged = try #require(offset)
        #expect(dragged < -200, "about 0.2 of 1280 px, less the slop")
        expectSamePixels(screen, try snapshot(size: screen.size, position: 2 - dragged / Double(geometry.pitch)))

        // Each finger move's kernel timestamp and the flip that showed it
        // are on one clock (a mix-up would read as years, or as nothing).
        // How soon is `make bench`'s (input_to_photon): an emulated guest on
        // a busy host may take past the histogram's 250 ms (a nil median).
        let latency = try fingerToScreen(log)
        #expect(latency.moves > 100 && (latency.medianMilliseconds ?? 250) > 0, "\(latency)")
        #expect(latency.slowestMilliseconds > 0 && latency.slowestMilliseconds < 60_000, "\(latency)")
    }

    /// A panel turned on its side (rotation 90), its touchscreen named in
    /// the config by a `/dev/input/by-id` link that appears only after
    /// kioskd started (after the device's node, as udev makes it): kioskd
    /// opens it when the link comes, a swipe along the panel's y axis (the
    /// strip's x) moves on a picture, the screen equals the turned
    /// snapshot, and once the device is gone kioskd holds no more
    /// descriptors than before it came (pictures open for decoding aside:
    /// the neighbours are read from their files while it shows).
    @Test func aRotatedPanelsTouchscreenNamedByIdSwipesTheRightWay() throws {
        let log = try String(contentsOfFile: results("virtio-gpu/touch-rotated.log"), encoding: .utf8)
        let link = "/dev/input/by-id/usb-kioskd-test-touchscreen-event-if00"
        // 800 px of strip along the panel's 200 mm height.
        #expect(log.contains("input: \(link) (kioskd test touchscreen): touch, 4.0 px/mm from the screen's width\n"), "\(log)")
        #expect(log.contains("picture 1 in the centre: "), "\(log)")
        #expect(log.contains("input: \(link) removed\n"), "\(log)")
        let screen = try readScreendump(results("virtio-gpu/touch-rotated.ppm"))
        expectSamePixels(screen, try snapshot(size: screen.size, position: 1) { $0.display.rotation = .quarter })
        let descriptors = try String(contentsOfFile: results("virtio-gpu/touch-rotated-fds"), encoding: .utf8)
            .split(separator: "\n").compactMap { Int($0) }
        let open = (try? String(contentsOfFile: results("virtio-gpu/touch-rotated-fd-list"), encoding: .utf8)) ?? ""
        #expect(descriptors.count == 2 && descriptors[0] == descriptors[1], "\(descriptors), before and after:\n\(open)")
        #expect(try fingerToScreen(log).moves > 0)
        #expect(try exitOf("virtio-gpu/touch-rotated.exit").status == 0)
    }

    /// A flood of random touch frames (up to four fingers landing, moving far
    /// off the axes and lifting) neither crashes nor derails kioskd: it is
    /// still running afterwards, at rest on a whole picture (the one its
    /// log last named), and exits cleanly.
    @Test func aFloodOfTouchEventsLeavesTheStripOnAWholePicture() throws {
        let flood = try String(contentsOfFile: results("virtio-gpu/touch-flood.txt"), encoding: .utf8)
        let sent = Int(flood.split(separator: " ").first ?? "") ?? 0
        #expect(sent > 10_000, "\(flood)")
        #expect(try String(contentsOfFile: results("virtio-gpu/touch-alive"), encoding: .utf8) == "alive\n")
        let log = try String(contentsOfFile: results("virtio-gpu/touch.log"), encoding: .utf8)
        let last = try #require(log.split(separator: "\n").last { $0.contains(" in the centre") })
        let item = try #require(Int(last.split(separator: " ").dropFirst(2).first ?? ""))
        let screen = try readScreendump(results("virtio-gpu/touch-flood.ppm"))
        // The strip rests on slot `item` of some lap: the snapshot of that item.
        expectSamePixels(screen, try snapshot(size: screen.size, position: Double(item)))
        #expect(try exitOf("virtio-gpu/touch.exit").status == 0)
    }

    /// The live folder on a real display: the centred picture deleted, a
    /// copy renamed into place, and a burst that overflows the kernel's
    /// event queue, each while kioskd shows the folder. Every screendump at
    /// rest is exactly `kioskd snapshot` of the folder as it then is.
    @Test func picturesDeletedAndCopiedInWhileShownAreOnTheRealScreen() throws {
        let log = try String(contentsOfFile: results("virtio-gpu/live.log"), encoding: .utf8)
        #expect(log.contains("4 picture(s) in the playlist (1 removed)"), "\(log)")
        #expect(log.contains("5 picture(s) in the playlist (1 added)"), "\(log)")
        #expect(log.contains("inotify queue overflow"), "\(log)")
        #expect(log.contains("7 picture(s) in the playlist"), "\(log)")
        #expect(!log.contains(".junk"), "hidden files are passed over without a word: \(log)")
        for (dump, names) in [("live-start", ["01", "02", "03", "04", "05"]), ("live-deleted", ["02", "03", "04", "05"]),
                              ("live-added", ["02", "03", "04", "05", "06"]),
                              ("live-overflow", ["02", "03", "04", "05", "06", "07", "08"])] {
            let folder = NSTemporaryDirectory() + "kioskd-vm-live-\(getpid())-\(dump)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            for name in names { try FileManager.default.copyItem(atPath: "\(demoImages)/\(name).jpg", toPath: "\(folder)/\(name).jpg") }
            let screen = try readScreendump(results("virtio-gpu/\(dump).ppm"))
            expectSamePixels(screen, try snapshot(size: screen.size) { $0.images = folder })
        }
        #expect(FileManager.default.fileExists(atPath: results("virtio-gpu/live-alive")))
        #expect(try exitOf("virtio-gpu/live.exit").status == 0)
    }

    /// SIGHUP with a new mode in the config: kioskd sets it on the same
    /// card (it stays DRM master) and lays the strip out for it, on the
    /// picture it was showing; the screendump is `kioskd snapshot` at the new size.
    @Test func aReloadWithANewModeSetsItInPlace() throws {
        let log = try String(contentsOfFile: results("virtio-gpu/remode.log"), encoding: .utf8)
        #expect(log.contains("showing on /dev/dri/card0 (virtio_gpu) Virtual-1 1024x768@"), "\(log)")
        #expect(log.contains("reload: mode"), "\(log)")
        let screen = try readScreendump(results("virtio-gpu/remode.ppm"))
        #expect(screen.size == PixelSize(width: 1024, height: 768))
        expectSamePixels(screen, try snapshot(size: screen.size, position: 1))
        #expect(try exitOf("virtio-gpu/remode.exit").status == 0)
    }

    @Test func aBusyDisplayIsAClearErrorNotAHang() throws {
        let exit = try exitOf("bochs/busy.exit")
        #expect(exit.status == 1, "1 is kioskd's failure; 124 would mean timeout(1) had to stop a hang")
        let log = try String(contentsOfFile: results("bochs/busy.log"), encoding: .utf8)
        #expect(log == "kioskd: /dev/dri/card0: the display is busy: another program is DRM master (a desktop session, "
                + "a display manager or another kiosk). Stop it first, e.g. systemctl stop display-manager\n")
    }

    @Test(arguments: [
        ("perm", "kioskd: /dev/dri/card0: permission denied: run kioskd as root, or as a user in the group that owns "
            + "/dev/dri/card0 (usually 'video': usermod -aG video USER), or with seatd running (systemctl enable --now seatd; "
            + "the kioskd service uses it)"),
        ("noconnector", "kioskd: /dev/dri/card0: no connector named HDMI-A-9; it has: Virtual-1"),
        ("nomode", "kioskd: /dev/dri/card0: the screen does not offer mode 1234x567; it offers: 1280x800@75 (preferred), "),
        ("nodevice", "kioskd: /dev/dri/card7: no such device: check the name with kioskd --list-outputs"),
    ])
    func operatorMistakesEndAtOnceWithALineToActOn(scenario: String, message: String) throws {
        #expect(try exitOf("bochs/\(scenario).exit").status == 1)
        let log = try String(contentsOfFile: results("bochs/\(scenario).log"), encoding: .utf8)
        #expect(log.hasPrefix(message), "got: \(log)")
        #expect(log.split(separator: "\n").count == 1)
        if scenario == "nomode" {
            #expect(log.contains(", 1920x1080@60, "))
            #expect(!log.contains("640x480@60, 640x480@60"), "each mode once")
        }
    }

    @Test func listOutputsShowsConnectorsAndModes() throws {
        let text = try String(contentsOfFile: results("bochs/outputs.txt"), encoding: .utf8)
        #expect(text.hasPrefix("/dev/dri/card0 (bochs-drm)\n  Virtual-1: connected, "), "\(text)")
        #expect(text.contains(" mm\n    1280x800@75 (preferred)\n"), "\(text)")
        #expect(try screenMillimetres("bochs/outputs.txt") != nil, "QEMU's EDID gives the screen's size")
        #expect(text.contains("    1920x1080@60\n"))
    }
}
