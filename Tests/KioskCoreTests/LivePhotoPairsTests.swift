import KioskCore
import Testing

/// A Live Photo's still and movie make one slot when they carry the same
/// content identifier in the same folder, whichever arrives first; a
/// movie whose still leaves is a clip of its own again.
@Suite struct LivePhotoPairsTests {
    let id = "DF64C2AE-ED3C-4778-BFCA-C15277E521D2"

    @Test func aStillAndAMovieWithOneIdentifierInOneFolderPair() {
        var pairs = LivePhotoPairs()
        pairs.add(movie: "/photos/IMG_0042.MOV", identifier: id)
        #expect(pairs.stillOf.isEmpty, "a movie alone is a clip")
        pairs.add(still: "/photos/IMG_0042.HEIC", identifier: id.lowercased())
        #expect(pairs.movieOf == ["/photos/IMG_0042.HEIC": "/photos/IMG_0042.MOV"])
        #expect(pairs.stillOf == ["/photos/IMG_0042.MOV": "/photos/IMG_0042.HEIC"])
    }

    @Test func anotherFolderOrAnotherIdentifierDoesNotPair() {
        var pairs = LivePhotoPairs()
        pairs.add(still: "/photos/a/IMG_1.HEIC", identifier: id)
        pairs.add(movie: "/photos/b/IMG_1.MOV", identifier: id)
        pairs.add(movie: "/photos/a/IMG_2.MOV", identifier: "0B7E8D5A-0000-4000-8000-000000000000")
        pairs.add(movie: "/photos/a/IMG_3.MOV", identifier: "  ")
        #expect(pairs.movieOf.isEmpty && pairs.stillOf.isEmpty)
    }

    /// An edited copy shares its original's identifier: the movie goes to
    /// the still of its own name; when that still leaves, to the copy;
    /// when both leave, the movie is alone.
    @Test func theSameNameWinsAndAMovieLeftAloneIsAClipAgain() {
        var pairs = LivePhotoPairs()
        pairs.add(still: "/p/IMG_0042 (edited).JPG", identifier: id)
        pairs.add(still: "/p/IMG_0042.HEIC", identifier: id)
        pairs.add(movie: "/p/IMG_0042.MOV", identifier: id)
        #expect(pairs.movieOf == ["/p/IMG_0042.HEIC": "/p/IMG_0042.MOV"])
        pairs.remove("/p/IMG_0042.HEIC")
        #expect(pairs.movieOf == ["/p/IMG_0042 (edited).JPG": "/p/IMG_0042.MOV"])
        pairs.remove("/p/IMG_0042 (edited).JPG")
        #expect(pairs.movieOf.isEmpty && pairs.stillOf.isEmpty)
        pairs.remove("/p/not-known.MOV")
    }

    /// A file rewritten with another identifier leaves its old pair.
    @Test func aRewrittenFileWithAnotherIdentifierMoves() {
        var pairs = LivePhotoPairs()
        pairs.add(still: "/p/IMG_7.HEIC", identifier: id)
        pairs.add(movie: "/p/IMG_7.MOV", identifier: id)
        pairs.add(movie: "/p/IMG_7.MOV", identifier: "0B7E8D5A-0000-4000-8000-000000000000")
        #expect(pairs.movieOf.isEmpty && pairs.stillOf.isEmpty)
        pairs.add(movie: "/p/IMG_7.MOV", identifier: id)
        #expect(pairs.stillOf["/p/IMG_7.MOV"] == "/p/IMG_7.HEIC")
    }
}
