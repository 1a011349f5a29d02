import KioskCore
import Testing
import TestSupport

/// Finding a motion photo's video inside its still's file: Samsung's
/// trailer, Google's container directory, the old MVIMG offset, and the
/// `ftyp` check that keeps stale metadata from playing the wrong bytes.
/// The files are made here byte by byte, to the layouts exiftool reads.
@Suite struct MotionPhotoLocationTests {
    /// A stand-in still: a JPEG's markers around bytes that hold no `ftyp`.
    let still: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array(repeating: 0x5A, count: 300) + [0xFF, 0xD9]
    /// A stand-in MP4: an `ftyp` box, then a `moov` header and bytes.
    let movie: [UInt8] = {
        // In parts: Swift 6.0's type checker gives up on the sum written whole.
        let fileType: [UInt8] = [0, 0, 0, 0x18] + Array("ftypmp42".utf8) + [0, 0, 0, 0] + Array("isommp42".utf8)
        let movieBox: [UInt8] = [0, 0, 0, 0x40] + Array("moov".utf8)
        return fileType + movieBox + [UInt8](repeating: 0x33, count: 1000)
    }()

    func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

    /// The still, then Samsung's blocks (`MotionPhoto_Data` holding
    /// `payload`, and `MotionPhoto_Version`), its `SEFH` directory and footer.
    func samsungFile(payload: [UInt8]) -> [UInt8] {
        var file = still
        var blocks: [(type: Int, start: Int, size: Int)] = []
        for (type, name, data) in [(0x0a30, "MotionPhoto_Data", payload), (0x0a31, "MotionPhoto_Version", Array("mpv3".utf8))] {
            let bytes = [0, 0, UInt8(type & 0xFF), UInt8(type >> 8)] + le32(name.utf8.count) + Array(name.utf8) + data
            blocks.append((type, file.count, bytes.count))
            file += bytes
        }
        let directoryStart = file.count
        var directory = Array("SEFH".utf8) + le32(107) + le32(blocks.count)
        for block in blocks {
            directory += [0, 0, UInt8(block.type & 0xFF), UInt8(block.type >> 8)] + le32(directoryStart - block.start) + le32(block.size)
        }
        return file + directory + le32(directory.count) + Array("SEFT".utf8)
    }

    /// What a reader does with `file`: its trailer's video, when it has one.
    func samsungVideo(_ file: [UInt8]) -> Range<Int64>? {
        let size = Int64(file.count)
        guard let trailer = SamsungTrailer(tail: Array(file.suffix(SamsungTrailer.tailLength)), fileSize: size),
              let entry = trailer.motionPhoto else { return nil }
        let header = Array(file[Int(entry.start)..<min(file.count, Int(entry.start) + 64)])
        guard let block = entry.block(header: header) else { return nil }
        let payload = Array(file[Int(block.payload.lowerBound)..<min(file.count, Int(block.payload.lowerBound) + 12)])
        return SamsungTrailer.video(in: block, payloadHead: payload, fileSize: size)
    }

    @Test func samsungsTrailerGivesExactlyTheMovieAndItsBlocksNames() throws {
        let file = samsungFile(payload: movie)
        let trailer = try #require(SamsungTrailer(tail: Array(file.suffix(SamsungTrailer.tailLength)), fileSize: Int64(file.count)))
        #expect(trailer.entries.map(\.type) == [0x0a30, 0x0a31])
        let entry = try #require(trailer.motionPhoto)
        #expect(entry.block(header: Array(file[Int(entry.start)...].prefix(64)))?.name == "MotionPhoto_Data")
        let video = try #require(samsungVideo(file))
        #expect(Array(file[Int(video.lowerBound)..<Int(video.upperBound)]) == movie)
        #expect(MotionPhotoLocation.opensMP4(Array(file[Int(video.lowerBound)...].prefix(8))))
    }

    /// A HEIC's trailer holds 12 bytes, `mpv2` and the big-endian offset
    /// and size of the video, which sits in the `mpvd` box.
    @Test func samsungsMpv2FormNamesTheVideoElsewhere() throws {
        let offset = 100, size = 200
        let pointer = Array("mpv2".utf8) + [0, 0, 0, UInt8(offset)] + [0, 0, 0, UInt8(size)]
        let file = samsungFile(payload: pointer)
        #expect(samsungVideo(file) == Int64(offset)..<Int64(offset + size))
    }

