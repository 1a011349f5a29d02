import KioskCore
import Testing

/// The folder's listing and changes as the playlist takes them, Live
/// Photos paired: the paired MOV never shows, its still carries it, and a
/// change that pairs or unpairs files it does not name sends those too.
@Suite struct LivePhotoFolderTests {
    let id = "DF64C2AE-ED3C-4778-BFCA-C15277E521D2"
    let still = PlaylistEntry("/p/IMG_0042.HEIC"), movie = PlaylistEntry("/p/IMG_0042.MOV"), other = PlaylistEntry("/p/IMG_0043.JPG")

    var paired: PlaylistEntry { PlaylistEntry(still.path, companion: movie.path) }

    @Test func aListingHidesThePairedMovieAndGivesItsStillTheMovie() {
        var folder = LivePhotoFolder()
        let shown = folder.listing([still, movie, other], sides: [still.path: .still(id), movie.path: .movie(id)])
        #expect(shown == [paired, other])
        #expect(folder.hasMovies(in: "/p") && !folder.hasMovies(in: "/q"))
    }

    @Test func aMovieArrivingAfterItsStillPairsThemInOneChange() {
        var folder = LivePhotoFolder()
        #expect(folder.listing([still, other], sides: [still.path: .still(id)]) == [still, other])
        let change = folder.change(PlaylistChange(added: [movie]), sides: [movie.path: .movie(id)])
        #expect(change.removed == [movie.path], "the movie is not shown (removed if it ever was)")
        #expect(change.added == [paired], "the still is sent again with its movie")
    }

    @Test func aStillThatLeavesMakesItsMovieAClipAgain() {
        var folder = LivePhotoFolder()
        _ = folder.listing([still, movie], sides: [still.path: .still(id), movie.path: .movie(id)])
        let change = folder.change(PlaylistChange(removed: [still.path]), sides: [:])
        #expect(change.removed == [still.path] && change.added == [movie])
        #expect(folder.hasMovies(in: "/p"))
    }

    @Test func aMovieThatLeavesLeavesItsStillAlone() {
        var folder = LivePhotoFolder()
        _ = folder.listing([still, movie], sides: [still.path: .still(id), movie.path: .movie(id)])
        let change = folder.change(PlaylistChange(removed: [movie.path]), sides: [:])
        #expect(change.removed == [movie.path] && change.added == [still], "the still without a movie")
        #expect(!folder.hasMovies(in: "/p"))
    }

    @Test func filesWithoutASidePassThroughAndAFolderThatLeftIsForgotten() {
        var folder = LivePhotoFolder()
        _ = folder.listing([still, movie], sides: [still.path: .still(id), movie.path: .movie(id)])
        let plain = folder.change(PlaylistChange(removed: ["/p/x.png"], added: [other]), sides: [:])
        #expect(plain == PlaylistChange(removed: ["/p/x.png"], added: [other]))
        folder.forget(under: "/p/")
        #expect(!folder.hasMovies(in: "/p"))
        #expect(folder.change(PlaylistChange(added: [movie]), sides: [movie.path: .movie(id)]) == PlaylistChange(added: [movie]))
    }

    /// The playlist keeps each still's movie through its changes and replacements.
    @Test func thePlaylistKeepsTheCompanion() {
        var playlist = Playlist(entries: [still, other])
        #expect(playlist.companion(of: still.path) == nil)
        _ = playlist.apply(PlaylistChange(added: [paired]), keepingSlot: 0)
        #expect(playlist.companion(of: still.path) == movie.path && playlist.entries == [paired, other])
        let edit = playlist.replace(with: [still, other], keepingSlot: 0)
        #expect(edit.slot == 0 && playlist.companion(of: still.path) == nil)
        _ = playlist.apply(PlaylistChange(removed: [still.path]), keepingSlot: 0)
        #expect(playlist.companion(of: still.path) == nil && playlist.files == [other.path])
    }
}
