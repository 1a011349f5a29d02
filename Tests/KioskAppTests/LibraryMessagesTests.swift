import Foundation
import KioskCore
import SystemCalls
import TestSupport
import Testing

/// libde265 has no log callback: it prints its complaints about a HEIC's
/// bitstream to stdio's stderr. kioskd takes them into its own log, naming
/// the file, at debug priority, once per file.
@Suite struct LibraryMessagesTests {
    /// A HEIC whose sequence parameter set says a width one pixel off the
    /// coding blocks' grid (1199 for 1200): libde265 prints
    /// `SPS error: CB alignment` and refuses it. Made from a demo card by
    /// heif-enc, then the last bit of `pic_width_in_luma_samples` flipped in
    /// the `hvcC` box's SPS (ue(v) codes 1200 and 1199 in as many bits, so
    /// nothing else moves).
    static func misalignedHEIC(in folder: String) throws -> String {
        let path = folder + "/misaligned.heic"
        try #require(try runTool("heif-enc", ["-q", "50", demoImages + "/01.jpg", "-o", path]))
        var file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let hvcC = try #require(file.firstRange(of: Array("hvcC".utf8))).upperBound
        // The record's 22 bytes of fields, its arrays of NAL units; the SPS is NAL type 33.
        var at = hvcC + 22
        let arrays = Int(file[at])
        at += 1
        var sps: Range<Int>?
        for _ in 0..<arrays {
            let type = file[at] & 0x3F, count = Int(file[at + 1]) << 8 | Int(file[at + 2])
            at += 3
            for _ in 0..<count {
                let length = Int(file[at]) << 8 | Int(file[at + 1])
                if type == 33 { sps = (at + 2)..<(at + 2 + length) }
                at += 2 + length
            }
        }
        let nal = try #require(sps, "no SPS in the hvcC box")
        // The payload without emulation-prevention bytes, and where each of its bytes lies in the file.
        var payload: [UInt8] = [], place: [Int] = [], zeros = 0
        for index in (nal.lowerBound + 2)..<nal.upperBound {
            if zeros >= 2 && file[index] == 3 { zeros = 0; continue }
            payload.append(file[index])
            place.append(index)
            zeros = file[index] == 0 ? zeros + 1 : 0
        }
        var bit = 0
        func read(_ count: Int) -> Int {
            (0..<count).reduce(0) { value, _ in
                defer { bit += 1 }
                return value << 1 | Int(payload[bit >> 3] >> (7 - UInt8(bit & 7)) & 1)
            }
        }
        func unsignedGolomb() -> Int {
            var zeros = 0
            while read(1) == 0 { zeros += 1 }
            return (1 << zeros) - 1 + read(zeros)
        }
        _ = read(4)
        try #require(read(3) == 0, "more than one sub-layer")
        _ = read(1 + 96)   // temporal nesting; the general profile, tier and level
        _ = unsignedGolomb()   // sps_seq_parameter_set_id
        if unsignedGolomb() == 3 { _ = read(1) }   // chroma_format_idc
        try #require(unsignedGolomb() == 1200, "pic_width_in_luma_samples")
        let last = bit - 1
        file[place[last >> 3]] ^= 1 << (7 - UInt8(last & 7))
        try Data(file).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aDecodersComplaintIsLoggedOnceWithTheFileAndAPriority() throws {
        let folder = NSTemporaryDirectory() + "kioskd-libde265-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.misalignedHEIC(in: folder)
        // The reference: libheif's own tool, whose libde265 prints it bare.
        let converter = Process()
        converter.executableURL = URL(fileURLWithPath: "/usr/bin/heif-convert")
        converter.arguments = [path, folder + "/out.png"]
        let converterErrors = Pipe()
        converter.standardError = converterErrors
        converter.standardOutput = FileHandle.nullDevice
        try converter.run()
        let bare = String(decoding: converterErrors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        converter.waitUntilExit()
        try #require(bare.contains("SPS error: CB alignment"), "libde265 did not complain: \(bare)")

        // The broken HEIC in the centre, a good photo beside it: one line, named, with kioskd's prefix.
        try FileManager.default.copyItem(atPath: demoImages + "/02.jpg", toPath: folder + "/b.jpg")
        let out = folder + "/snapshot.png"
        let run = try kioskd(["snapshot", "--images", folder, "--size", "320x180", "--index", "1", "--out", out])
        let lines = run.stderr.split(separator: "\n")
        #expect(!lines.contains { $0.hasSuffix("SPS error: CB alignment") && !$0.hasPrefix("kioskd: ") }, "a bare line: \(run.stderr)")
        let said = lines.filter { $0 == "kioskd: \(path): the decoder says: SPS error: CB alignment" }
        #expect(said.count == 1, "\(run.stderr)")
        // Under systemd the journal takes the priority from the line's prefix: debug (7).
        #expect(LogLine.debug("x").formatted(forJournal: true) == "<7>kioskd: x\n")
    }
}
