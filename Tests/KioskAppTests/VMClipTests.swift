import Foundation
import KioskApp
import KioskCore
import KioskRendering
import Testing

/// A video clip playing on a real kernel driver (virtio-gpu, issue 48),
/// from Tests/vm/guest-scenarios' `clip_show`: a 320x180 clip at 10 frames
/// a second whose flat frames number themselves (frame n: red 16+32·⌊n/8⌋,
/// green 16+32·(n mod 8)), looping in the centre. Each of eight screendumps
/// is taken between two `status` replies; the frame on screen must be the
/// one the clip's clock says (`clip_position_s`) between them, within one
/// frame, and the frames must move on at the clip's rate.
@Suite(.enabled(if: vmResults != nil, "run Tests/vm/run-vm-tests and set KIOSKD_VM_RESULTS"))
struct VMClipTests {
    func status(_ file: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: results(file)))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(file)")
    }

    /// The frame number a pixel's colour says, or nil when it is no frame's (within 12 levels).
    static func frameNumber(_ pixel: UInt32) -> Int? {
        let colour = RGBColor(xrgb: pixel)
        func code(_ level: UInt8) -> Int? {
            let step = (Double(level) - 16) / 32
            let nearest = Int(step.rounded())
            guard (0..<8).contains(nearest), abs(Double(level) - Double(16 + 32 * nearest)) <= 12 else { return nil }
            return nearest
        }
        guard let high = code(colour.red), let low = code(colour.green), abs(Int(colour.blue) - 128) <= 12 else { return nil }
        return high * 8 + low
    }

    @Test func aClipPlaysAtItsRateOnVirtioGPU() throws {
        try playsAtItsRate(scene: "clip", file: "0-clip.mp4")
    }

    /// The same movie inside an MVIMG (a demo JPEG, its XMP giving only the
    /// offset), with `motion_photos = "loop"`: the still's slot plays it.
    @Test func aMotionPhotosMoviePlaysAtItsRateOnVirtioGPU() throws {
        try playsAtItsRate(scene: "motion", file: "0-MVIMG.jpg")
    }

    func playsAtItsRate(scene: String, file: String) throws {
        #expect(try exitOf("virtio-gpu/\(scene).exit").status == 0)
        let log = try String(contentsOfFile: results("virtio-gpu/\(scene).log"), encoding: .utf8)
        #expect(log.contains("\(file): H.264 320x180, 10 fps, 6.4 s, software decoding"), "\(log)")
        var numbers: [Int] = []
        for k in 1...8 {
            let before = try status("virtio-gpu/\(scene)-\(k)-before.json"), after = try status("virtio-gpu/\(scene)-\(k)-after.json")
            let from = try #require(before["clip_position_s"] as? Double), to = try #require(after["clip_position_s"] as? Double)
            #expect(before["clip_decoder"] as? String == "software" && before["clip_length_s"] as? Double == 6.4, "\(before)")
            let dump = try readScreendump(results("virtio-gpu/\(scene)-\(k).ppm"))
            let centre = dump[dump.width / 2, dump.height / 2]
            let number = try #require(Self.frameNumber(centre), "dump \(k): \(String(centre, radix: 16)) is no frame's colour")
            // The clip loops: its clock counts on across plays, its frames start again every 64.
            let earliest = Int((from * 10).rounded(.down)) - 1, latest = Int((to * 10).rounded(.up)) + 1
            #expect((earliest...latest).contains { ($0 % 64 + 64) % 64 == number }, "dump \(k): frame \(number), the clock from \(from) to \(to) s")
            numbers.append(number)
        }
        // At its rate: over the eight dumps the frames moved on, and the statuses' clock with them.
        let first = try #require(status("virtio-gpu/\(scene)-1-before.json")["clip_position_s"] as? Double)
        let last = try #require(status("virtio-gpu/\(scene)-8-after.json")["clip_position_s"] as? Double)
        #expect(last - first > 1, "the clock moved \(last - first) s over eight dumps")
        #expect(Set(numbers).count >= 4, "frames seen: \(numbers)")
    }
}
