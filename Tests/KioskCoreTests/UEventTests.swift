import KioskCore
import Testing
import TestSupport

@Suite struct UEventTests {
    func message(_ parts: [String]) -> [UInt8] { parts.flatMap { Array($0.utf8) + [0] } }

    /// As the kernel sends `echo change > /sys/class/drm/card0/uevent`.
    let cardChange = [
        "change@/devices/pci0000:00/0000:00:02.0/drm/card0", "ACTION=change",
        "DEVPATH=/devices/pci0000:00/0000:00:02.0/drm/card0", "SUBSYSTEM=drm", "MAJOR=226", "MINOR=0",
        "DEVNAME=dri/card0", "DEVTYPE=drm_minor", "SEQNUM=2187",
    ]

    @Test func aChangeOfTheCardIsRecognised() throws {
        let event = try #require(UEvent(message: message(cardChange)))
        #expect(event.action == "change" && event.subsystem == "drm" && event.fields["DEVNAME"] == "dri/card0")
        #expect(event.isChange(ofDRMDevice: 226, 0))
        #expect(!event.isChange(ofDRMDevice: 226, 1)) // another card's
        let hotplug = try #require(UEvent(message: message(cardChange + ["HOTPLUG=1"])))
        #expect(hotplug.isChange(ofDRMDevice: 226, 0))
        var added = cardChange
        added[0] = "add@/devices/pci0000:00/0000:00:02.0/drm/card0"
        added[1] = "ACTION=add"
        #expect(UEvent(message: message(added))?.isChange(ofDRMDevice: 226, 0) == false)
    }

    @Test func whatIsNotAKernelUEventIsRefused() {
        #expect(UEvent(message: message(["libudev", "ACTION=change"])) == nil) // udev's rebroadcast
        #expect(UEvent(message: []) == nil)
        #expect(UEvent(message: [UInt8](repeating: 65, count: UEvent.maximumBytes + 1)) == nil)
        var lying = cardChange
        lying[1] = "ACTION=add"
        #expect(UEvent(message: message(lying)) == nil) // header and field disagree
        #expect(UEvent(message: message(["change@relative", "SUBSYSTEM=drm"])) == nil)
    }

    /// Random and mangled messages never crash the parser (a bounded fuzz run).
    @Test func randomBytesNeverCrash() {
        var random = SplitMix(seed: 1515)
        let real = message(cardChange)
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = real
                for _ in 0..<(1 + random.below(8)) { bytes[random.below(bytes.count)] = UInt8(truncatingIfNeeded: random.next()) }
                if random.below(4) == 0 { bytes = Array(bytes.prefix(random.below(bytes.count))) }
            } else {
                bytes = (0..<random.below(300)).map { _ in [0, 61, 64, 65, 47][random.below(5)] }
            }
            if let event = UEvent(message: bytes) {
                #expect(!event.action.isEmpty && event.devicePath.hasPrefix("/"))
            }
        }
    }
}
