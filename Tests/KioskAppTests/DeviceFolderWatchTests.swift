import Foundation
@testable import KioskApp
import KioskCore
import LinuxPlatform
import SystemCalls
import Testing

@Suite struct DeviceFolderWatchTests {
    /// A temporary folder standing in for /dev.
    final class Dev {
        let path = NSTemporaryDirectory() + "kioskd-dev-" + UUID().uuidString
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false) }
        deinit { try? FileManager.default.removeItem(atPath: path) }
        func make(_ folder: String) throws { try FileManager.default.createDirectory(atPath: path + folder, withIntermediateDirectories: false) }
        func remove(_ folder: String) throws { try FileManager.default.removeItem(atPath: path + folder) }
    }

    /// Whether `fd` has something to read, without waiting.
    func readable(_ fd: Int32) -> Bool {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 1
    }

    /// Like a Pi booted with nothing plugged in: no input folder, no by-id
    /// folder. The watch waits on the nearest folder that exists, moves
    /// down as each appears, and back up when one goes away.
    @Test func aMissingFolderIsWaitedForAndFollowedDown() throws {
        let dev = try Dev()
        let watch = try DeviceFolderWatch([dev.path + "/input/by-id"])
        #expect(watch.watchedFolders == [dev.path])
        try dev.make("/input")
        #expect(readable(watch.fd))
        try watch.take()
        #expect(watch.watchedFolders == [dev.path + "/input"])
        try dev.make("/input/by-id")
        try watch.take()
        #expect(watch.watchedFolders == [dev.path + "/input/by-id"], "only the folder itself once it exists")
        FileManager.default.createFile(atPath: dev.path + "/input/by-id/usb-panel-event-if00", contents: nil)
        #expect(readable(watch.fd), "an entry in it is news")
        try watch.take()
        #expect(!readable(watch.fd), "everything taken")
        try dev.remove("/input/by-id")
        try watch.take()
        #expect(watch.watchedFolders == [dev.path + "/input"], "gone: waited for again from above")
    }

    /// The input source behind it: a device named in the config that is
    /// not there at start is opened when its link appears. (A plain file is
    /// not an evdev device, so opening it fails with libevdev's reason,
    /// which shows it was tried; the VM tests open real ones this way.)
    @Test func aConfiguredDeviceIsTriedWhenItsLinkAppears() throws {
        let dev = try Dev()
        let link = dev.path + "/input/by-id/usb-panel-event-if00"
        let loop = try EventLoop()
        let pictures = try fourColours()
        let show = try SimulatedShow(showSettings(pictures))
        var settings = InputSettings()
        settings.devices = [link]
        var log: [String] = []
        let source = InputSource(settings: settings, rotation: .none, log: { log.append($0.text) })
        try source.attach(to: loop, controller: show.controller)
        #expect(log == [
            "input: \(link): open failed: No such file or directory (errno 2)",
            "input: no touchscreen, keyboard with the show's keys or motion sensor yet; watching for the configured devices",
        ])
        // A device's trouble is said once a minute: let one pass (on the show's clock).
        show.stall(61)
        try dev.make("/input")
        try dev.make("/input/by-id")
        FileManager.default.createFile(atPath: link, contents: nil)
        let deadline = MonotonicClock.now() + 30   // at once, unless the machine is busy
        while !log.contains(where: { $0.hasPrefix("input: \(link): libevdev_set_fd failed") }) && MonotonicClock.now() < deadline {
            let tick = loop.deadline(named: "tick") { _ in }
            tick.arm(at: MonotonicClock.now() + 0.05)
            try loop.runOnce()
            loop.remove(tick)
        }
        #expect(log.contains("input: \(link): libevdev_set_fd failed: Inappropriate ioctl for device (errno 25)"), "\(log)")
    }
}