    /// Google's Motion Photo 1.0: the video item is the file's last bytes.
    @Test func theContainerDirectoryCountsTheVideoBackFromTheEnd() {
        let file = still + movie
        let items = [
            MotionPhotoLocation.ContainerItem(mime: "image/jpeg", semantic: "Primary"),
            MotionPhotoLocation.ContainerItem(mime: "video/mp4", semantic: "MotionPhoto", length: Int64(movie.count)),
        ]
        #expect(MotionPhotoLocation.byDirectory(items, fileSize: Int64(file.count)) == Int64(still.count)..<Int64(file.count))
        // An Ultra HDR gain map comes before the video.
        let gainMap = Array(repeating: UInt8(0x77), count: 150)
        let withGainMap = still + gainMap + movie
        let three = [items[0], MotionPhotoLocation.ContainerItem(mime: "image/jpeg", semantic: "GainMap", length: 150), items[1]]
        #expect(MotionPhotoLocation.byDirectory(three, fileSize: Int64(withGainMap.count))
            == Int64(still.count + 150)..<Int64(withGainMap.count))
        // A QuickTime movie counts as a video too.
        var quickTime = items
        quickTime[1].mime = "video/quicktime"
        #expect(MotionPhotoLocation.byDirectory(quickTime, fileSize: Int64(file.count)) != nil)
    }

    @Test func aDirectoryWithoutAVideoOrLongerThanTheFileGivesNothing() {
        let primary = MotionPhotoLocation.ContainerItem(mime: "image/jpeg", semantic: "Primary")
        #expect(MotionPhotoLocation.byDirectory([primary], fileSize: 1000) == nil)
        #expect(MotionPhotoLocation.byDirectory(
            [primary, .init(mime: "image/jpeg", semantic: "GainMap", length: 100)], fileSize: 1000) == nil)
        #expect(MotionPhotoLocation.byDirectory([primary, .init(mime: "video/mp4", semantic: "MotionPhoto", length: 1001)], fileSize: 1000) == nil)
        #expect(MotionPhotoLocation.byDirectory([primary, .init(mime: "video/mp4", semantic: "MotionPhoto", length: -5)], fileSize: 1000) == nil)
        #expect(MotionPhotoLocation.byDirectory([primary, .init(mime: "video/mp4", semantic: "MotionPhoto", length: 0)], fileSize: 1000) == nil)
    }

    /// MVIMG files say only how far back from the end the MP4 starts.
    @Test func anMVIMGsOffsetCountsBackFromTheEnd() {
        let file = still + movie
        #expect(MotionPhotoLocation.byMicroVideoOffset(Int64(movie.count), fileSize: Int64(file.count)) == Int64(still.count)..<Int64(file.count))
        #expect(MotionPhotoLocation.byMicroVideoOffset(0, fileSize: 10) == nil)
        #expect(MotionPhotoLocation.byMicroVideoOffset(10, fileSize: 10) == nil)
    }

    /// A Samsung JPEG also writes an MVIMG offset, which counts its
    /// trailer as video: the trailer's exact range comes first.
    @Test func samsungsTrailerIsTriedBeforeItsOwnLooserOffset() throws {
        let file = samsungFile(payload: movie)
        let exact = try #require(samsungVideo(file))
        let loose = Int64(file.count) - exact.lowerBound
        let candidates = MotionPhotoLocation.candidates(samsung: exact, directory: [], microVideoOffset: loose, fileSize: Int64(file.count))
        #expect(candidates == [exact, exact.lowerBound..<Int64(file.count)])
        // The same range from two sources is tried once.
        #expect(MotionPhotoLocation.candidates(samsung: exact, directory: [], microVideoOffset: nil, fileSize: Int64(file.count)).count == 1)
    }

    /// Stale XMP (the video cut off by an editor) points at bytes that are
    /// no MP4; a scan finds the `ftyp` where there is one.
    @Test func onlyBytesThatOpenAnMP4AreTakenAndAScanFindsTheFileType() {
        #expect(MotionPhotoLocation.opensMP4(movie))
        #expect(!MotionPhotoLocation.opensMP4(still))
        #expect(!MotionPhotoLocation.opensMP4(Array(movie.prefix(7))))
        #expect(!MotionPhotoLocation.opensMP4([0, 0, 0, 4] + Array("ftyp".utf8)))
        let file = still + movie
        #expect(MotionPhotoLocation.firstFileType(in: file) == still.count)
        #expect(MotionPhotoLocation.firstFileType(in: still) == nil)
        // A HEIC still begins with its own `ftyp`: the movie's is the one after it.
        let heic: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8) + Array(repeating: 9, count: 50)
        #expect(MotionPhotoLocation.firstFileType(in: heic + movie) == heic.count)
        // "ftyp" inside other data, without a plausible box size before it, is not a box.
        #expect(MotionPhotoLocation.firstFileType(in: [1, 2, 3, 4] + Array("ftyp".utf8)) == nil)
    }

    /// Malformed trailers are refused, never read past: no footer, a
    /// directory longer than what was read, an entry reaching before the
    /// file, more entries than the directory holds.
    @Test func malformedTrailersAreRefused() {
        let file = samsungFile(payload: movie)
        let size = Int64(file.count)
        var tail = Array(file.suffix(SamsungTrailer.tailLength))
        #expect(SamsungTrailer(tail: Array(tail.dropLast()), fileSize: size - 1) == nil)
        #expect(SamsungTrailer(tail: Array(tail.suffix(20)), fileSize: size) == nil)
        var longDirectory = tail
        longDirectory[tail.count - 8] = 0xFF
        longDirectory[tail.count - 7] = 0xFF
        #expect(SamsungTrailer(tail: longDirectory, fileSize: size) == nil)
        // The first entry's distance back made larger than the directory's start.
        let directoryLength = 12 + 2 * 12
        let firstEntry = tail.count - 8 - directoryLength + 12
        tail[firstEntry + 7] = 0x7F
        #expect(SamsungTrailer(tail: tail, fileSize: size) == nil)
        var tooMany = Array(file.suffix(SamsungTrailer.tailLength))
        tooMany[tooMany.count - 8 - directoryLength + 8] = 3
        #expect(SamsungTrailer(tail: tooMany, fileSize: size) == nil)
    }

    /// A bounded fuzz run: tails with bytes changed at random never crash
    /// the reader, and whatever video it then names lies inside the file.
    @Test func mutatedTrailersNeverReadOutsideTheFile() {
        var random = SplitMix(seed: 47)
        let file = samsungFile(payload: movie)
        for _ in 0..<3000 {
            var mutated = file
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = mutated.count - 1 - Int(random.next() % 80)
                mutated[at] = UInt8(truncatingIfNeeded: random.next())
            }
            if let video = samsungVideo(mutated) {
                #expect(video.lowerBound >= 0 && video.upperBound <= Int64(mutated.count))
            }
        }
    }
}

