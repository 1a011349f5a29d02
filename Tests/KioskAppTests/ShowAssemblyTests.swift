import Foundation
import Glibc
import ImageCodecs
@testable import KioskApp
import KioskCore
import LinuxPlatform
import SystemCalls
import TestSupport
import Testing

/// One assembly serves the daemon, the snapshot and a reload.
@Suite struct ShowReloadTests {
    /// New settings while the show runs: the centred picture keeps its place,
    /// the new width and colours show at once, the new interval times the
    /// next slide.
    @Test func aReloadKeepsTheCentredPictureAndAppliesTheNewLayout() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder), startAt: 2)
        run.run(until: 1)
        var changed = run.settings
        changed.layout.slotWidth = .percent(50)
        changed.layout.background = RGBColor(xrgb: 0x102030)
        changed.motion.interval = 3
        try run.reload(changed)
        run.run(until: 1.5)
        #expect(run.show.centredItem == 2)
        #expect(run.events.contains(.settingsApplied))
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 2)).pixels)
        #expect(run.screen.shown?[2, 2] == 0x102030)
        // The rest began at 0 and is now 3 s long: the next slide starts at 3, not 8.
        #expect(run.show.schedule.nextAdvance == 3)
        run.run(until: 4)
        #expect(run.show.centredItem == 3)
    }

    /// The folder changed under the show (a reload lists it again): the
    /// centred file is gone, so the next one takes the centre.
    @Test func aReloadWithoutTheCentredFileCentresTheNextOne() throws {
        let folder = try fourColours()
        let run = try SimulatedShow(showSettings(folder), startAt: 2)
        run.run(until: 1)
        try FileManager.default.removeItem(atPath: folder.path + "/c.png")
        try run.reload(run.settings)
        run.run(until: 1.5)
        #expect(run.show.pictures.pictures.playlist.files.last == folder.path + "/d.png")
        #expect(run.show.centredItem == 2)   // d.png, now the third file
        #expect(run.events.contains(.playlistChanged(count: 3, added: 0, removed: 1)))
        #expect(try run.screen.shown?.pixels == (run.snapshot(at: 2)).pixels)
    }
}

/// A source written the way later ones will be: it registers a descriptor
/// with the loop and speaks only `ShowCommand` (and `stop`) to the controller.
final class PipeCommands: ShowSource {
    let pipe = TestPipe()
    private var registration: Registration?

    func attach(to loop: EventLoop, controller: ShowController) throws(SystemCallError) {
        registration = try loop.register(pipe.read, name: "test commands") { [pipe] _ in
            var byte: UInt8 = 0
            while Glibc.read(pipe.read, &byte, 1) == 1 {
                switch byte {
                case UInt8(ascii: "n"): controller.perform(.next)
                case UInt8(ascii: "p"): controller.perform(.previous)
                default: controller.stop(reason: "asked")
                }
            }
        }
    }

    func send(_ text: String) { for byte in text.utf8 { var b = byte; _ = Glibc.write(pipe.write, &b, 1) } }
}

@Suite struct ShowSourceTests {
    @Test func aNewSourceDrivesTheShowThroughTheControllerAlone() throws {
        let folder = try fourColours()
        var settings = showSettings(folder, interval: 600, transition: 0.05)
        settings.display.target = .headless
        let assembly = try ShowAssembly(settings: settings, panel: PixelSize(width: 320, height: 180))
        let screen = try HeadlessScreen(panel: assembly.panel, vblankTimer: true, now: MonotonicClock.now())
        let worker = try DecodeWorker(recipe: assembly.recipe)
        defer { worker.stop() }
        let controller = ShowController(show: assembly.makeShow(on: screen, decoder: worker, startAt: 0, now: MonotonicClock.now()))
        var events: [ShowEvent] = []
        let subscription = controller.subscribe { events.append($0) }
        defer { subscription.end() }
        let loop = try ShowLoop(controller: controller, decoder: worker)
        let commands = PipeCommands()
        try loop.add(commands)
        let deadline = MonotonicClock.now() + 30   // a bound for a busy machine: each wait ends when its event comes
        // Once the first picture is up (commands before that only choose
        // where the show starts: no slide, no event for the pictures passed).
        _ = try loop.run { _ in events.contains { if case .ready = $0 { true } else { false } } || MonotonicClock.now() > deadline }
        commands.send("nnn")
        // Until the frame with picture 3 in the centre is on screen.
        let arrived = ShowEvent.pictureCentred(item: 3, file: folder.path + "/d.png")
        _ = try loop.run { _ in events.map(\.untimed).contains(arrived) || MonotonicClock.now() > deadline }
        #expect(events.map(\.untimed).contains(arrived))
        #expect(controller.show.centredItem == 3)
        #expect(controller.show.progress(at: MonotonicClock.now()).slides == 3)
        commands.send("p")
        commands.send("q")
        #expect(try loop.run() == "asked")
        #expect(controller.show.centredItem == 2)
    }
}
