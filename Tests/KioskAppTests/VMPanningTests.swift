import Foundation
import KioskApp
import KioskCore
import KioskRendering
import Testing

/// Panning on real kernel drivers (issue 47), from Tests/vm/guest-scenarios'
/// `held_show` runs (pictures centred in their slots: with `align = inner`
/// the demo's square and portrait pictures lean as the strip moves, and
/// those frames are composed): `hold POSITION` stops the strip mid-slide, drawn once
/// into a long buffer and scanned out as a window of it; `resume` lets it
/// settle, a slide shown window by window. Every screendump must be what
/// `kioskd snapshot` draws for that position.
@Suite(.enabled(if: vmResults != nil, "run Tests/vm/run-vm-tests and set KIOSKD_VM_RESULTS"))
struct VMPanningTests {
    func status(_ file: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: results(file)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(file)")
    }

    /// A turned panel with each picture's file name as its caption.
    static func turnedWithCaptions(_ settings: inout KioskSettings) {
        settings.display.rotation = .quarter
        settings.text.caption = try! CaptionTemplate(parsing: "{file}")
        settings.text.font = "DejaVu Sans"
    }

    /// virtio-gpu pans by the plane's SRC_X (SRC_Y on the turned panel),
    /// bochs-drm by framebuffers at offsets: the held frame, a window of
    /// the long buffer, and the frame at rest after the panned settle are
    /// the snapshots, upright and (virtio-gpu) turned with captions;
    /// `status` says panning is in use; every frame of the settle (bar one,
    /// should its stretch need a long buffer drawn) was panned, the one on
    /// screen too.
    @Test(arguments: [("pan", 2.5, false), ("pan-turned", 1.5, true), ("bochs-pan", 2.5, false)])
    func heldAndSettledFramesOnARealDriverAreTheSnapshots(name: String, position: Double, turned: Bool) throws {
        let folder = name.hasPrefix("bochs") ? "bochs" : "virtio-gpu"
        func configure(_ settings: inout KioskSettings) {
            settings.layout.alignment = .centre
            if turned { Self.turnedWithCaptions(&settings) }
        }
        let held = try readScreendump(results("\(folder)/\(name).ppm"))
        #expect(held.size == PixelSize(width: 1280, height: 800))
        expectSamePixels(held, try snapshot(size: held.size, position: position, configure: configure))
        // Not the picture at rest: the hold moved the strip.
        let moved = try held != snapshot(size: held.size, position: position.rounded(.down), configure: configure)
        #expect(moved, "the held frame is the strip at rest")
        let during = try status("\(folder)/\(name)-status.json")
        #expect(during["position"] as? Double == position && during["panning"] as? Bool == true, "\(during)")
        #expect(during["panning_off_reason"] is NSNull, "\(during)")
        let settled = try readScreendump(results("\(folder)/\(name)-settled.ppm"))
        let after = try status("\(folder)/\(name)-settled.json")
        let rest = position.rounded()
        #expect(after["position"] as? Double == rest, "\(after)")
        expectSamePixels(settled, try snapshot(size: settled.size, position: rest, configure: configure))
        // The settle's frames after its first (the long buffer drawn) are windows of it.
        let (shownBefore, pannedBefore) = (try #require(during["frames_shown"] as? Int), try #require(during["frames_panned"] as? Int))
        let (shown, panned) = (try #require(after["frames_shown"] as? Int), try #require(after["frames_panned"] as? Int))
        #expect(shown - shownBefore >= 5 && panned - pannedBefore >= shown - shownBefore - 1, "during \(during), after \(after)")
        let log = try String(contentsOfFile: results("\(folder)/\(name).log"), encoding: .utf8)
        let how = folder == "bochs" ? "panning: on (framebuffers at offsets)" : "panning: on (the plane's SRC_X/SRC_Y)"
        #expect(log.contains(how), "\(log)")
        #expect(try exitOf("\(folder)/\(name).exit").status == 0)
    }

    /// At rest, the slide to the next picture is drawn ahead into the
    /// buffer not on screen; held at 0.5 and then 0.75 inside that slide,
    /// both frames are windows of it (by SRC_X on virtio-gpu, by a
    /// framebuffer at an offset on bochs): no frame was drawn for either,
    /// and the screen is the snapshot at 0.75.
    @Test(arguments: [("virtio-gpu", "pan-ahead"), ("bochs", "bochs-ahead")])
    func aSlideDrawnAheadAtRestIsShownWindowByWindow(folder: String, name: String) throws {
        let screen = try readScreendump(results("\(folder)/\(name).ppm"))
        expectSamePixels(screen, try snapshot(size: screen.size, position: 0.75) { $0.layout.alignment = .centre })
        let before = try status("\(folder)/\(name)-before.json"), after = try status("\(folder)/\(name)-status.json")
        #expect(after["position"] as? Double == 0.75, "\(after)")
        let composed = (try #require(before["frames_composed"] as? Int), try #require(after["frames_composed"] as? Int))
        let panned = (try #require(before["frames_panned"] as? Int), try #require(after["frames_panned"] as? Int))
        #expect(composed.1 == composed.0, "a frame was drawn for a hold: before \(before), after \(after)")
        #expect(panned.1 >= panned.0 + 2, "before \(before), after \(after)")
        let log = try String(contentsOfFile: results("\(folder)/\(name).log"), encoding: .utf8)
        #expect(log.contains("ahead of their slide)"), "\(log)")
        #expect(try exitOf("\(folder)/\(name).exit").status == 0)
    }

    /// bochs-drm accepts SRC_X in an atomic commit, even a test commit, and
    /// scans out from the framebuffer's start regardless: forced to pan by
    /// SRC_X, the held frame is the long buffer's first screenful (the strip
    /// at 2.0, a pixel of margin to the right), not the strip at 2.5. That
    /// is why KMSOutput.ignoresSourceRectangle lists it, and it pans by
    /// framebuffers at offsets (the test above).
    @Test func bochsIgnoresSourceRectangles() throws {
        let screen = try readScreendump(results("bochs/bochs-srcx.ppm"))
        let asked = try snapshot(size: screen.size, position: 2.5) { $0.layout.alignment = .centre }
        let ignored = screen != asked
        #expect(ignored, "bochs honoured SRC_X: it need not be listed")
        let start = try snapshot(size: screen.size, position: 2) { $0.layout.alignment = .centre }
        // The screen is the buffer's first screenful: the strip at the
        // slide's start, one pixel of margin to the right. Column 0 is that
        // margin, the column of the strip left of the screen (the left
        // neighbour's picture, where it crosses the edge), which no
        // snapshot of the screen shows: it is left out.
        var differing = 0
        for y in 0..<screen.height {
            for x in 1..<screen.width where screen[x, y] != start[x - 1, y] { differing += 1 }
        }
        #expect(differing == 0, "\(differing) pixels differ from the buffer's first screenful: the window moved")
        let log = try String(contentsOfFile: results("bochs/bochs-srcx.log"), encoding: .utf8)
        #expect(log.contains("panning: on (the plane's SRC_X/SRC_Y)"), "\(log)")
    }

    /// The clock is a fixed overlay, and neither VM driver has a plane for
    /// it: with it on, the held frame is composed, and is the snapshot with
    /// the clock at that minute.
    @Test func withTheClockOnTheFrameIsComposedAndIsTheSnapshot() throws {
        let screen = try readScreendump(results("virtio-gpu/pan-clock.ppm"))
        let times = try String(contentsOfFile: results("virtio-gpu/pan-clock-time"), encoding: .utf8).split(separator: "\n").compactMap { Double($0) }
        try #require(times.count == 2)
        #expect(MinuteTurns.minute(of: times[0]) == MinuteTurns.minute(of: times[1]), "the dump straddled a minute's turn: \(times)")
        var settings = KioskSettings()
        settings.images = demoImages
        settings.layout.background = RGBColor(xrgb: vmBackground)
        settings.text.clock = try StrftimePattern("%H:%M")
        settings.text.font = "DejaVu Sans"
        settings.layout.alignment = .centre
        var job = SnapshotJob(settings: settings, screen: screen.size, position: 2.5)
        job.time = times[0]
        expectSamePixels(screen, try job.run().frame)
        let during = try status("virtio-gpu/pan-clock-status.json")
        #expect(during["frames_panned"] as? Int == 0, "\(during)")
    }

    /// Unplugged and plugged back in the middle of a panned slide: at rest
    /// after, the screen is the snapshot of where the slide went.
    @Test func aScreenUnpluggedMidSlideComesBackCorrect() throws {
        let screen = try readScreendump(results("virtio-gpu/pan-hotplug.ppm"))
        // The dump waits until the show is settled (`pictures_waiting` 0):
        // the right neighbour (03), unseen while unplugged, is asked for
        // only as the slide nears its end (issue 47's first session saw it
        // missing after a fixed wait).
        expectSamePixels(screen, try snapshot(size: screen.size, position: 1) { $0.layout.alignment = .centre })
        let after = try status("virtio-gpu/pan-hotplug-status.json")
        #expect(after["panel"] as? String == "active" && after["panning"] as? Bool == true, "\(after)")
        #expect(try exitOf("virtio-gpu/pan-hotplug.exit").status == 0)
    }
}
