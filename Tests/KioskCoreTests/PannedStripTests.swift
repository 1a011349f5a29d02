import KioskCore
import Testing

/// The buffer a slide is panned over: long enough for the slide and no
/// longer than the driver allows; every frame of a slide is a window of it.
@Suite struct PannedStripTests {
    /// 1080p with the default layout (pitch 1382): a slide of one picture
    /// needs the screen plus one pitch plus the margins, rounded to 16.
    @Test func aSlideOfOnePictureNeedsTheScreenAndOnePitch() throws {
        let geometry = try fullHD()
        let strip = try #require(PannedStrip(geometry: geometry, covering: 0...1, maximumLength: 8192))
        #expect(strip.length == 3312 && 3312 >= 1920 + 1382 + 2 && 3312 % 16 == 0)
        // A Pi 3's vc4 takes framebuffers up to 2048 wide: no buffer, the slide is composed.
        #expect(PannedStrip(geometry: geometry, covering: 0...1, maximumLength: 2048) == nil)
        // Every frame's window at 60 frames a second over 1.2 s lies inside it, and the strip's start and end are its two ends.
        let drawn = strip.cells(playlist: CircularIndex(count: 8))
        var windows: [Int] = []
        for frame in 0...72 {
            let position = Easing.easeInOut.progress(Double(frame) / 72)
            windows.append(try #require(strip.window(of: geometry.cells(at: position, playlist: CircularIndex(count: 8)), in: drawn), "at \(position)"))
        }
        #expect(windows.first == 1 && windows.last == 1 + 1382)
        #expect(zip(windows, windows.dropFirst()).allSatisfy { $0 <= $1 }, "the window only moves one way")
    }

    /// A slide that starts part-way (a late tick, a drag let go) or goes
    /// back takes a buffer of the same length as a whole slide's: the screen
    /// keeps its two buffers instead of making new ones at every slide (when
    /// lengths alternated, kioskd held a third 14 MB buffer for a moment at
    /// each slide, and its peak memory rose by that much).
    @Test func everySlideOfAtMostOnePictureTakesTheSameLength() throws {
        let geometry = try fullHD()
        let whole = try #require(PannedStrip(geometry: geometry, covering: 0...1, maximumLength: 8192)).length
        for start in stride(from: -3.0, through: 3.0, by: 0.0625) {
            for span in [0.01, 0.25, 0.5, 0.63, 0.9, 1.0] {
                let strip = try #require(PannedStrip(geometry: geometry, covering: start...(start + span), maximumLength: 8192))
                #expect(strip.length == whole, "\(start)...\(start + span)")
            }
        }
        // Every frame of a slide that starts at 0.37 is still a window of its buffer.
        let late = try #require(PannedStrip(geometry: geometry, covering: 0.37...1.37, maximumLength: 8192))
        let drawn = late.cells(playlist: CircularIndex(count: 8))
        for frame in 0...60 {
            let position = 0.37 + Double(frame) / 60
            #expect(late.window(of: geometry.cells(at: position, playlist: CircularIndex(count: 8)), in: drawn) != nil, "at \(position)")
        }
    }

    /// A turned panel pans along y; a half or three-quarter turn from the buffer's far end.
    @Test func aTurnedPanelPansAlongTheOtherAxis() throws {
        let geometry = try CarouselGeometry(screen: PixelSize(width: 800, height: 480), slotWidth: 500, slotHeight: 480, spacing: 20)
        let strip = try #require(PannedStrip(geometry: geometry, covering: 0...1, maximumLength: 4096))
        #expect(strip.panelSize(turnedBy: .quarter) == PixelSize(width: 480, height: strip.length))
        #expect(strip.panelOrigin(ofWindowAt: 7, turnedBy: .none) == (7, 0))
        #expect(strip.panelOrigin(ofWindowAt: 7, turnedBy: .quarter) == (0, 7))
        #expect(strip.panelOrigin(ofWindowAt: 7, turnedBy: .half) == (strip.length - 800 - 7, 0))
        #expect(strip.panelOrigin(ofWindowAt: 7, turnedBy: .threeQuarters) == (0, strip.length - 800 - 7))
    }
}
